"""What the `annotate` verbs share: the run, ledger and sheet options, name checks and ledger access."""
import argparse
import functools
import re
import sys

from picforge.errors import InputError
from picforge.ledger import add_ledger_option, ledger_url
from picforge.options import add_run_option, add_sheets_input, http_url
from picforge.paths import plain_name

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
# Longest annotator or batch name: batch ids built from it must fit the ledger's batch_id column.
MAX_NAME_CHARS = 100
def add_ledger_options(parser):
    """--run RUN_DIR (required) and --ledger URL, shared by every annotate verb."""
    add_run_option(parser, "the mined triplets of `picforge mine` (and ledger.sqlite by default)")
    add_ledger_option(parser)


def add_sheets_argument(parser):
    """--sheets SHEET…, the returned sheets a verb ingests."""
    add_sheets_input(parser, "returned sheets (.csv or .xlsx)")


def open_ledger(args):
    """The ledger named by --ledger or $PICFORGE_LEDGER, or else the run directory's SQLite file, with the triplets
    a re-mine changed since their export marked stale (and listed on stderr); a verb that only reads
    (`set_defaults(read_only=True)`) is refused a ledger that is not there, and creates none."""
    from picforge.ledger import Ledger
    from annotation.triplets import mark_stale
    ledger = Ledger.for_run(args.run, ledger_url(args), create=not getattr(args, "read_only", False))
    stale = mark_stale(ledger, args.run)
    if stale:
        listed = "; ".join(f"{tid} ({why})" for tid, why in list(stale.items())[:10])
        print(f"picforge: {len(stale)} annotated triplet(s) marked stale, left out of every later round and of the "
              f"release (the rest keep their verification): {listed}{'; …' if len(stale) > 10 else ''}",
              file=sys.stderr)
    return ledger


def add_grammar_options(parser):
    """--languagetool URL, --no-grammar and --strict-grammar for verbs that check paraphrases."""
    parser.add_argument("--languagetool", metavar="URL", type=http_url["--languagetool"],
                        help="LanguageTool server (default $LANGUAGETOOL_URL), e.g. http://localhost:8010")
    parser.add_argument("--no-grammar", action="store_true", help="skip the LanguageTool check")
    parser.add_argument("--strict-grammar", action="store_true",
                        help="LanguageTool issues block a row (default: reported in the fix-list only)")


def csv_list(text):
    """argparse type for `A,B,C` → ['A', 'B', 'C'] (blank entries dropped)."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected a comma-separated list of names")
    return names


def annotator_names(text, count=None):
    """argparse type for `A,B,C`: distinct names usable in file names and batch ids (exactly `count`)."""
    names = csv_list(text)
    bad = [n for n in names if not NAME.fullmatch(n) or len(n) > MAX_NAME_CHARS]
    if bad or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"expected distinct comma-separated names of letters, digits, '-', '_' "
                                         f"or '.' (at most {MAX_NAME_CHARS} each), got {text!r}")
    if count is not None and len(names) != count:
        raise argparse.ArgumentTypeError(f"expected exactly {count} name(s), got {text!r}")
    return names


def batch_name(text):
    """argparse type for --batch: the batch's id in the ledger (at most MAX_NAME_CHARS characters)."""
    if not text.strip() or len(text) > MAX_NAME_CHARS:
        raise argparse.ArgumentTypeError(f"expected a batch name of 1 to {MAX_NAME_CHARS} characters, "
                                         f"got {len(text)}")
    try:
        return plain_name(text, "batch name")
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def name_list(count):
    """argparse type: exactly `count` annotator names."""
    return functools.partial(annotator_names, count=count)


def print_batches(written, unit):
    """One line per exported batch: person, batch id, size, files."""
    for name, batch_id, count, csv_path, xlsx_path in written:
        print(f"{name}: batch {batch_id}, {count} {unit} → {csv_path}, {xlsx_path}")
