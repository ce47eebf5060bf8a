"""`picforge pearl paraphrase --run PEARL_RUN`: one LLM paraphrase per phrase (cached, budgeted; --live to spend)."""
import os

from picforge.llm import GenerationSettings
from picforge.errors import InputError
from picforge.options import add_run_option, finite_float, non_negative_int, positive_float, positive_int
from picforge.paths import add_output
from picforge import verbs


def add_options(parser):
    """The options of `picforge pearl paraphrase`."""
    add_run_option(parser, "a completed `pearl-phrases` stage (a PEARL run)")
    parser.add_argument("--model", default=GenerationSettings.model, help="chat model (default %(default)s)")
    parser.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL, "
                                                         "else the OpenAI API)")
    parser.add_argument("--live", action="store_true", help="allow requests to a non-loopback endpoint, which may bill")
    parser.add_argument("--offline", action="store_true", help="replay the cache only; report what is missing")
    parser.add_argument("--max-requests", type=non_negative_int, default=1000, metavar="N", help="at most N requests (default 1000)")
    parser.add_argument("--max-tokens", type=non_negative_int, default=200_000, metavar="N",
                        help="at most N prompt+completion tokens (default 200000)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed sent to the API (default 0)")
    parser.add_argument("--temperature", type=finite_float, default=0.7,
                        help="sampling temperature of the paraphrase model (default %(default)s)")
    parser.add_argument("--completion-tokens", type=positive_int, default=32, metavar="N", help="max_tokens of each answer")
    parser.add_argument("--concurrency", type=positive_int, default=4, metavar="N", help="requests in flight at once")
    parser.add_argument("--max-retries", type=non_negative_int, default=4, metavar="N",
                        help="retries with exponential backoff on 408/409/429/5xx and connection errors (default 4)")
    parser.add_argument("--timeout", type=positive_float, default=60.0, metavar="SECONDS",
                        help="deadline of each request, from connecting to its last byte (default %(default)s)")
    add_output(parser, "--cache", kind="folder", owns=("cache",), metavar="DIR", help="local response cache (default PEARL_RUN/cache)")
    parser.add_argument("--force", action="store_true", help="redo the stage even if it is up to date")


def run(args):
    from companions.pearl import paraphrase
    from picforge.llm import check_spend, endpoint_settings
    from picforge.rundir import RunDir
    settings = endpoint_settings(args.base_url, model=args.model, temperature=args.temperature,
                                 max_tokens=args.completion_tokens, seed=args.seed)
    check_spend(settings.url, live=args.live, offline=args.offline, max_requests=args.max_requests,
                max_tokens=args.max_tokens)
    if args.cache is None and "://" in args.run:
        raise InputError(f"{args.run}: the response cache must be local; pass --cache DIR")
    manifest = paraphrase.paraphrase_phrases(
        RunDir(args.run), settings, cache_dir=args.cache or os.path.join(args.run, "cache"), offline=args.offline,
        max_requests=args.max_requests, max_tokens=args.max_tokens, concurrency=args.concurrency,
        max_retries=args.max_retries, timeout=args.timeout, force=args.force)
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
