"""`picforge wordcount release --run RUN --out DIR`: the release of a run's word counts, through the step the
companion's declaration names."""
from picforge.release_writer import add_release_options, release_summary
from picforge import verbs


def add_options(parser):
    """The options of `picforge wordcount release`."""
    add_release_options(parser, reads="wordcount-words", default_license="`other`: the text keeps its terms")


def run(args):
    from tests.plugin_companion import COMPANION

    manifest = COMPANION.release_step()(args.run, args.out, license_id=args.license, force=args.force)
    print(release_summary(args.out, manifest, "words"))
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("release publish", (("--release", args.out), ("--to", "TARGET")))


VERB = verbs.register(verbs.Verb(
    "wordcount", "release", None, run, add_options,
    help="write the word counts as a Hugging Face dataset with its card",
    description="Read wordcount-words and write data/test.jsonl, README.md, stats.json, "
                "croissant.json and MANIFEST.json.",
    next_step=next_step))
