"""`picforge annotate export ps-verify`: PS pairs for A1 and A2, or the tie-break sheet for A3."""

from annotation.cli.common import add_ledger_options, name_list, open_ledger, print_batches
from picforge.options import non_negative_int
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate export ps-verify`."""
    add_ledger_options(parser)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--experts", type=name_list(2), metavar="A1,A2",
                     help="the two first-pass verifiers; both get every pair not yet verified")
    who.add_argument("--tiebreak", type=name_list(1), metavar="A3",
                     help="the third verifier: gets the pairs A1 and A2 disagree on or corrected")
    parser.add_argument("--balance", action="store_true",
                        help="sample as many positive pairs as there are negatives (seeded)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the --balance sample (default 0)")


def run(args):
    from annotation.ps_verify import export_first_pass, export_tiebreak
    out_dir = args.out
    ledger = open_ledger(args)
    left_out = 0
    if args.tiebreak:
        written = export_tiebreak(ledger, args.run, out_dir, args.tiebreak[0])
    else:
        written, left_out = export_first_pass(ledger, args.run, out_dir, args.experts, args.balance, args.seed)
    print_batches(written, "pairs")
    if left_out:
        print(f"--balance left {left_out} positive pair(s) out (as many positives as negatives, seed {args.seed}): "
              "they stay unverified and never reach the PS release; export again without --balance to verify them")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "export", "ps-verify", run, add_options,
    help="PS verification sheets (A1 and A2, or --tiebreak for A3)",
    writes=verbs.Writes("folder", "folder for the sheets", default="annotation/ps-verify")))
