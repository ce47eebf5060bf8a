"""`annotate mturk rehearse`: the results file the requester site would export for an exported batch, answers
empty, to fill by hand or by script and ingest (round 1 tried offline, without a requester account)."""

from annotation.mturk.cli import options as mturk_options
from annotation.cli.common import open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate mturk rehearse`."""
    mturk_options.add_batch_options(parser, endpoint=False)


def run(args):
    from annotation.mturk import rehearsal as mturk_rehearsal, round1
    plan = round1.stored_plan(open_ledger(args), args.batch, (round1.MANUAL_BATCH,))
    out = args.out
    rows, cells, written = mturk_rehearsal.write_results(args.run, args.batch, plan, out)
    print(f"batch {args.batch}: {rows} assignment row(s), {cells} Answer.answer_N cell(s) to fill with yes or no "
          f"→ {out}{'' if written else ' (already there, blank)'}")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "rehearse", run, add_options,
    writes=verbs.Writes("file", "results file to write; an existing file with other contents is never overwritten",
                        default="mturk/{batch}/Batch_{batch}_rehearsal_results.csv", metavar="FILE.csv"),
    help="write an exported batch's results file with empty answers, to fill and ingest offline",
    description="For a batch written by `mturk export`, write the Batch_*_batch_results.csv the requester site "
                "would export: every column (HITId, AssignmentId, WorkerId, AssignmentStatus, Input.* echoing "
                "the batch CSV) with one row per assignment and the Answer.answer_N cells empty. Fill each with "
                "yes or no, then `mturk ingest` and `mturk review` it as a real download. Ids start with "
                "REHEARSAL, so the ledger shows which answers were rehearsed."))
