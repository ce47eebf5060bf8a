"""`picforge mcphrasy reconcile`: the final clusters of every annotated group (majority where several)."""
from companions.mcphrasy.annotate import write_clusters
from companions.mcphrasy.declarations import CLUSTERS
from picforge.ledger import ledger_url
from companions.mcphrasy.cli.common import add_run_and_ledger_options
from picforge.rundir import RunDir
from picforge import verbs


def add_options(parser):
    """The options of `picforge mcphrasy reconcile`."""
    add_run_and_ledger_options(parser, "mcphrasy-groups and the ledger")


def run(args):
    run_dir = RunDir(args.run)
    manifest = write_clusters(run_dir, ledger_url(args))
    counts = manifest["report"]["counts"]
    print(f"{manifest['records']} clustered groups in {run_dir.stage_dir(CLUSTERS)} ({counts['reconciled']} reconciled, "
          f"{counts['single-annotator']} by one annotator, {counts['unannotated']} not annotated yet)")
    time = manifest["report"]["time"]
    if time["timed_sheets"]:
        print(f"annotation time: {time['mean_minutes_per_group']} minutes per group over {time['timed_sheets']} of "
              f"{time['sheets']} sheets (the paper: about {time['paper_minutes_per_group']})")
    else:
        print(f"annotation time: none of the {time['sheets']} sheets gives minutes")
    return 0


VERB = verbs.register(verbs.Verb(
    "mcphrasy", "reconcile", None, run, add_options,
    help="write the agreed clustering of every annotated group"))
