"""`annotate mturk gold`: a gold bank built from the run's own expert-answered items, shaped like its real questions."""
from annotation.cli import add_ledger_options, open_ledger
from picforge.paths import add_output

GROUP = "mturk"


def register(subparsers):
    parser = subparsers.add_parser(
        "gold", help="write a gold bank from the run's expert-answered items",
        description="Write GOLD.jsonl for --gold: per accepted expert annotation (none that a verification round "
                    "rejected), its q1 paraphrase (answer yes), its same-meaning question (the expert's answer) and a "
                    "constructed no (its second passage with the paraphrase written for another phrase). The "
                    "questions show the run's own passages, so no length or shape tells them from real ones.")
    add_ledger_options(parser)
    add_output(parser, "--out", kind="file", required=True, metavar="GOLD.jsonl",
               help="the gold bank to write (JSON Lines)")
    parser.set_defaults(func=run)


def run(args):
    from annotation.gold import build_gold_bank
    records = build_gold_bank(open_ledger(args), args.run, args.out)
    yes = sum(r["answer"] for r in records)
    print(f"wrote {args.out}: {len(records)} gold questions ({yes} answered yes, {len(records) - yes} no)")
    return 0
