"""`picforge mcphrasy export clusters`: one cluster sheet per group per annotator, and the guidelines."""
from companions.mcphrasy.annotate import DEFAULT_SHARED, export_clusters
from picforge.ledger import add_ledger_option, ledger_url
from picforge.options import add_run_option, non_negative_int
from picforge.rundir import RunDir
from picforge import verbs


def add_options(parser):
    """The options of `picforge mcphrasy export clusters`."""
    add_run_option(parser, "mcphrasy-groups")
    add_ledger_option(parser)
    parser.add_argument("--annotators", nargs="+", required=True, help="annotator names")
    parser.add_argument("--shared", type=non_negative_int, default=DEFAULT_SHARED,
                        help=f"first N groups go to every annotator, for agreement (default {DEFAULT_SHARED})")


def run(args):
    written = export_clusters(RunDir(args.run), args.annotators, args.out, args.shared, ledger_url(args))
    for annotator, sheets in written.items():
        print(f"{annotator}: {len(sheets)} sheets in {args.out}/{annotator}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("mcphrasy ingest clusters", (("--run", args.run), ("--sheets", "SHEET…")),
                         note="the annotators' filled sheets")


VERB = verbs.register(verbs.Verb(
    "mcphrasy", "export", "clusters", run, add_options,
    help="write cluster sheets (CSV + XLSX) for annotators",
    writes=verbs.Writes("folder", "folder for the sheets, one sub-folder per annotator", default="sheets"),
    next_step=next_step))
