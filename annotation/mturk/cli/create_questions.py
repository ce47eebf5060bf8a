"""`annotate mturk create-questions`: post prepared question files (e.g. a companion's rating forms) as HITs."""
from annotation.mturk.cli import options as mturk_options
from annotation.cli.common import open_ledger
from picforge.options import positive_int
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate mturk create-questions`."""
    mturk_options.add_batch_options(parser)
    parser.add_argument("--questions", required=True, metavar="PLAN.json",
                        help="plan file naming each HIT's request token and question XML file")
    parser.add_argument("--assignments", type=positive_int, default=1, metavar="N", help="workers per HIT (default 1)")
    mturk_options.add_budget_option(parser)
    mturk_options.add_hit_type_options(parser, round1_defaults=False)


@mturk_options.reports_mturk_errors
def run(args):
    from annotation.mturk import (client as mturk_client, fees as mturk_fees, hits as mturk_hits,
                                  questions as mturk_questions)
    hit_type = mturk_options.hit_type_settings(args)
    ledger = open_ledger(args)
    plan, questions, _ = mturk_questions.plan_batch(
        ledger, args.batch, args.questions, {"environment": mturk_client.environment(args.live),
                                             "hit_type": hit_type.as_meta(), "assignments": args.assignments})
    mturk_fees.announce_cost(args.batch, plan, f"the questions of {args.questions}", args.live, args.max_spend)
    mturk_hits.create_planned_hits(mturk_options.client(args), ledger, args.batch, plan, questions, args.live)
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "create-questions", run, add_options,
    help="create HITs from prepared question files (sandbox unless --live)",
    description="Post one HIT per entry of a plan file (a JSON object whose 'hits' or 'forms' list holds "
                "{request_token, question_xml}, such as the plan.json a companion writes with its rating "
                "forms): print the full cost, refuse it above --max-spend, then create the HIT type and the "
                "HITs. Re-running resumes: request tokens make retries safe."))
