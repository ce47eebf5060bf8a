"""`annotate mturk create`: plan a round-1 batch, print its cost, and create its HITs (sandbox unless --live)."""
from annotation.mturk.cli import options as mturk_options
from annotation.cli.common import open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate mturk create`."""
    mturk_options.add_batch_options(parser)
    mturk_options.add_budget_option(parser)
    mturk_options.add_plan_options(parser)
    mturk_options.add_hit_type_options(parser)


@mturk_options.reports_mturk_errors
def run(args):
    from annotation.mturk import hits as mturk_hits
    from annotation.next_step import run_options
    mturk_hits.create_round1_batch(open_ledger(args), args.run, args.batch, args.gold,
                                   mturk_options.round1_settings(args), mturk_options.hit_type_settings(args),
                                   live=args.live, max_spend=args.max_spend, limit=args.limit, profile=args.profile,
                                   at=run_options(args.run, args.ledger))
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "create", run, add_options,
    help="create round-1 verification HITs (sandbox unless --live)",
    description="Plan a batch of type-1/type-2 verification questions from the accepted expert annotations, "
                "print its full cost, refuse it above --max-spend, then create the qualification test, "
                "HIT type and HITs. Re-running resumes: request tokens make retries safe. The batch is "
                "recorded only once MTurk accepted its first HIT."))
