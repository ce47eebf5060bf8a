"""`picforge annotate ingest verify2 --sheets SHEET…`: round-2 answers in, round-2 decisions out."""
from annotation.cli.common import add_ledger_options, add_sheets_argument, open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate ingest verify2`."""
    add_ledger_options(parser)
    add_sheets_argument(parser)


def run(args):
    from annotation.verify2 import ingest_verify2
    counts = ingest_verify2(open_ledger(args), args.sheets)
    print(f"{counts['answered']} answers: {counts['accepted']} items endorsed, {counts['rejected']} rejected; "
          f"{counts['blank']} rows left blank")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "ingest", "verify2", run, add_options,
    help="read returned round-2 sheets; decide each item"))
