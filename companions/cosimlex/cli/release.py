"""`picforge cosimlex release --run RUN_DIR --out RELEASE_DIR`: the Hugging Face dataset of the CoSimLex rows."""
from picforge.release_writer import add_release_options, release_summary
from picforge import verbs


def add_options(parser):
    """The options of `picforge cosimlex release`."""
    add_release_options(parser, reads="cosimlex-final", default_license="`other`: the SimLex-999 pairs keep their "
                                                                        "authors' terms, the Wikipedia contexts CC BY-SA")


def run(args):
    from companions.cosimlex.release import write_release
    manifest = write_release(args.run, args.out, license_id=args.license,
                             license_override=args.license_override, force=args.force)
    print(release_summary(args.out, manifest, "pairs"))
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("release publish", (("--release", args.out), ("--to", "TARGET")))


VERB = verbs.register(verbs.Verb(
    "cosimlex", "release", None, run, add_options,
    help="write the CoSimLex rows as a Hugging Face dataset with its card",
    description="Read cosimlex-final and write data/test.jsonl and .parquet, README.md "
                "(card with statistics and licence), stats.json, a plot and MANIFEST.json.",
    next_step=next_step))
