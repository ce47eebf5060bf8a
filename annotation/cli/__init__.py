"""`picforge annotate …`: one module per verb, each declaring its Verb (grouped as `annotate export|ingest|mturk
TARGET` or not; MTurk's are in annotation.mturk.cli, beside their library); what they share is in
annotation.cli.common."""
from annotation.cli.common import open_ledger
from picforge.verbs import Area

# Verbs grouped under `annotate <group> <target>`; the others sit at `annotate <verb>`.
GROUPS = {
    "export": "write sheets/files for annotators, or the final annotations",
    "ingest": "read annotators' returned sheets into the ledger",
    "mturk": "MTurk HITs: round-1 verification or prepared question files (sandbox unless --live)",
}


def load():
    """Import the verb modules, each registering its verb, and MTurk's (annotation.mturk.cli, `annotate mturk`)."""
    from annotation.cli import (cancel_batch, export_expert, export_final, export_ps_verify,  # noqa: F401
                                export_verify2, ingest_expert, ingest_ps_verify, ingest_verify2, reassign, report,
                                trace)
    from annotation.mturk import cli as mturk_cli
    mturk_cli.load()


def print_next_steps(args):
    """After a PiC annotation verb: what the ledger still waits for (ledgers with no expert batch, e.g. a
    companion's, get no hint)."""
    from annotation import expert
    from annotation.next_step import hint
    if args.verb == "trace" or args.verb == "report" and not args.out or getattr(args, "target", None) == \
            "create-questions":
        return
    ledger = open_ledger(args)
    with ledger.read() as q:
        if not q.batches(kind=expert.KIND):
            return
    print(hint(ledger, args.run, args.ledger))


AREA = Area("annotate", "expert sheets, MTurk and expert verification, PS verification and the final export, "
                        "recorded in one ledger", "annotation", load, groups=GROUPS, epilogue=print_next_steps,
            description="Expert sheets, MTurk and expert verification, PS verification and the final export, "
                        "recorded in one ledger.")
