"""`annotate mturk save`: page through every HIT's assignments into the ledger (safe to re-poll)."""
from annotation.mturk.cli import options as mturk_options
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate mturk save`."""
    mturk_options.add_batch_options(parser)


@mturk_options.reports_mturk_errors
def run(args):
    from annotation.mturk import review as mturk_review
    ledger, _, client = mturk_options.api_batch(args)
    seen = mturk_review.save_assignments(client, ledger, args.batch)
    with ledger.read() as q:
        stored = len(q.assignments(batch_id=args.batch))
    print(f"batch {args.batch}: {seen} assignment(s) on MTurk, {stored} in the ledger")
    if args.out:
        print(f"wrote {mturk_review.write_assignments(ledger, args.batch, args.out)} assignment(s) to {args.out}")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "save", run, add_options,
    help="save the batch's submitted assignments into the ledger",
    writes=verbs.Writes("file", "also write the batch's saved assignments here, one per line as "
                        "list_assignments_for_hit returns them (replaced whole; the answers a companion's rating "
                        "step reads)", optional=True, within="mturk", metavar="FILE.jsonl"),
    description="List every assignment of every HIT (all pages) and record it with its answers; re-polling only updates "
                "statuses. With --out, also write every saved assignment of the batch, from the ledger, as JSON Lines."))
