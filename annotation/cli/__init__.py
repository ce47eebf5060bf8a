"""`picforge annotate …`: one module per verb; each declares GROUP (export, ingest, mturk or None) and register()."""
import argparse
import importlib

from annotation.ledger import Ledger

# Sub-commands grouped under `annotate <group> <target>`; modules with GROUP = None sit at `annotate <verb>`.
GROUPS = {
    "export": "write sheets/files for annotators, or the final annotations",
    "ingest": "read annotators' returned sheets into the ledger",
    "mturk": "MTurk round-1 verification HITs (sandbox unless --live)",
}
CORE_VERBS = ()
# Verb modules of the MTurk half (annotation.cli.mturk_*); kept apart from CORE_VERBS.
MTURK_VERBS = (
    "annotation.cli.mturk_create",
    "annotation.cli.mturk_status",
    "annotation.cli.mturk_save",
    "annotation.cli.mturk_review",
    "annotation.cli.mturk_expire",
    "annotation.cli.mturk_delete",
    "annotation.cli.mturk_export",
    "annotation.cli.mturk_ingest",
)


def register(subparsers):
    annotate = subparsers.add_parser("annotate", help="annotation round-trips over the ledger",
                                     description="Expert sheets, MTurk and expert verification, PS "
                                                 "verification and the final export, recorded in one ledger.")
    verbs = annotate.add_subparsers(dest="verb", required=True, metavar="VERB")
    groups = {name: verbs.add_parser(name, help=text, description=text).add_subparsers(
        dest="target", required=True, metavar="TARGET") for name, text in GROUPS.items()}
    for name in CORE_VERBS + MTURK_VERBS:
        module = importlib.import_module(name)
        module.register(groups[module.GROUP] if module.GROUP else verbs)


def add_ledger_options(parser):
    """--run RUN_DIR (required) and --ledger URL, shared by every annotate verb."""
    parser.add_argument("--run", required=True, metavar="RUN_DIR",
                        help="run directory of `picforge mine` (holds ledger.sqlite by default)")
    parser.add_argument("--ledger", metavar="URL",
                        help="SQLAlchemy URL of the ledger (default: sqlite:///RUN_DIR/ledger.sqlite)")


def open_ledger(args):
    """The ledger named by --ledger, or the run directory's SQLite file."""
    return Ledger.for_run(args.run, args.ledger)


def csv_list(text):
    """argparse type for `A,B,C` → ['A', 'B', 'C'] (blank entries dropped)."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected a comma-separated list of names")
    return names
