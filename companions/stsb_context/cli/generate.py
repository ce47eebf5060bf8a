"""`picforge stsb-context generate --stsb FILE --out RUN_DIR`: generate and verify a context per STS-B pair."""
from companions.stsb_context.declarations import GenerationsOptions
from companions.stsb_context.settings import GENERATIONS
from picforge.options import existing_path, options_from_args
from picforge.paths import add_output
from picforge.stages import add_flags
from picforge import verbs


def add_options(parser):
    """The options of `picforge stsb-context generate`: the STS-B file, the run, the spending switch, the cache, and
    the generations stage's declared options."""
    parser.add_argument("--stsb", required=True, metavar="FILE",
                        help="STS Benchmark test file (tab-separated, 7 columns)",
                        type=existing_path("the STS Benchmark test file with --stsb (where to get it: "
                                           "docs/stsb_context.md, Input)"))
    parser.add_argument("--live", action="store_true",
                        help="allow requests to a non-loopback endpoint, which may bill (needed for the OpenAI API)")
    add_output(parser, "--cache", kind="folder", owns=("cache",), metavar="DIR", help="local response cache (default RUN_DIR/cache)")
    add_flags(parser, GenerationsOptions)
    parser.add_argument("--force", action="store_true", help="redo the stage even if it is up to date")


def run(args):
    from companions.stsb_context import generate
    manifest = generate.generate_into(args.out, args.stsb, options_from_args(GenerationsOptions, args), live=args.live,
                                      cache_dir=args.cache, force=args.force)
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


VERB = verbs.register(verbs.Verb(
    "stsb-context", "generate", None, run, add_options,
    help="generate a context around each STS-B target phrase and verify it (an OpenAI-compatible chat model)",
    writes=verbs.Writes("run", "run directory (local path, gs:// or s3://)")))
