"""`picforge annotate export verify2`: round-1 rejections to expert verifiers (one sheet each)."""
import os

from annotation.cli.common import add_ledger_options, annotator_names, open_ledger, print_batches
from picforge.options import positive_int
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate export verify2`."""
    add_ledger_options(parser)
    parser.add_argument("--verifiers", required=True, type=annotator_names, metavar="V1,V2,…",
                        help="expert verifiers; items are dealt to them in turn")
    parser.add_argument("--per-verifier", type=positive_int, metavar="N", help="at most N items each (default: all)")
    parser.add_argument("--pilot", type=positive_int, metavar="N",
                        help="before round 1: send every item of the first N triplets no MTurk batch holds to every "
                             "verifier; they are settled by the experts (kept when one endorses it, as in round 2), "
                             "never asked in round 1, and where every verifier agrees they make the gold bank "
                             "(`picforge annotate mturk gold`)")


def run(args):
    from annotation.verify2 import export_verify2
    out_dir = args.out
    print_batches(export_verify2(open_ledger(args), args.run, out_dir, args.verifiers, args.per_verifier,
                                 args.pilot), "items")
    print(f"guidelines → {os.path.join(out_dir, 'verify2_guidelines.md')} (.html)")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "export", "verify2", run, add_options,
    help="sheets of round-1 rejections for expert verifiers (round 2)",
    writes=verbs.Writes("folder", "folder for the sheets", default="annotation/verify2")))
