"""`picforge stsb-context ingest validation --run RUN_DIR --sheets SHEET SHEET`: the validated dataset and its card."""
from picforge.options import add_run_option, add_sheets_input
from picforge import verbs


def add_options(parser):
    """The options of `picforge stsb-context ingest validation`."""
    add_run_option(parser, "the generations")
    add_sheets_input(parser, "the two filled sheets (.csv or .xlsx)")
    parser.add_argument("--force", action="store_true", help="redo the stage even if it is up to date")


def run(args):
    from companions.stsb_context import dataset
    from picforge.rundir import RunDir
    run_dir = RunDir(args.run)
    manifest = dataset.ingest_validation(run_dir, args.sheets, force=args.force)
    state = " (up to date, skipped)" if manifest.get("skipped") else ""
    dropped = manifest["counters"].get("validation/dropped", 0)
    print(f"{dataset.STAGE}: {manifest['records']} rows{state}, {dropped} dropped by the annotators -> "
          f"{run_dir.join(dataset.STAGE, dataset.JSONL)}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("stsb-context evaluate", (("--run", args.run),), then=verbs.Command("stsb-context release",
                         (("--run", args.run), ("--out", "RELEASE"))))


VERB = verbs.register(verbs.Verb(
    "stsb-context", "ingest", "validation", run, add_options,
    help="read both filled sheets and write the final dataset",
    description="Drop items either annotator marked Y (the context changes the gold "
                "similarity); write RUN_DIR/dataset (Parquet, JSON Lines); `release` makes it a dataset folder.",
    next_step=next_step))
