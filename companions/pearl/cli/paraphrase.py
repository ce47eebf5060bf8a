"""`picforge pearl paraphrase --run PEARL_RUN`: one LLM paraphrase per phrase (cached, budgeted; --live to spend)."""
import os

from companions.pearl.declarations import ParaphraseOptions
from picforge.errors import InputError
from picforge.options import add_run_option, options_from_args
from picforge.paths import add_output
from picforge.stages import add_flags
from picforge import verbs


def add_options(parser):
    """The options of `picforge pearl paraphrase`."""
    add_run_option(parser, "a completed `pearl-phrases` stage (a PEARL run)")
    parser.add_argument("--live", action="store_true", help="allow requests to a non-loopback endpoint, which may bill")
    add_flags(parser, ParaphraseOptions)
    add_output(parser, "--cache", kind="folder", owns=("cache",), metavar="DIR", help="local response cache (default PEARL_RUN/cache)")
    parser.add_argument("--force", action="store_true", help="redo the stage even if it is up to date")


def run(args):
    from companions.pearl import paraphrase
    from picforge.llm import check_spend, endpoint_settings
    from picforge.rundir import RunDir
    options = options_from_args(ParaphraseOptions, args)
    settings = endpoint_settings(options.base_url, model=options.model, temperature=options.temperature,
                                 max_tokens=options.completion_tokens, seed=options.seed)
    check_spend(settings.url, live=args.live, offline=options.offline, max_requests=options.max_requests,
                max_tokens=options.max_tokens)
    if args.cache is None and "://" in args.run:
        raise InputError(f"{args.run}: the response cache must be local; pass --cache DIR")
    manifest = paraphrase.paraphrase_phrases(RunDir(args.run), settings, options,
                                             cache_dir=args.cache or os.path.join(args.run, "cache"), force=args.force)
    counts = {k.split("/", 1)[1]: v for k, v in manifest["counters"].items()}
    print(f"{paraphrase.STAGE}: {manifest['records']} phrases" + (" (up to date, skipped)" if manifest.get("skipped") else ""))
    print("  " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if not manifest["complete"]:
        print(f"  {manifest['pending']} unanswered; re-run (with a larger budget, or online) to complete them")
    return 0 if manifest["complete"] else 1


VERB = verbs.register(verbs.Verb(
    "pearl", "paraphrase", None, run, add_options,
    help="phrase-level augmentation: one paraphrase per phrase from an OpenAI-compatible model",
    description="Stage `pearl-paraphrases`: ask the model for one paraphrase of each phrase (most frequent "
                "first), through STS-B-Context's client, response cache and budget."))
