"""`annotate mturk create`: plan a round-1 batch, print its cost, and create its HITs (sandbox unless --live)."""
from annotation.cli import mturk_options, open_ledger

GROUP = "mturk"


def register(subparsers):
    parser = subparsers.add_parser(
        "create", help="create round-1 verification HITs (sandbox unless --live)",
        description="Plan a batch of type-1/type-2 verification questions from the accepted expert annotations, "
                    "print its full cost, refuse it above --max-spend, then create the qualification test, "
                    "HIT type and HITs. Re-running resumes: request tokens make retries safe. The batch is "
                    "recorded only once MTurk accepted its first HIT.")
    mturk_options.add_batch_options(parser)
    mturk_options.add_budget_option(parser)
    mturk_options.add_plan_options(parser)
    mturk_options.add_hit_type_options(parser)
    parser.set_defaults(func=run)


@mturk_options.reports_mturk_errors
def run(args):
    from annotation import mturk, round1
    settings, hit_type = mturk_options.round1_settings(args), mturk_options.hit_type_settings(args)
    ledger = open_ledger(args)
    plan, _ = round1.plan_batch(ledger, args.batch, round1.API_BATCH, args.gold, settings,
                                  {"environment": mturk.environment(args.live), "hit_type": hit_type.as_meta()},
                                  limit=args.limit)
    mturk.announce_cost(args.batch, plan, f"{len(plan['items'])} questions", args.live, args.max_spend)
    questions = mturk.question_xmls(plan, round1.hit_pages_of(args.run, plan))
    mturk.create_planned_hits(mturk_options.client(args), ledger, args.batch, plan, questions, args.live)
    return 0
