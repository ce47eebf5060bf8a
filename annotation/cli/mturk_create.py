"""`annotate mturk create`: plan a round-1 batch, print its cost, and create its HITs (sandbox unless --live)."""
from decimal import Decimal

from annotation import mturk, round1
from annotation.cli import mturk_options, open_ledger
from pipeline.errors import InputError

GROUP = "mturk"


def register(subparsers):
    parser = subparsers.add_parser(
        "create", help="create round-1 verification HITs (sandbox unless --live)",
        description="Plan a batch of type-1/type-2 verification questions from the accepted expert annotations, "
                    "print its full cost, refuse it above --max-spend, then create the qualification test, "
                    "HIT type and HITs. Re-running resumes: request tokens make retries safe.")
    mturk_options.add_batch_options(parser)
    parser.add_argument("--max-spend", type=Decimal, metavar="USD",
                        help="refuse the batch if rewards + MTurk fees exceed this (required with --live)")
    mturk_options.add_plan_options(parser)
    mturk_options.add_hit_type_options(parser)
    parser.set_defaults(func=run)


@mturk_options.reports_mturk_errors
def run(args):
    settings, hit_type = mturk_options.round1_settings(args), mturk_options.hit_type_settings(args)
    ledger = open_ledger(args)
    plan, new = round1.plan_batch(ledger, args.batch, round1.API_BATCH, args.gold, settings,
                                  {"environment": mturk.environment(args.live), "hit_type": hit_type.as_meta()},
                                  limit=args.limit)
    cost = mturk.batch_cost(hit_type.reward, settings.assignments, len(plan["hits"]))
    print(f"batch {args.batch} [{mturk.environment(args.live)}]: {len(plan['items'])} questions in "
          + mturk.describe_cost(cost, len(plan["hits"]), settings.assignments, hit_type.reward))
    mturk.check_budget(cost, args.max_spend, args.live)
    questions = mturk.question_xmls(plan, round1.hit_pages_of(args.run, plan))
    if new:
        round1.store_plan(ledger, args.batch, plan)
    client = mturk_options.client(args)
    if args.live:
        with ledger.read() as q:
            to_create = len(plan["hits"]) - len(q.hits(args.batch))
        still = mturk.batch_cost(hit_type.reward, settings.assignments, to_create)["total"]
        balance = Decimal(client.get_account_balance()["AvailableBalance"])
        if balance < still:
            raise InputError(f"the MTurk account holds ${balance:.2f}, less than the ${still:.2f} the {to_create} "
                             "HIT(s) still to create cost; prepay more on the requester site first")
    ids = mturk.ensure_hit_type_for_plan(client, ledger, args.batch, plan)
    created = mturk.create_hits(client, ledger, args.batch, plan, questions, ids["hit_type_id"])
    print(f"{created} HIT(s) created now; {len(plan['hits'])} in the batch; qualification test "
          f"{ids['qualification_type_id']}, HIT type {ids['hit_type_id']}")
    with ledger.read() as q:
        groups = sorted({hit["meta"].get("group_id") for hit in q.hits(args.batch)} - {None})
    for group_id in groups:
        print(f"workers find them at {mturk.worker_url(args.live, group_id)}")
    return 0
