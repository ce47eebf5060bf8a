"""`picforge wordcount release --run RUN --out DIR`: the release of a run's word counts, through the step the
companion's declaration names."""
from picforge.release_writer import add_release_options, release_summary


def register(verbs):
    parser = verbs.add_parser("release", help="write the word counts as a Hugging Face dataset with its card",
                              description="Read wordcount-words and write data/test.jsonl, README.md, stats.json, "
                                          "croissant.json and MANIFEST.json.")
    add_release_options(parser, reads="wordcount-words", default_license="`other`: the text keeps its terms")
    parser.set_defaults(func=run)


def run(args):
    from tests.plugin_companion import COMPANION

    manifest = COMPANION.release_step()(args.run, args.out, license_id=args.license, force=args.force)
    print(release_summary(args.out, manifest, "words"))
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return f"picforge publish --release {args.out} --to TARGET"
