"""`picforge annotate export expert`: one sheet (CSV + XLSX) per annotator, plus the guidelines."""
import os

from annotation.cli.common import add_ledger_options, annotator_names, open_ledger, print_batches
from picforge.options import positive_int
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate export expert`."""
    add_ledger_options(parser)
    parser.add_argument("--annotators", required=True, type=annotator_names, metavar="A,B,…",
                        help="annotator names (letters, digits, - _ .); one sheet each")
    parser.add_argument("--per-annotator", required=True, type=positive_int, metavar="N",
                        help="triplets per annotator (the next unassigned ones, in select-stage order)")


def run(args):
    from annotation.expert import export_expert
    out_dir = args.out
    print_batches(export_expert(open_ledger(args), args.run, out_dir, args.annotators, args.per_annotator),
                  "triplets")
    print(f"guidelines → {os.path.join(out_dir, 'expert_guidelines.md')} (.html)")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "export", "expert", run, add_options,
    help="per-annotator sheets of triplets to paraphrase (Q1/Q2/Q3)",
    writes=verbs.Writes("folder", "folder for the sheets", default="annotation/expert")))
