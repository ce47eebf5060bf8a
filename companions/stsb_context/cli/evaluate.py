"""`picforge stsb-context evaluate --run RUN_DIR`: Pearson/Spearman of gold scores with best-span similarity, and
Williams' test of each row against the best."""
from companions.stsb_context.declarations import EvaluateOptions
from companions.stsb_context.settings import COMPARISON
from picforge.options import add_run_option, options_from_args
from picforge.stages import add_flags
from picforge import verbs


def add_options(parser):
    """The options of `picforge stsb-context evaluate`: the run and the declared options of its stages."""
    add_run_option(parser, "the validated dataset (or generations)")
    add_flags(parser, EvaluateOptions)
    parser.add_argument("--force", action="store_true", help="recompute even if up to date")


def run(args):
    from companions.stsb_context.evaluate import evaluate
    from picforge.rundir import RunDir
    run_dir = RunDir(args.run)
    manifests = evaluate(run_dir, options_from_args(EvaluateOptions, args), force=args.force)
    print(f"{'stage':<24} {'encoder':<24} {'pearson':>8} {'spearman':>8} {'n':>6} {'p best/setup':>12} {'p best/all':>10}")
    for row in run_dir.iter_records(COMPARISON):
        cells = [_number(row["pearson"], ".3f"), _number(row["spearman"], ".3f"),
                 _number(row["p_vs_best_in_setup"], ".3g", best=row["best_in_setup"] == row["stage"]),
                 _number(row["p_vs_best_in_all"], ".3g", best=row["best_in_all"] == row["stage"])]
        print(f"{row['stage']:<24} {row['encoder'][:24]:<24} {cells[0]:>8} {cells[1]:>8} {row['n']:>6} "
              f"{cells[2]:>12} {cells[3]:>10}")
    print(f"p: {manifests[COMPARISON]['test']}; 'best' marks the row the others are compared with")
    return 0


def _number(value, form, best=False):
    """A table cell: 'best', 'n/a' for an undefined value, else the number."""
    if best:
        return "best"
    return "n/a" if value is None else format(value, form)


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("stsb-context release", (("--run", args.run), ("--out", "RELEASE")))


VERB = verbs.register(verbs.Verb(
    "stsb-context", "evaluate", None, run, add_options,
    help="correlate gold scores with a model's best-span similarity",
    description="Score each row for each setup of the SLICE paper (Section 5) and report "
                "Pearson and Spearman correlations with the gold STS-B scores, and Williams' "
                "t-test of each row against the best of its setup and of all.",
    next_step=next_step))
