"""`annotate mturk delete`: delete the batch's finished HITs from MTurk (only once their work is saved)."""
from annotation.cli import mturk_options

GROUP = "mturk"


def register(subparsers):
    mturk_options.batch_verb(subparsers, "delete", "delete the batch's finished HITs from MTurk",
                             "Delete HITs whose assignments are all saved in the ledger; others are kept and "
                             "listed.", run)


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
