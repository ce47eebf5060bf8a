"""`picforge annotate ingest expert --sheets SHEET…`: validate, grammar-check, record; write fix-lists."""
import os

from annotation.cli.common import add_grammar_options, add_ledger_options, add_sheets_argument, open_ledger
from picforge.paths import add_output
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate ingest expert`."""
    add_ledger_options(parser)
    add_sheets_argument(parser)
    add_grammar_options(parser)
    add_output(parser, "--fixlists", kind="folder", owns=("annotation/expert/fixlists",), metavar="DIR",
                        help="where fix-lists go (default RUN_DIR/annotation/expert/fixlists)")


def run(args):
    from annotation.expert import ingest_expert
    from annotation.languagetool import checker_from_options
    checker = checker_from_options(args.languagetool, args.no_grammar)
    fix_dir = args.fixlists or os.path.join(args.run, "annotation", "expert", "fixlists")
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
    help="read returned expert sheets (CSV or XLSX) into the ledger"))
