"""`annotate mturk delete`: delete the batch's finished HITs from MTurk (only once their work is saved)."""
from annotation.mturk.cli import options as mturk_options
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate mturk delete`."""
    mturk_options.add_batch_options(parser)


@mturk_options.reports_mturk_errors
def run(args):
    from annotation.mturk import hits as mturk_hits
    ledger, _, client = mturk_options.api_batch(args)
    outcomes = mturk_hits.delete_hits(client, ledger, args.batch)
    for hit_id, outcome in outcomes.items():
        print(f"{hit_id}  {outcome}")
    deleted = sum(outcome == "deleted" for outcome in outcomes.values())
    print(f"batch {args.batch}: {deleted} of {len(outcomes)} HIT(s) deleted")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "delete", run, add_options,
    help="delete the batch's finished HITs from MTurk",
    description="Delete HITs whose assignments are all saved in the ledger; others are kept and "
                "listed."))
