"""`annotate mturk review`: approve/reject assignments (round 1: by their gold checks, then round-1
decisions; question-file batches: by --approve-all and a --reject list)."""
import getpass

from annotation.mturk.cli import options as mturk_options
from annotation.cli.common import open_ledger
from picforge import verbs
from picforge.errors import InputError


def add_options(parser):
    """The options of `picforge annotate mturk review`."""
    mturk_options.add_batch_options(parser)
    parser.add_argument("--approve-all", action="store_true",
                        help="pay every worker (round 1: answers failing the checks still do not count; "
                             "question files: all but those in --reject)")
    parser.add_argument("--reject", metavar="FILE.csv",
                        help="question-file batches: assignments to reject, columns assignment_id,feedback")
    parser.add_argument("--final", action="store_true",
                        help="decide items even when their HIT has fewer assignments than planned (after expire)")
    parser.add_argument("--redecide", action="store_true",
                        help="round 1: decide again the items whose decision assignments that arrived later would "
                             "change (recorded in the ledger with who and when); without it a decision stands")
    parser.add_argument("--block", action="store_true",
                        help="round 1: also block each worker whose gold record failed (an all-yes, all-no or random "
                             "worker) from your HITs: by the API, or for requester-UI batches the AWS CLI commands "
                             "to run are printed; recorded in the ledger and shown by `annotate report`")


@mturk_options.reports_mturk_errors
def run(args):
    from annotation.mturk import (client as mturk_client, manual as mturk_manual, questions as mturk_questions,
                                  review as mturk_review, round1)
    ledger = open_ledger(args)
    plan = round1.stored_plan(ledger, args.batch, kinds=(*mturk_options.API_KINDS, round1.MANUAL_BATCH))
    if args.reject and plan["kind"] != mturk_questions.KIND:
        raise InputError(f"--reject is for batches of prepared question files; round-1 batch {args.batch!r} is "
                         "reviewed by its gold checks")
    if plan["kind"] != mturk_questions.KIND:
        print_held(round1.assignment_verdicts(ledger, args.batch, plan))
    if plan["kind"] == round1.MANUAL_BATCH:
        if not args.out:
            raise InputError(f"batch {args.batch!r} was uploaded by hand: pass --out FILE.csv for the "
                             "Approve/Reject file to upload on the requester site")
        counts = mturk_manual.write_review_file(ledger, args.batch, plan, args.out, args.approve_all)
        print(f"wrote {args.out}: {counts['approved']} to approve, {counts['rejected']} to reject, {counts['held']} held "
              "(their workers have too few check answers to judge yet)")
    else:
        mturk_client.require_environment(plan, args.live, args.batch)
        if plan["kind"] == mturk_questions.KIND:
            verdicts = mturk_questions.assignment_verdicts(ledger, args.batch, args.reject, args.approve_all)
            approve_all = False   # --approve-all already chose the verdicts; listed rejections stand
        else:
            verdicts, approve_all = round1.assignment_verdicts(ledger, args.batch, plan), args.approve_all
        counts = mturk_review.review_assignments(mturk_options.client(args), ledger, verdicts, approve_all)
        print(f"approved {counts[mturk_review.APPROVED]}, rejected {counts[mturk_review.REJECTED]} assignment(s), "
              f"{counts.get(mturk_review.HELD, 0)} held (their workers have too few check answers to judge yet)")
    if plan["kind"] == mturk_questions.KIND:
        if args.block:
            raise InputError(f"--block is for round-1 batches, whose gold checks find the workers to block; batch "
                             f"{args.batch!r} holds prepared question files")
        return 0
    if args.block:
        block_workers(args, ledger, plan)
    stranded(ledger, args, plan)
    decided = round1.record_decisions(ledger, args.batch, plan, final=args.final,
                                      redecide_by=getpass.getuser() if args.redecide else None)
    print(f"round 1: {decided['accepted']} item(s) accepted, {decided['rejected']} rejected (go to round 2), "
          f"{decided['undecided']} waiting for assignments")
    if decided["late"]:
        print(f"{decided['late']} late assignment(s) arrived after their items were decided: recorded, but they change "
              "no decision (`--redecide` decides those items again, recorded with who and when)")
    print_copy_suspects(ledger)
    return 0


def print_copy_suspects(ledger):
    """Print the pairs of workers the copying rule reports for review (annotation.mturk.copying), over the whole run."""
    from annotation.mturk import copying
    with ledger.read() as q:
        suspects = copying.run_copy_suspects(q)
    for suspect in suspects:
        print(suspect.line())


def block_workers(args, ledger, plan):
    """Block the batch's workers whose gold record failed (by the API, or print the commands for a requester-UI
    batch), once each."""
    from annotation.mturk import review as mturk_review, round1
    with ledger.read() as q:
        done = {b["worker_id"] for b in q.worker_blocks()}
    to_block = {w: r for w, r in round1.workers_to_block(round1.assignment_verdicts(ledger, args.batch, plan)).items()
                if w not in done}
    if plan["kind"] == round1.MANUAL_BATCH:
        mturk_review.record_blocks(ledger, args.batch, to_block, "requester-site")
        for worker, reason in to_block.items():
            print(f"block {worker}: {mturk_review.block_command(worker, reason)}")
    else:
        mturk_review.block_workers(mturk_options.client(args), ledger, args.batch, to_block)
        for worker in to_block:
            print(f"blocked {worker} (their gold record failed)")
    if not to_block:
        print("no worker to block: every worker's gold record holds (or they are blocked already)")


def stranded(ledger, args, plan):
    """Say which items no valid assignment answered and how they are asked again: a requester-UI batch hands them back
    for the next `mturk export`; an API batch's HITs get more assignments from `mturk create` (within --max-spend)."""
    from annotation.mturk import round1
    if plan["kind"] == round1.MANUAL_BATCH:
        released = round1.release_stranded(ledger, args.batch, plan)
        if released:
            print(f"{released} item(s) whose every assignment was rejected or could not be judged went back to waiting: the next "
                  "`mturk export` asks them again")
        return
    with ledger.read() as q:
        hits = round1.stranded_hits(q, args.batch, plan)
    if hits:
        print(f"{sum(map(len, hits.values()))} item(s) on {len(hits)} HIT(s) whose every assignment was rejected or could not be judged: "
              f"`mturk create --batch {args.batch}` asks them again (CreateAdditionalAssignmentsForHIT, within "
              "--max-spend)")


def print_held(verdicts):
    """One line per held worker: when MTurk auto-approves their assignments and from when review decides them."""
    held = {}
    for verdict in verdicts:
        if verdict.get("held") and verdict["status"] == "Submitted":
            held.setdefault(verdict["worker_id"], []).append(verdict)
    for worker, found in sorted(held.items()):
        dated = [v for v in found if "decide_by" in v]
        dates = (f"MTurk auto-approves them from {min(v['auto_approval'] for v in dated)}; review decides them from "
                 f"{min(v['decide_by'] for v in dated)} on the record so far (docs/annotation.md, \"Held has an "
                 "end\")") if dated else "no submit or auto-approval time known"
        print(f"held: {worker}, {len(found)} assignment(s): {found[0]['reason']}; {dates}")


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "review", run, add_options,
    writes=verbs.Writes("file", "requester-UI batches: where to write the Approve/Reject file to upload",
                        optional=True, within="mturk", metavar="FILE.csv"),
    help="approve/reject saved assignments (and decide each item of round 1)",
    description="Round 1: check every saved assignment (all questions answered, gold checks right), approve or reject it "
                "with the reason as feedback (API batches) or write the Approve/Reject file to upload (requester-UI "
                "batches), then record each item's round-1 decision: accepted when more than half of the valid "
                "assignments agree with the expert. Batches of prepared question files have no checks: reject the "
                "assignments listed in --reject and, with --approve-all, approve the rest."))
