"""`picforge annotate ingest expert --sheets SHEET…`: validate, grammar-check, record; write fix-lists."""

from annotation.cli.common import add_grammar_options, add_ledger_options, add_sheets_argument, open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate ingest expert`."""
    add_ledger_options(parser)
    add_sheets_argument(parser)
    add_grammar_options(parser)


def run(args):
    from annotation.expert import ingest_expert
    from annotation.languagetool import checker_from_options
    checker = checker_from_options(args.languagetool, args.no_grammar)
    fix_dir = args.out
    try:
        counts, fixlists = ingest_expert(open_ledger(args), args.run, args.sheets, fix_dir, checker,
                                         args.strict_grammar)
    finally:
        if checker is not None:
            checker.close()
    for annotator, tally in sorted(counts.items()):
        reassigned = f", {tally['reassigned']} reassigned to someone else (skipped)" if tally["reassigned"] else ""
        print(f"{annotator}: {tally['rows']} rows, {tally['accepted']} accepted, {tally['to_fix']} to fix, "
              f"{tally['checks']} with checks, {tally['blank']} blank{reassigned}")
        if tally["accepted"] + tally["to_fix"] == 0:
            print(f"{annotator}: no answered row: nothing recorded, fix-list left as it was")
    for path in fixlists:
        print(f"fix-list → {path}")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "ingest", "expert", run, add_options,
    help="read returned expert sheets (CSV or XLSX) into the ledger",
    writes=verbs.Writes("folder", "folder for the fix-lists", default="annotation/expert/fixlists")))
