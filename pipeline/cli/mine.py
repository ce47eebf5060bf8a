"""`picforge mine`: Wikipedia dump → ranked annotation triplets (PiC Appendix C, Steps 1–6)."""
import os

from picforge.long_lived import long_lived
from picforge.options import DASK_RUNNER, EMBEDDED_RUNNER, existing_path, options_from_args
from picforge.paths import LEDGER_FILE, add_output
from picforge.stages import add_flags
from picforge import verbs
from pipeline.mine_stages import MineOptions


def format_funnel(funnel):
    width = max(len(row["step"]) for row in funnel)
    return "\n".join(f"{row['step']:<{width}}  {row['count']:>12,}" for row in funnel)


def add_options(parser):
    """The options of `picforge pipeline mine`."""
    parser.add_argument("--input", required=True, help="pages-articles dump: path, glob, gs://, s3:// or https:// URL")
    parser.add_argument("--wic", required=True, type=existing_path("the official WiC_dataset.zip"),
                        help="the official WiC_dataset.zip")
    parser.add_argument("--runner", help=f"Beam runner (default {EMBEDDED_RUNNER}, Beam's embedded runner in this "
                                         f"process; {DASK_RUNNER}, DataflowRunner…)")
    add_flags(parser, MineOptions)  # every stage option, from its declaration (pipeline.mine_stages)
    add_output(parser, "--cache-dir", kind="folder", help="where https:// dumps are downloaded (default ~/.cache/picforge/downloads)")
    parser.add_argument("--force", action="store_true", help="redo every stage even if its outputs are up to date")


def run(args):
    with long_lived():  # Beam, torch and the stages: alive until the process ends
        from pipeline.mine import mine, selection_summary
    options = options_from_args(MineOptions, args)
    funnel = mine(args.input, args.wic, args.out, options, args.beam_args, args.runner, args.force, args.cache_dir)
    print(format_funnel(funnel))
    print(selection_summary(args.out, funnel[-1]["count"], ledger_hint=annotation_hint(args.out)))
    return 0


def annotation_hint(run):
    """The ledger's next step for a run whose annotation has begun, else None; annotation's modules (SQLAlchemy,
    the rounds) load only then, not on every mined run (about 0.3 CPU s)."""
    if not os.path.exists(os.path.join(run, LEDGER_FILE)):
        return None
    from annotation.next_step import ledger_hint
    return ledger_hint(run)


VERB = verbs.register(verbs.Verb(
    "pipeline", "mine", None, run, add_options,
    description=__doc__,
    writes=verbs.Writes("run", "run directory (local, gs:// or s3://)"),
    defaults=dict(beam_args=[])))
