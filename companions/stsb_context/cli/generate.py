"""`picforge stsb-context generate --stsb FILE --out RUN_DIR`: generate and verify a context per STS-B pair."""
from companions.stsb_context.settings import GENERATIONS
from picforge.llm import GenerationSettings
from picforge.options import existing_path, finite_float, non_negative_int, positive_float, positive_int
from picforge.paths import add_output
from picforge import verbs


def add_options(parser):
    """The options of `picforge stsb-context generate`."""
    parser.add_argument("--stsb", required=True, metavar="FILE",
                        help="STS Benchmark test file (tab-separated, 7 columns)",
                        type=existing_path("the STS Benchmark test file with --stsb (where to get it: "
                                           "docs/stsb_context.md, Input)"))
    add_output(parser, "--out", kind="run", required=True, metavar="RUN_DIR",
               help="run directory (local path, gs:// or s3://)")
    parser.add_argument("--model", default=GenerationSettings.model, help="chat model (default %(default)s)")
    parser.add_argument("--base-url", metavar="URL",
                        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 for vLLM, llama.cpp or "
                             "Ollama (default $OPENAI_BASE_URL, else the OpenAI API)")
    parser.add_argument("--live", action="store_true",
                        help="allow requests to a non-loopback endpoint, which may bill (needed for the OpenAI API)")
    parser.add_argument("--max-requests", type=non_negative_int, default=1500, metavar="N",
                        help="at most N requests this run (default %(default)s)")
    parser.add_argument("--max-tokens", type=non_negative_int, default=500_000, metavar="N",
                        help="at most N prompt+completion tokens this run (default %(default)s)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the start letters and of the API (default 0)")
    parser.add_argument("--temperature", type=finite_float, default=GenerationSettings.temperature,
                        help="sampling temperature of the chat model (default %(default)s)")
    parser.add_argument("--completion-tokens", type=positive_int, default=GenerationSettings.max_tokens, metavar="N",
                        help="max_tokens of each completion (default %(default)s)")
    parser.add_argument("--concurrency", type=positive_int, default=4, metavar="N",
                        help="requests in flight at once (default %(default)s)")
    parser.add_argument("--max-retries", type=non_negative_int, default=4, metavar="N",
                        help="retries with exponential backoff on 408/409/429/5xx and connection errors (default 4)")
    parser.add_argument("--timeout", type=positive_float, default=60.0, metavar="SECONDS",
                        help="deadline of each request, from connecting to its last byte (default %(default)s)")
    add_output(parser, "--cache", kind="folder", owns=("cache",), metavar="DIR", help="local response cache (default RUN_DIR/cache)")
    parser.add_argument("--offline", action="store_true", help="replay the cache only; report what is missing")
    parser.add_argument("--exact-match", action="store_true",
                        help="require the target sentence exactly (default also allows a lower-case first letter "
                             "and no final full stop)")
    parser.add_argument("--force", action="store_true", help="redo the stage even if it is up to date")


def run(args):
    from companions.stsb_context import generate
    manifest = generate.generate_into(
        args.out, args.stsb, model=args.model, base_url=args.base_url, live=args.live,
        temperature=args.temperature, completion_tokens=args.completion_tokens, seed=args.seed,
        cache_dir=args.cache, offline=args.offline, exact=args.exact_match, max_requests=args.max_requests,
        max_tokens=args.max_tokens, concurrency=args.concurrency, max_retries=args.max_retries,
        timeout=args.timeout, force=args.force)
    print(summary(manifest))
    return 0 if manifest["complete"] else 1


def summary(manifest):
    """One line per fact of a generation run."""
    stage = GENERATIONS
    counts = {k.split("/", 1)[1]: v for k, v in manifest["counters"].items()}
    rate = manifest["verbatim_drop_rate"]
    lines = [
        f"{stage}: {manifest['records']} pairs" + (" (up to date, skipped)" if manifest.get("skipped") else ""),
        f"  kept {counts.get('kept', 0)}, phrase not verbatim {counts.get('no-verbatim', 0)}"
        + ("" if rate is None else f" (drop rate {100 * rate:.1f}%)"),
        f"  requests sent {counts.get('requests_sent', 0)} (retries {counts.get('retries', 0)}), "
        f"cache hits {counts.get('cache_hits', 0)}, tokens budgeted {counts.get('tokens_budgeted', 0)} "
        f"(server reported {counts.get('tokens_reported', 0)})",
    ]
    unresolved = {k: counts.get(k, 0) for k in ("malformed", "error", "not-cached", "over-budget")}
    if any(unresolved.values()):
        lines.append("  unanswered: " + ", ".join(f"{k} {v}" for k, v in unresolved.items() if v)
                     + "; re-run (with a larger budget, or online) to complete them")
    return "\n".join(lines)


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("stsb-context export validation", (("--run", args.out),))


VERB = verbs.register(verbs.Verb(
    "stsb-context", "generate", None, run, add_options,
    help="generate a context around each STS-B target phrase and verify it (an OpenAI-compatible chat model)",
    next_step=next_step))
