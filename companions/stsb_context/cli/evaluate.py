"""`picforge stsb-context evaluate --run RUN_DIR`: Pearson/Spearman of gold scores with best-span similarity."""
from companions.stsb_context.settings import SETUPS, SOURCES
from picforge.options import add_device_option, add_run_option, positive_int


def register(verbs):
    parser = verbs.add_parser("evaluate", help="correlate gold scores with a model's best-span similarity",
                              description="Score each row for each setup of the SLICE paper (Section 5) and report "
                                          "Pearson and Spearman correlations with the gold STS-B scores.")
    add_run_option(parser, "the validated dataset (or generations)")
    parser.add_argument("--setup", action="append", choices=SETUPS,
                        help="setup to run (repeatable; default all four)")
    parser.add_argument("--model", help="sentence-transformers model directory (default: bundled all-MiniLM-L6-v2)")
    parser.add_argument("--min-span", type=positive_int, default=1, metavar="MIN", help="fewest words in an n-gram (default 1)")
    parser.add_argument("--max-span", type=positive_int, default=20, metavar="MAX", help="most words in an n-gram (default 20)")
    parser.add_argument("--from", dest="source", choices=SOURCES, default=SOURCES[0],
                        help="evaluate the validated dataset (default) or the kept generations")
    parser.add_argument("--batch-size", type=positive_int, default=64,
                        help="texts per encoder batch (default %(default)s)")
    add_device_option(parser, "the model")
    parser.add_argument("--force", action="store_true", help="recompute even if up to date")
    parser.set_defaults(func=run)


def run(args):
    from companions.stsb_context.evaluate import evaluate
    from picforge.rundir import RunDir
    setups = args.setup or list(SETUPS)
    manifests = evaluate(RunDir(args.run), setups, model=args.model, min_size=args.min_span, max_size=args.max_span,
                         source=args.source, batch_size=args.batch_size, device=args.device, force=args.force)
    print(f"{'setup':<14} {'pearson':>8} {'spearman':>8} {'n':>6}")
    for setup in setups:
        metrics = manifests[setup]["metrics"]
        cells = ["n/a" if metrics[k] is None else f"{metrics[k]:.3f}" for k in ("pearson", "spearman")]
        print(f"{setup:<14} {cells[0]:>8} {cells[1]:>8} {metrics['n']:>6}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return f"picforge stsb-context release --run {args.run} --out RELEASE"
