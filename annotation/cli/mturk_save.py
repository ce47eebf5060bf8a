"""`annotate mturk save`: page through every HIT's assignments into the ledger (safe to re-poll)."""
from annotation import mturk
from annotation.cli import mturk_options, open_ledger

GROUP = "mturk"


def register(subparsers):
    parser = subparsers.add_parser("save", help="save the batch's submitted assignments into the ledger",
                                   description="List every assignment of every HIT (all pages) and record it with "
                                               "its answers; re-polling only updates statuses.")
    mturk_options.add_batch_options(parser)
    parser.set_defaults(func=run)


@mturk_options.reports_mturk_errors
def run(args):
    ledger = open_ledger(args)
    mturk_options.api_plan(ledger, args)
    seen = mturk.save_assignments(mturk_options.client(args), ledger, args.batch)
    with ledger.read() as q:
        stored = len(q.assignments(batch_id=args.batch))
    print(f"batch {args.batch}: {seen} assignment(s) on MTurk, {stored} in the ledger")
    return 0
