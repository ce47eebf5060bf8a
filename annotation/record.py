"""What the ledger records of who annotated, for a release to state as fact: per round and platform the answers
actually ingested, rehearsed ones (`annotate mturk rehearse`, REHEARSAL ids) counted apart, people as they were."""
import collections

from annotation import expert, ps_verify, verify2
from annotation.mturk import round1
from annotation.mturk.client import LIVE
from annotation.mturk.rehearsal import PREFIX

# Batch kinds of each round, in round order: (round, what the round does).
ROUNDS = {expert.KIND: (0, "expert paraphrase sheets (q1, q2, Q3)"),
          round1.API_BATCH: (1, "round-1 verification"), round1.MANUAL_BATCH: (1, "round-1 verification"),
          verify2.KIND: (2, "round-2 expert verification"), ps_verify.KIND: (3, "PS verification")}


def is_rehearsed(assignment_id, worker_id):
    """Whether an assignment's answers were rehearsed (written by `annotate mturk rehearse`, not worked)."""
    return assignment_id.startswith(PREFIX) or worker_id.startswith(PREFIX)


def platform(batch, rehearsed):
    """Where a batch's answers came from, in the card's words."""
    if rehearsed:
        return "rehearsal (`annotate mturk rehearse`: a scripted or hand-filled results file, not crowd work)"
    if batch["kind"] == round1.API_BATCH:
        if batch["meta"].get("environment") == LIVE:
            return "Amazon Mechanical Turk (live marketplace, through the API)"
        return "Amazon Mechanical Turk sandbox (test workers, not the paid crowd)"
    if batch["kind"] == round1.MANUAL_BATCH:
        return "Amazon Mechanical Turk (requester site, results file downloaded and ingested)"
    return "expert sheets (CSV/XLSX) ingested by picforge"


def annotation_record(q):
    """[{round, task, platform, rehearsed, batches, assignments, people, answers, items}] of every round and
    platform that has ingested answers in the ledger, rounds in order; rehearsed answers are their own rows."""
    rows = {}
    for kind, (number, task) in ROUNDS.items():
        for batch in q.batches(kind=kind):
            by_assignment = collections.defaultdict(list)
            workers = {}
            for answer in q.answers(batch_id=batch["batch_id"]):
                by_assignment[answer["assignment_id"]].append(answer["item_id"])
                workers[answer["assignment_id"]] = answer["worker_id"]
            for assignment_id, item_ids in by_assignment.items():
                rehearsed = is_rehearsed(assignment_id, workers[assignment_id])
                where = platform(batch, rehearsed)
                row = rows.setdefault((number, where), {
                    "round": number, "task": task, "platform": where, "rehearsed": rehearsed, "batches": set(),
                    "assignments": 0, "people": set(), "answers": 0, "items": set()})
                row["batches"].add(batch["batch_id"])
                row["assignments"] += 1
                row["people"].add(workers[assignment_id])
                row["answers"] += len(item_ids)
                row["items"] |= {i for i in item_ids if i}
    return [{**row, "batches": len(row["batches"]), "people": len(row["people"]), "items": len(row["items"])}
            for _, row in sorted(rows.items(), key=lambda kv: kv[0])]
