"""`picforge mcphrasy ingest clusters`: validate returned cluster sheets and record them in the ledger."""
from companions.mcphrasy.annotate import ingest_clusters
from picforge.ledger import ledger_url
from companions.mcphrasy.cli.common import add_run_and_ledger_options
from picforge.options import add_sheets_input
from picforge.rundir import RunDir
from picforge import verbs


def add_options(parser):
    """The options of `picforge mcphrasy ingest clusters`."""
    add_run_and_ledger_options(parser, "mcphrasy-groups")
    add_sheets_input(parser, "returned sheets (.csv, .xlsx) or folders of them")


def run(args):
    done = ingest_clusters(RunDir(args.run), args.sheets, ledger_url(args))
    print(f"{done['sheets']} sheets valid; {done['changed']} ledger rows added or changed")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("mcphrasy agreement", (("--run", args.run),))


VERB = verbs.register(verbs.Verb(
    "mcphrasy", "ingest", "clusters", run, add_options,
    help="validate returned cluster sheets into the ledger",
    next_step=next_step))
