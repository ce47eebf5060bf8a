"""Rehearse a requester-UI batch offline: the `Batch_*_batch_results.csv` the requester site would export for it,
every column present and the workers' `Answer.*` cells empty, for a person or a script to fill and ingest."""
import os

from annotation.mturk import hit_pages, manual as mturk_manual, round1
from picforge.errors import InputError
from picforge.files import open_input, write_atomically
from picforge.sheets import csv_text

# The requester site's own columns of a results download, in its order, before Input.* (then Answer.*, Approve,
# Reject).
SITE_COLUMNS = ("HITId", "HITTypeId", "Title", "Description", "Keywords", "Reward", "CreationTime", "MaxAssignments",
                "RequesterAnnotation", "AssignmentDurationInSeconds", "AutoApprovalDelayInSeconds", "Expiration",
                "NumberOfSimilarHITs", "LifetimeInSeconds", "AssignmentId", "WorkerId", "AssignmentStatus",
                "AcceptTime", "SubmitTime", "AutoApprovalTime", "ApprovalTime", "RejectionTime", "RequesterFeedback",
                "WorkTimeInSeconds", "LifetimeApprovalRate", "Last30DaysApprovalRate", "Last7DaysApprovalRate")
# Ids of rehearsed HITs, assignments and workers start with this, so the ledger shows which answers were rehearsed.
PREFIX = "REHEARSAL"


def results_rows(run_dir, batch_id, plan):
    """(columns, rows): one row per assignment the batch asks for (its HITs × --assignments), each with the site's
    columns, the batch input CSV's row echoed as Input.*, and empty Answer.* cells (one per question of the HIT)."""
    input_columns, inputs = mturk_manual.input_rows(run_dir, plan)
    answer_columns = mturk_manual.answer_columns(len(hit["slots"]) for hit in plan["hits"])
    answer_columns.append(f"Answer.{hit_pages.COMMENTS_FIELD}")
    columns = list(SITE_COLUMNS) + [f"Input.{c}" for c in input_columns] + answer_columns + ["Approve", "Reject"]
    assignments = round1.settings_of(plan).assignments
    rows = []
    for number, (hit, echoed) in enumerate(zip(plan["hits"], inputs), start=1):
        for worker in range(1, assignments + 1):
            rows.append({"HITId": f"{PREFIX}-{batch_id}-HIT{number:05d}", "Title": f"{PREFIX} of batch {batch_id}",
                         "MaxAssignments": str(assignments),
                         "AssignmentId": f"{PREFIX}-{batch_id}-HIT{number:05d}-A{worker}",
                         "WorkerId": f"{PREFIX}WORKER{worker}", "AssignmentStatus": "Submitted",
                         **{f"Input.{c}": echoed.get(c, "") for c in input_columns}})
    return columns, rows


def write_results(run_dir, batch_id, plan, path):
    """Write the blank rehearsal results file of a batch to `path` (never over a file with other contents, e.g.
    answers filled in); returns (assignment rows, answer cells to fill, whether it was written now)."""
    columns, rows = results_rows(run_dir, batch_id, plan)
    text = csv_text(columns, rows)
    cells = sum(len(hit["slots"]) for hit in plan["hits"]) * round1.settings_of(plan).assignments
    if os.path.exists(path):
        with open_input(path, "r", encoding="utf-8", newline="") as fh:
            if fh.read() != text:
                raise InputError(f"{path} exists and is not the blank rehearsal file of batch {batch_id} (answers "
                                 "filled in?); ingest it, or remove it or give another --out for a blank one")
        return len(rows), cells, False
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    write_atomically(path, text)
    return len(rows), cells, True
