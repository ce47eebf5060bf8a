"""`annotate mturk expire`: take the batch's HITs off the market now (submitted work stays)."""
from annotation import mturk
from annotation.cli import mturk_options, open_ledger

GROUP = "mturk"


def register(subparsers):
    parser = subparsers.add_parser("expire", help="expire the batch's HITs now",
                                   description="Set every HIT's expiration to the past; workers already working "
                                               "may still submit.")
    mturk_options.add_batch_options(parser)
    parser.set_defaults(func=run)


@mturk_options.reports_mturk_errors
def run(args):
    ledger = open_ledger(args)
    mturk_options.api_plan(ledger, args)
    count = mturk.expire_hits(mturk_options.client(args), ledger, args.batch)
    print(f"batch {args.batch}: {count} HIT(s) expired")
    return 0
