"""`annotate mturk status`: each HIT's state on MTurk, and what the ledger holds for the batch."""
from annotation.mturk.cli import options as mturk_options
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate mturk status`."""
    mturk_options.add_batch_options(parser)


@mturk_options.reports_mturk_errors
def run(args):
    from annotation.mturk import hits as mturk_hits
    ledger, plan, client = mturk_options.api_batch(args)
    rows = mturk_hits.hit_statuses(client, ledger, args.batch)
    totals = {"available": 0, "pending": 0, "completed": 0}
    for row in rows:
        print(f"{row['hit_id']}  {row['status']:<12} available {row['available']}  pending {row['pending']}  "
              f"completed {row['completed']}")
        for key in totals:
            totals[key] += row[key]
    with ledger.read() as q:
        saved = len(q.assignments(batch_id=args.batch))
    print(f"batch {args.batch}: {len(rows)} of {len(plan['hits'])} planned HIT(s) created; assignments "
          f"available {totals['available']}, pending {totals['pending']}, completed {totals['completed']}; "
          f"{saved} saved in the ledger")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "status", run, add_options,
    help="show the batch's HITs on MTurk and in the ledger",
    description="Poll every HIT of the batch and record its status in the ledger."))
