"""`picforge mcphrasy export-clusters`: one cluster sheet per group per annotator, and the guidelines."""
import argparse
import os
import sys

from companions.mcphrasy.annotate import DEFAULT_SHARED, export_clusters
from annotation.cli import add_ledger_option, ledger_url
from companions.mcphrasy.workflow import GROUPS
from picforge.errors import InputError
from picforge.options import RenamedOption, add_run_option, deprecated, non_negative_int
from picforge.rundir import RunDir
from picforge.paths import STAGE_MANIFEST, add_output


class SheetsFolder(argparse.Action):
    """--out DIR, the folder the sheets go to; a McPhraSy run named before any --run is the former spelling of
    --run (it still works until DEPRECATED_UNTIL, with a warning)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if namespace.run is None and os.path.isfile(os.path.join(values, GROUPS, STAGE_MANIFEST)):
            print(f"{deprecated(f'{option_string} RUN_DIR here', '--run', 'the sheets folder is --out now')}; "
                  f"reading {values} as --run", file=sys.stderr)
            namespace.run = values
        else:
            namespace.out = values


def register(verbs):
    parser = verbs.add_parser("export-clusters", help="write cluster sheets (CSV + XLSX) for annotators")
    add_run_option(parser, "mcphrasy-groups (required)", required=False, former=None)
    add_ledger_option(parser)
    parser.add_argument("--annotators", nargs="+", required=True, help="annotator names")
    add_output(parser, "--out", kind="folder", owns=("sheets",), action=SheetsFolder, metavar="DIR",
               help="folder for the sheets, one sub-folder per annotator (required)")
    parser.add_argument("--sheets", dest="out", action=RenamedOption, current="--out",
                        reason="--out names the sheets a verb writes, --sheets those it reads", help=argparse.SUPPRESS)
    parser.add_argument("--shared", type=non_negative_int, default=DEFAULT_SHARED,
                        help=f"first N groups go to every annotator, for agreement (default {DEFAULT_SHARED})")
    parser.set_defaults(func=run)


def run(args):
    if args.run is None or args.out is None:
        raise InputError("give --run RUN_DIR (the McPhraSy run holding mcphrasy-groups) and --out DIR (the folder "
                         "for the sheets)")
    written = export_clusters(RunDir(args.run), args.annotators, args.out, args.shared, ledger_url(args))
    for annotator, sheets in written.items():
        print(f"{annotator}: {len(sheets)} sheets in {args.out}/{annotator}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return f"picforge mcphrasy ingest-clusters --run {args.run} --sheets SHEET…   (the annotators' filled sheets)"
