"""`picforge stsb-context release --run RUN_DIR --out RELEASE_DIR`: the validated dataset as a Hugging Face folder."""
from picforge.release_writer import add_release_options, release_summary
from picforge import verbs


def add_options(parser):
    """The options of `picforge stsb-context release`."""
    add_release_options(parser, reads="stage `dataset`",
                        default_license="`other`: the STS Benchmark pairs keep the terms of their sources")


def run(args):
    from companions.stsb_context.release import write_release
    manifest = write_release(args.run, args.out, license_id=args.license,
                             license_override=args.license_override, force=args.force)
    print(release_summary(args.out, manifest, "rows"))
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("release publish", (("--release", args.out), ("--to", "TARGET")))


VERB = verbs.register(verbs.Verb(
    "stsb-context", "release", None, run, add_options,
    help="write the validated dataset as a Hugging Face dataset with its card",
    description="Read stage `dataset` and write data/test.jsonl and .parquet, README.md "
                "(card with construction, statistics and licence), stats.json and "
                "MANIFEST.json.",
    next_step=next_step))
