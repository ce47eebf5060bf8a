"""`annotate mturk ingest`: read requester-UI `Batch_*_batch_results.csv` files into the ledger."""
from annotation.cli.common import add_ledger_options, open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate mturk ingest`."""
    add_ledger_options(parser)
    parser.add_argument("--results", required=True, nargs="+", metavar="Batch_*_batch_results.csv",
                        help="results files downloaded from the requester site (or written by `mturk rehearse`)")


def run(args):
    from annotation.mturk import manual as mturk_manual
    ledger = open_ledger(args)
    seen = mturk_manual.ingest_results(ledger, args.results, args.run)
    for batch_id, count in sorted(seen.items()):
        with ledger.read() as q:
            stored = len(q.assignments(batch_id=batch_id))
        print(f"batch {batch_id}: {count} row(s) read, {stored} assignment(s) in the ledger")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "ingest", run, add_options,
    help="ingest Batch_*_batch_results.csv files of requester-UI batches",
    description="Each file is one transaction; rows already in the ledger change nothing but a status "
                "moving forward (an older file never moves Approved/Rejected back to Submitted)."))
