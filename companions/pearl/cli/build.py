"""`picforge pearl build --run MINING_RUN --out PEARL_RUN`: the `pearl-phrases` stage (Beam)."""
from companions.pearl.options import PearlOptions
from picforge.options import EMBEDDED_RUNNER, DASK_RUNNER, add_run_option, options_from_args
from picforge.stages import add_flags
from picforge import verbs


def add_options(parser):
    """The options of `picforge pearl build`."""
    add_run_option(parser, "a completed `sentences` stage (a mining run)")
    parser.add_argument("--runner", help=f"Beam runner (default {EMBEDDED_RUNNER}, Beam's embedded runner in this "
                                         f"process; {DASK_RUNNER}, DataflowRunner…)")
    parser.add_argument("--force", action="store_true", help="redo the stages even if they are up to date")
    add_flags(parser.add_argument_group("corpus options (those that can change the corpus are recorded in the "
                                        "stage manifest)"), PearlOptions)


def run(args):
    from companions.pearl.build import build_corpus
    from picforge.paths import refuse_overlap
    refuse_overlap(args.out, {"run": args.run})
    options = options_from_args(PearlOptions, args)
    manifest = build_corpus(args.run, args.out, options, args.beam_args, args.runner, args.force)
    print(f"pearl-phrases: {manifest['records']} phrases" + (" (up to date, skipped)" if manifest.get("skipped") else ""))
    for name, value in manifest["counters"].items():
        print(f"  {name.split('/', 1)[1]}: {value}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("pearl release", (("--run", args.out), ("--out", "RELEASE")),
                         note=f"`picforge pearl paraphrase --run {args.out}` first adds LLM paraphrases")


VERB = verbs.register(verbs.Verb(
    "pearl", "build", None, run, add_options,
    help="typed phrases (count >= 2), augmentations and hard negatives from a run's sentences",
    description="Read the `sentences` stage of a mining run and write stage `pearl-phrases` (Beam; runner flags "
                "pass through).",
    writes=verbs.Writes("run", "PEARL run directory to write (local, gs:// or s3://)"),
    next_step=next_step,
    defaults=dict(beam_args=[])))
