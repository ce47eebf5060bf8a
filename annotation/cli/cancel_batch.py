"""`picforge annotate cancel-batch --batch B`: take back a batch nobody worked on; its items wait again."""
from annotation.cli.common import add_ledger_options, batch_name, open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate cancel-batch`."""
    add_ledger_options(parser)
    parser.add_argument("--batch", required=True, metavar="NAME", type=batch_name, help="batch id in the ledger")


def run(args):
    from annotation import batches
    from picforge.ledger import CANCELLED
    batch, released = batches.cancel_batch(open_ledger(args), args.batch)
    if batch["status"] == CANCELLED:
        print(f"batch {args.batch}: already cancelled; nothing to do")
        return 0
    print(f"batch {args.batch}: cancelled; {released} item(s) released and waiting for the next export")
    note = batches.cancel_note(batch)
    if note:
        print(note)
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "cancel-batch", None, run, add_options,
    help="cancel a batch with no recorded work and no HIT left on MTurk",
    description="Mark the batch cancelled in the ledger and release its items, so the next export or "
                "`mturk create`/`mturk export` takes them. Refused while the batch has saved assignments, "
                "an ingested sheet or HITs not deleted on MTurk. Running it again changes nothing."))
