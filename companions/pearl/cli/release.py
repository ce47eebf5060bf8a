"""`picforge pearl release --run PEARL_RUN --out DIR`: the Hugging Face dataset of a PEARL run."""
from companions.pearl.options import DEFAULT_RATIOS
from picforge.options import non_negative_int
from picforge.release_writer import add_release_options, release_summary


def _ratios(text):
    return tuple(float(x) for x in text.split(","))


def register(subparsers):
    parser = subparsers.add_parser(
        "release", help="write the PEARL corpus as JSON Lines splits (by phrase) with a dataset card",
        description="Read `pearl-phrases` (and `pearl-paraphrases` when present) and write data/<split>.jsonl, "
                    "README.md (card with distributions from the written files), plots and MANIFEST.json.")
    add_release_options(parser, reads="pearl-phrases", default_license="cc-by-sa-4.0: what the Wikipedia text allows")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the split assignment (default 0)")
    parser.add_argument("--ratios", type=_ratios, default=DEFAULT_RATIOS, metavar="TRAIN,VALIDATION,TEST",
                        help="split shares (default 0.8,0.1,0.1)")
    parser.set_defaults(func=run)


def run(args):
    from companions.pearl.release import release_corpus
    manifest = release_corpus(args.run, args.out, seed=args.seed, ratios=args.ratios,
                              license_id=args.license, force=args.force)
    print(release_summary(args.out, manifest, "phrases"))
    return 0
