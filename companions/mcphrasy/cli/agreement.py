"""`picforge mcphrasy agreement`: V-measure, ARI and AMI between annotators of the shared groups."""
from companions.mcphrasy.annotate import agreement_report, ledger_labels
from picforge.ledger import ledger_url
from companions.mcphrasy.cli.common import add_run_and_ledger_options
from picforge.rundir import RunDir
from picforge import verbs


def add_options(parser):
    """The options of `picforge mcphrasy agreement`."""
    add_run_and_ledger_options(parser, "mcphrasy-groups and the ledger")


def run(args):
    report = agreement_report(ledger_labels(RunDir(args.run), ledger_url(args)))
    print(f"{report['groups']} groups clustered by several annotators")
    for pair, scores in [*report["per_pair"].items(), ("average", report["average"])]:
        if scores:
            print(f"{pair}: V {scores['v_measure']:.2f}  ARI {scores['ari']:.2f}  AMI {scores['ami']:.2f}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("mcphrasy reconcile", (("--run", args.run),))


VERB = verbs.register(verbs.Verb(
    "mcphrasy", "agreement", None, run, add_options,
    help="agreement of annotators on the groups they all clustered",
    next_step=next_step))
