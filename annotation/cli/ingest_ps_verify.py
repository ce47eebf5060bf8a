"""`picforge annotate ingest ps-verify --sheets SHEET…`: A1/A2/A3 answers in; pairs decided when ≥2 endorse."""
from annotation.cli.common import add_ledger_options, add_sheets_argument, open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate ingest ps-verify`."""
    add_ledger_options(parser)
    add_sheets_argument(parser)


def run(args):
    from annotation.ps_verify import agreement, ingest_ps_verify, kappa_text
    ledger = open_ledger(args)
    counts = ingest_ps_verify(ledger, args.sheets)
    with ledger.read() as q:
        agree = agreement(q)
    print(f"{counts['answered']} rows recorded: {counts['accepted']} pairs accepted, {counts['rejected']} rejected, "
          f"{counts['tiebreak']} need A3, {counts['pending']} wait for A1 or A2")
    print(f"A1–A2: {agree['agree']} of {agree['pairs']} agree, {kappa_text(agree)}")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "ingest", "ps-verify", run, add_options,
    help="read returned PS verification sheets; decide the pairs"))
