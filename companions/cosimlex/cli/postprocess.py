"""`picforge cosimlex postprocess`: SimLex-style cleaning of the ratings → the CoSimLex rows."""
import json

from companions.cosimlex import postprocess as post
from picforge.options import add_run_option, finite_float, positive_float, positive_int
from picforge import verbs


def add_options(parser):
    """The options of `picforge cosimlex postprocess`."""
    add_run_option(parser, "cosimlex-ratings")
    parser.add_argument("--min-correlation", type=finite_float, default=post.DEFAULT_MIN_CORRELATION,
                        help="drop annotators whose Spearman with the others' mean is below this "
                             f"(default {post.DEFAULT_MIN_CORRELATION})")
    parser.add_argument("--max-disengaged", type=finite_float, default=post.DEFAULT_MAX_DISENGAGED,
                        help="drop annotators failing the page-1 check on more than this share of items "
                             f"(default {post.DEFAULT_MAX_DISENGAGED})")
    parser.add_argument("--min-ratings", type=positive_int, default=post.DEFAULT_MIN_RATINGS,
                        help=f"ratings needed per context to keep a pair (default {post.DEFAULT_MIN_RATINGS}, at least 2)")
    parser.add_argument("--scale-max", type=positive_float, default=post.DEFAULT_SCALE_MAX,
                        help=f"rescale 0-6 ratings to 0-SCALE_MAX (default {post.DEFAULT_SCALE_MAX:g}, as SimLex)")


def run(args):
    from companions.cosimlex.stage_names import FINAL, RATINGS, SELECTION
    from picforge.rundir import RunDir, upstream
    run_dir = RunDir(args.run)
    ratings = run_dir.require_records(RATINGS)
    selections = run_dir.require_records(SELECTION)
    options = {"min_correlation": args.min_correlation, "max_disengaged": args.max_disengaged,
               "min_ratings": args.min_ratings, "scale_max": args.scale_max}
    rows, report = post.postprocess(ratings, selections, **options)
    run_dir.write_stage(FINAL, rows, "cosimlex_final", inputs=upstream(run_dir, RATINGS, SELECTION), options=options,
                        report=report)
    print(json.dumps(report, indent=2))
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("cosimlex release", (("--run", args.run), ("--out", "RELEASE")))


VERB = verbs.register(verbs.Verb(
    "cosimlex", "postprocess", None, run, add_options,
    help="clean the ratings and compute the dataset rows",
    description="Engagement check, drop annotators who disagree with the others, "
                "calibrate, then mean/sd per context and the Mann-Whitney U p-value.",
    next_step=next_step))
