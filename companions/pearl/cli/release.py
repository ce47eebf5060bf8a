"""`picforge pearl release --run PEARL_RUN --out DIR`: the Hugging Face dataset of a PEARL run."""
from companions.pearl.options import DEFAULT_RATIOS
from release.configs import SPLITS
from picforge.options import non_negative_int


def _ratios(text):
    return tuple(float(x) for x in text.split(","))


def register(subparsers):
    parser = subparsers.add_parser(
        "release", help="write the PEARL corpus as JSON Lines splits (by phrase) with a dataset card",
        description="Read `pearl-phrases` (and `pearl-paraphrases` when present) and write data/<split>.jsonl, "
                    "README.md (card with distributions from the written files), plots and MANIFEST.json.")
    parser.add_argument("--run", required=True, help="PEARL run directory")
    parser.add_argument("--out", required=True, help="release directory to write (local path)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the split assignment (default 0)")
    parser.add_argument("--ratios", type=_ratios, default=DEFAULT_RATIOS, metavar="TRAIN,VALIDATION,TEST",
                        help="split shares (default 0.8,0.1,0.1)")
    parser.add_argument("--license", help="licence id for the card (default cc-by-sa-4.0: what the Wikipedia text "
                                          "allows)")
    parser.add_argument("--force", action="store_true", help="replace --out even if it holds something else")
    parser.set_defaults(func=run)


def run(args):
    from companions.pearl.release import release_corpus
    manifest = release_corpus(args.run, args.out, seed=args.seed, ratios=args.ratios,
                              license_id=args.license, force=args.force)
    state = " (up to date, skipped)" if manifest.get("skipped") else ""
    print(f"{args.out}: " + ", ".join(f"{split} {manifest['counts'][split]}" for split in SPLITS) + state)
    return 0
