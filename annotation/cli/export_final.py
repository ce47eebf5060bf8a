"""`picforge annotate export final`: the kept triplets as stage final_annotations of the run directory."""
from annotation.cli.common import add_ledger_options, open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate export final`."""
    add_ledger_options(parser)
    parser.add_argument("--force", action="store_true", help="rewrite the stage even when it is up to date")


def run(args):
    from annotation.final import STAGE
    from annotation.final_stage import export_final
    manifest = export_final(open_ledger(args), args.run, args.force)
    state = "up to date" if manifest.get("skipped") else "written"
    counts = ", ".join(f"{k.split('/', 1)[1]} {v}" for k, v in manifest["counters"].items())
    print(f"{STAGE}: {manifest['records']} records {state} ({counts})")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "export", "final", run, add_options,
    help="write the kept annotations as the run's final-annotations stage "
          "(for picforge build)",
    writes=verbs.Writes("stage", "the stage `picforge build` reads", default="final_annotations")))
