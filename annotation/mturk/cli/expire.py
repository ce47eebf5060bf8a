"""`annotate mturk expire`: take the batch's HITs off the market now (submitted work stays)."""
from annotation.mturk.cli import options as mturk_options
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate mturk expire`."""
    mturk_options.add_batch_options(parser)


@mturk_options.reports_mturk_errors
def run(args):
    from annotation.mturk import hits as mturk_hits
    ledger, _, client = mturk_options.api_batch(args)
    print(f"batch {args.batch}: {mturk_hits.expire_hits(client, ledger, args.batch)} HIT(s) expired")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "expire", run, add_options,
    help="expire the batch's HITs now",
    description="Set every HIT's expiration to the past; workers already working may still submit."))
