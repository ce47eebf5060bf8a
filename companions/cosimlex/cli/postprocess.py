"""`picforge cosimlex postprocess`: SimLex-style cleaning of the ratings → the CoSimLex rows."""
import dataclasses
import json

from companions.cosimlex.declarations import Final
from picforge.options import add_run_option, options_from_args
from picforge.stages import add_flags
from picforge import stages, verbs


def add_options(parser):
    """The options of `picforge cosimlex postprocess`."""
    add_run_option(parser, "cosimlex-ratings")
    add_flags(parser, Final.Options)


def run(args):
    from companions.cosimlex.postprocess import postprocess
    from companions.cosimlex.stage_names import RATINGS, SELECTION
    from picforge.rundir import RunDir
    run_dir = RunDir(args.run)
    ratings = run_dir.require_records(RATINGS)
    selections = run_dir.require_records(SELECTION)
    rows, report = postprocess(ratings, selections, **dataclasses.asdict(options_from_args(Final.Options, args)))
    stages.write(run_dir, Final, rows, args, inputs=Final.inputs(run_dir, args), report=report)
    print(json.dumps(report, indent=2))
    return 0


VERB = verbs.register(verbs.Verb(
    "cosimlex", "postprocess", None, run, add_options,
    help="clean the ratings and compute the dataset rows",
    description="Engagement check, drop annotators who disagree with the others, "
                "calibrate, then mean/sd per context and the Mann-Whitney U p-value."))
