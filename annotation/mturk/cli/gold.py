"""`annotate mturk gold`: a gold bank of settled answers (round-2 verifiers unanimous, a previous run's release)."""
from annotation.cli.common import add_ledger_options, open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate mturk gold`."""
    add_ledger_options(parser)
    parser.add_argument("--from-release", action="append", default=[], metavar="RELEASE",
                        help="a previous run's release folder (from `picforge build`): its PR-pass paraphrases are "
                             "settled yes answers (repeat for several)")


def run(args):
    from annotation.mturk.gold import build_gold_bank
    records = build_gold_bank(open_ledger(args), args.run, args.out, args.from_release)
    yes = sum(r["answer"] for r in records)
    print(f"wrote {args.out}: {len(records)} gold questions ({yes} answered yes, {len(records) - yes} no)")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "gold", run, add_options,
    writes=verbs.Writes("file", "the gold bank to write (JSON Lines)", metavar="GOLD.jsonl"),
    help="write a gold bank from settled answers (round 2, a previous release)",
    description="Write GOLD.jsonl for --gold from answers a later step settled, never from answers a batch "
                "verifies: this run's round-2 items on which every expert verifier agreed (paraphrase fits or not, "
                "same meaning or not), and every paraphrase a previous run's release kept (--from-release). "
                "About a third of the fitting paraphrases become constructed nos (one phrase's paraphrase on "
                "another phrase's passage), each paraphrase shown once. A batch leaves out the bank's questions "
                "of triplets it verifies."))
