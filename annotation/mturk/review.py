"""MTurk assignments: saved into the ledger (answers tied to their items), written back as JSON Lines, approved or
rejected by verdict, and workers blocked."""
import datetime
import json
import logging
import shlex
import xml.etree.ElementTree as ET

from botocore.exceptions import ClientError

from annotation.mturk import round1
from annotation.mturk.client import QUESTIONS_BATCH, MTurkFailure, error_text
from picforge.mturk_xml import answer_xml, fields_from_answer_xml
from picforge.files import write_atomically

log = logging.getLogger(__name__)

ASSIGNMENT_STATUSES = ["Submitted", "Approved", "Rejected"]
SUBMITTED, APPROVED, REJECTED = ASSIGNMENT_STATUSES
# What the ledger keeps of an MTurk assignment in its meta (besides id, worker, HIT, status, submit time).
ASSIGNMENT_META = ("AcceptTime", "AutoApprovalTime", "ApprovalTime", "RejectionTime", "RequesterFeedback")


def iso_time(value):
    """An MTurk timestamp as ISO 8601 text (other values as they are)."""
    return value.isoformat() if isinstance(value, datetime.datetime) else value


def assignment_meta(assignment):
    """What the ledger keeps of an MTurk assignment besides its id, worker, status and answers."""
    return {key: iso_time(assignment[key]) for key in ASSIGNMENT_META if assignment.get(key) is not None}


def ledger_answers(kind, fields, hit):
    """Ledger answers of one assignment's posted fields: round-1 answers tied to the HIT's items,
    a question-file batch's fields as posted."""
    if kind == QUESTIONS_BATCH:
        return {field: (None, value) for field, value in fields.items()}
    return round1.answers_by_field(fields, hit["meta"]["slots"])


def save_assignments(client, ledger, batch_id, page_size=100):
    """Page through every HIT's assignments into the ledger (one transaction per HIT); re-polling
    moves statuses only forward and adds nothing twice. Returns the number of assignments seen."""
    with ledger.read() as q:
        kind = q.batch(batch_id)["kind"]
        hits = q.hits(batch_id)
    seen = 0
    for hit in hits:
        pages = client.get_paginator("list_assignments_for_hit").paginate(
            HITId=hit["hit_id"], AssignmentStatuses=ASSIGNMENT_STATUSES, PaginationConfig={"PageSize": page_size})
        assignments = [a for page in pages for a in page["Assignments"]]
        with ledger.transaction() as tx:
            for assignment in assignments:
                aid, meta = assignment["AssignmentId"], assignment_meta(assignment)
                meta["row"] = f"MTurk ListAssignmentsForHIT of HIT {hit['hit_id']}"
                try:
                    answers = ledger_answers(kind, fields_from_answer_xml(assignment["Answer"]), hit)
                except (ValueError, ET.ParseError) as err:   # a tampered form: kept, answers unusable
                    log.warning("assignment %s of HIT %s: %s", aid, hit["hit_id"], err)
                    answers, meta = {}, {**meta, "answer_error": str(err)}
                tx.record_assignment(aid, batch_id, assignment["WorkerId"], assignment["AssignmentStatus"],
                                     hit_id=hit["hit_id"], submitted_at=iso_time(assignment.get("SubmitTime")),
                                     meta=meta)
                tx.record_answers(aid, answers, row=meta["row"])
        seen += len(assignments)
    return seen


def assignment_records(ledger, batch_id):
    """The batch's saved assignments as list_assignments_for_hit returns them (`Answer` rebuilt from the
    ledger's answers), one per assignment id; those saved without usable answers are left out."""
    with ledger.read() as q:
        assignments = q.assignments(batch_id=batch_id)
        fields = {}
        for answer in q.answers(batch_id=batch_id):
            fields.setdefault(answer["assignment_id"], {})[answer["field"]] = answer["value"]
    return [{"AssignmentId": a["assignment_id"], "WorkerId": a["worker_id"], "HITId": a["hit_id"],
             "AssignmentStatus": a["status"], "SubmitTime": a["submitted_at"],
             **{key: a["meta"][key] for key in ASSIGNMENT_META if key in a["meta"]},
             "Answer": answer_xml(fields.get(a["assignment_id"], {}))}
            for a in assignments if "answer_error" not in a["meta"]]


def write_assignments(ledger, batch_id, path):
    """Write the batch's saved assignments to `path` as JSON Lines (replaced whole); returns how many."""
    records = assignment_records(ledger, batch_id)
    write_atomically(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return len(records)


HELD = "held"


def review_assignments(client, ledger, verdicts, approve_all=False):
    """Approve or reject each submitted assignment by its verdict (`valid`), with the `reason` as feedback.

    Round-1 verdicts come from the gold checks (`round1.assignment_verdicts`); with `approve_all` every
    worker is paid, but failed checks still keep the answers out of the decisions. An assignment whose worker is
    held (too few gold answers to judge) is left as it is until a later review can judge them.
    Returns {approved, rejected, held}.
    """
    counts = {APPROVED: 0, REJECTED: 0, HELD: 0}
    for verdict in verdicts:
        if verdict["status"] != SUBMITTED:
            continue
        if verdict.get("held") and not approve_all:
            counts[HELD] += 1
            continue
        approve = verdict["valid"] or approve_all or verdict.get("pay_unjudged", False)
        try:
            if approve:
                client.approve_assignment(AssignmentId=verdict["assignment_id"],
                                          RequesterFeedback=verdict["reason"][:1024])
            else:
                client.reject_assignment(AssignmentId=verdict["assignment_id"],
                                         RequesterFeedback=verdict["reason"][:1024])
            status = APPROVED if approve else REJECTED
        except ClientError as err:
            status = client.get_assignment(AssignmentId=verdict["assignment_id"])["Assignment"]["AssignmentStatus"]
            if status == SUBMITTED:
                raise MTurkFailure(f"reviewing assignment {verdict['assignment_id']} failed ({error_text(err)}); "
                                   "run review again") from None
        round1.record_review(ledger, verdict, status)
        counts[status] = counts.get(status, 0) + 1
    return counts


def block_workers(client, ledger, batch_id, reasons):
    """Block each worker of {worker: reason} from the requester's HITs (CreateWorkerBlock) and record it."""
    for worker, reason in reasons.items():
        client.create_worker_block(WorkerId=worker, Reason=reason[:1024])
        record_blocks(ledger, batch_id, {worker: reason}, "api")


def record_blocks(ledger, batch_id, reasons, how):
    """Record the blocks of {worker: reason} (`how`: api or requester-site)."""
    with ledger.transaction() as tx:
        for worker, reason in reasons.items():
            tx.record_worker_block(worker, batch_id, reason, how)


def block_command(worker, reason):
    """The AWS CLI command that blocks a worker of a batch uploaded on the requester site."""
    return (f"aws mturk create-worker-block --region us-east-1 --worker-id {shlex.quote(worker)} "
            f"--reason {shlex.quote(reason[:1024])}")
