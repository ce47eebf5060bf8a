"""`annotate mturk delete`: delete the batch's finished HITs from MTurk (only once their work is saved)."""
from annotation import mturk
from annotation.cli import mturk_options, open_ledger

GROUP = "mturk"


def register(subparsers):
    parser = subparsers.add_parser("delete", help="delete the batch's finished HITs from MTurk",
                                   description="Delete HITs whose assignments are all reviewed and saved in the "
                                               "ledger; others are kept and listed.")
    mturk_options.add_batch_options(parser)
    parser.set_defaults(func=run)


@mturk_options.reports_mturk_errors
def run(args):
    ledger = open_ledger(args)
    mturk_options.api_plan(ledger, args)
    outcomes = mturk.delete_hits(mturk_options.client(args), ledger, args.batch)
    for hit_id, outcome in outcomes.items():
        print(f"{hit_id}  {outcome}")
    deleted = sum(outcome == "deleted" for outcome in outcomes.values())
    print(f"batch {args.batch}: {deleted} of {len(outcomes)} HIT(s) deleted")
    return 0
