"""`picforge pearl release --run PEARL_RUN --out DIR`: the Hugging Face dataset of a PEARL run."""
from picforge.release_writer import add_release_options, release_summary
from picforge import verbs


def add_options(parser):
    """The options of `picforge pearl release`."""
    add_release_options(parser, reads="pearl-phrases", default_license="cc-by-sa-4.0: what the Wikipedia text allows")


def run(args):
    from companions.pearl.release import write_release
    manifest = write_release(args.run, args.out, license_id=args.license,
                             license_override=args.license_override, force=args.force)
    print(release_summary(args.out, manifest, "phrases"))
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("release publish", (("--release", args.out), ("--to", "TARGET")))


VERB = verbs.register(verbs.Verb(
    "pearl", "release", None, run, add_options,
    help="write the PEARL corpus as JSON Lines splits (by phrase) with a dataset card",
    description="Read `pearl-phrases` (and `pearl-paraphrases` when present) and write data/<split>.jsonl (the "
                "splits `pearl build --seed/--ratios` chose), README.md (card with distributions from the "
                "written files), plots and MANIFEST.json.",
    next_step=next_step))
