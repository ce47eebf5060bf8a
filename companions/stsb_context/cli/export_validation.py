"""`picforge stsb-context export validation --run RUN_DIR`: one validation sheet per annotator."""
from picforge.options import add_run_option
from picforge import verbs


def add_options(parser):
    """The options of `picforge stsb-context export validation`."""
    add_run_option(parser, "generations")
    parser.add_argument("--partial", action="store_true", help="export even though some pairs have no answer yet")
    parser.add_argument("--force", action="store_true", help="overwrite sheets exported from an earlier run")


def run(args):
    from companions.stsb_context import validation
    from picforge.rundir import RunDir
    run_dir = RunDir(args.run)
    manifest = validation.export_validation(run_dir, force=args.force, partial=args.partial)
    state = " (up to date, skipped)" if manifest.get("skipped") else ""
    print(f"{validation.STAGE}: {manifest['records']} items{state} -> "
          + ", ".join(run_dir.join(validation.STAGE, s) for s in manifest["sheets"]))
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("stsb-context ingest validation", (("--run", args.run), ("--sheets", "SHEET SHEET")),
                         note="both validators' filled sheets")


VERB = verbs.register(verbs.Verb(
    "stsb-context", "export", "validation", run, add_options,
    help="write the two annotators' validation sheets",
    writes=verbs.Writes("stage", "the sheets are the stage's files, fingerprinted", default="validation"),
    description="Write RUN_DIR/validation/annotator-{1,2}.{csv,xlsx} and GUIDELINES.md "
                "for the generations kept so far.",
    next_step=next_step))
