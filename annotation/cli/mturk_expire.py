"""`annotate mturk expire`: take the batch's HITs off the market now (submitted work stays)."""
from annotation.cli import mturk_options

GROUP = "mturk"


def register(subparsers):
    mturk_options.batch_verb(subparsers, "expire", "expire the batch's HITs now",
                             "Set every HIT's expiration to the past; workers already working may still submit.",
                             run)


@mturk_options.reports_mturk_errors
def run(args):
    from annotation.mturk import hits as mturk_hits
    ledger, _, client = mturk_options.api_batch(args)
    print(f"batch {args.batch}: {mturk_hits.expire_hits(client, ledger, args.batch)} HIT(s) expired")
    return 0
