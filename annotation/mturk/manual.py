"""The requester-UI path of round 1: export the batch CSV and crowd-form template for a team that
uploads HITs by hand, ingest the `Batch_*_batch_results.csv` it downloads, and write the
Approve/Reject file it uploads after review. Same plan, checks and ledger as the API path.
"""
import os
import shlex

from annotation.mturk import hit_pages, round1
from picforge.ledger import CANCELLED
from picforge.errors import InputError
from picforge.files import write_atomically
from picforge.sheets import csv_text, read_sheet

ROW_KEY = "row_key"
RESULT_COLUMNS = ("HITId", "AssignmentId", "WorkerId", "AssignmentStatus", "Input." + ROW_KEY)
ASSIGNMENT_STATUSES = ("Submitted", "Approved", "Rejected")


def csv_cell(fragment):
    """An HTML fragment as a one-line CSV value (newlines become the equivalent `&#10;`)."""
    return fragment.replace("\r", "").replace("\n", "&#10;")


def export_batch(run_dir, batch_id, plan, out_dir):
    """Write `<batch>_input.csv` (one row per HIT), `<batch>_template.html` and the qualification test
    (`<batch>_qualification_test.xml`, `<batch>_answer_key.xml`); returns their paths.

    Each `question_<n>` cell holds that slot's question HTML, already escaped, because the requester
    UI pastes `${question_<n>}` values into the template verbatim.
    """
    settings = round1.settings_of(plan)
    csv_path = os.path.join(out_dir, f"{batch_id}_input.csv")
    template_path = os.path.join(out_dir, f"{batch_id}_template.html")
    write_atomically(csv_path, csv_text(*input_rows(run_dir, plan)))
    write_atomically(template_path, hit_pages.crowd_template(settings.questions_per_hit, round1.practice_of(plan)))
    test = round1.qualification_test(plan)
    test_path = os.path.join(out_dir, f"{batch_id}_qualification_test.xml")
    key_path = os.path.join(out_dir, f"{batch_id}_answer_key.xml")
    write_atomically(test_path, test.test_xml)
    write_atomically(key_path, test.answer_key)
    return csv_path, template_path, test_path, key_path


def input_rows(run_dir, plan):
    """(columns, rows) of the batch input CSV: one row per HIT, its row key and each slot's question HTML."""
    settings = round1.settings_of(plan)
    pages = round1.hit_pages_of(run_dir, plan)
    columns = [ROW_KEY] + [hit_pages.question_variable(n) for n in range(1, settings.questions_per_hit + 1)]
    rows = []
    for hit in plan["hits"]:
        row = {ROW_KEY: hit["token"]}
        for slot, question in enumerate(pages[hit["token"]], start=1):
            row[hit_pages.question_variable(slot)] = csv_cell(hit_pages.question_section(slot, question))
        rows.append(row)
    return columns, rows


def create_qualification_command(plan, test_path, key_path):
    """The AWS CLI command that creates the batch's qualification test on the sandbox (the requester UI cannot)."""
    test = round1.qualification_test(plan)
    return (f"aws mturk create-qualification-type --region us-east-1 --endpoint-url "
            f"https://mturk-requester-sandbox.us-east-1.amazonaws.com --name {shlex.quote(test.name)} "
            f"--description {shlex.quote(test.description)} --qualification-type-status Active "
            f"--test file://{test_path} --answer-key file://{key_path} --test-duration-in-seconds {test.seconds}")


def _manual_plans(q):
    """{row_key: (batch_id, slots, settings)} over every requester-UI batch in the ledger, and the cancelled ones'
    ids."""
    keys, cancelled = {}, set()
    for batch in q.batches(kind=round1.MANUAL_BATCH):
        if batch["status"] == CANCELLED:
            cancelled.add(batch["batch_id"])
        for hit in batch["meta"].get("hits", []):
            keys[hit["token"]] = (batch["batch_id"], hit["slots"], round1.settings_of(batch["meta"]))
    return keys, cancelled


def answer_columns(slot_counts):
    """The Answer.* columns of a results download for HITs of `slot_counts` questions (the comments box optional)."""
    return [f"Answer.{hit_pages.ANSWER_FIELD.format(slot=n)}" for n in range(1, max(slot_counts, default=0) + 1)]


def check_results_file(run_dir, ledger, path, sheet):
    """InputError naming the first difference between a results file and the batches it answers: no result rows, a
    planned Input.* or Answer.* column missing, or an Input.* cell other than the exported batch CSV's."""
    if not sheet.rows:
        raise InputError(f"{path}: no result rows (empty or header only); download the batch's results again")
    with ledger.read() as q:
        plans, _ = _manual_plans(q)
    keys = {(row.get("Input." + ROW_KEY) or "").strip() for _, row in sheet.rows} & set(plans)
    header = {c.casefold() for c in sheet.columns}
    exported = {}
    for batch_id in sorted({plans[key][0] for key in keys}):
        with ledger.read() as q:
            plan = q.batch(batch_id)["meta"]
        columns, rows = input_rows(run_dir, plan)
        exported.update({row[ROW_KEY]: (batch_id, row) for row in rows})
        wanted = [f"Input.{c}" for c in columns] + answer_columns(len(h["slots"]) for h in plan["hits"]
                                                                  if h["token"] in keys)
        missing = next((c for c in wanted if c.casefold() not in header), None)
        if missing:
            raise InputError(f"{path}: row 1: column {missing} of batch {batch_id} is missing; ingest the results "
                             "file as downloaded from the requester site")
    for number, row in sheet.rows:
        batch_id, echoed = exported.get((row.get("Input." + ROW_KEY) or "").strip(), (None, {}))
        for column, value in echoed.items():
            if (row.get(f"Input.{column}") or "").strip() != value.strip():
                raise InputError(f"{path}: row {number}, column Input.{column}: differs from what batch {batch_id} "
                                 "exported; results of an edited input are not the questions the workers answered: "
                                 "ingest the file as downloaded")


def ingest_results(ledger, paths, run_dir):
    """Ingest requester-UI results files, each checked as a whole first (`check_results_file`); each file is one
    transaction, and rows already in the ledger change nothing but a status moving forward (an older file never
    undoes a review). Returns {batch_id: assignments in the files}."""
    seen = {}
    sheets = []
    for path in paths:
        sheet = read_sheet(path, RESULT_COLUMNS)
        check_results_file(run_dir, ledger, path, sheet)
        sheets.append((path, sheet.rows))
    refuse_repeated_assignments(sheets)
    for path, rows in sheets:
        with ledger.transaction() as tx:
            (plans, cancelled), hits_by_token = _manual_plans(tx), {}
            for batch_id in {b for b, _, _ in plans.values()}:
                hits_by_token.update({hit["request_token"]: hit["hit_id"] for hit in tx.hits(batch_id)})
            for number, row in rows:
                batch_id = _ingest_row(tx, path, number, row, plans, hits_by_token, cancelled)
                seen[batch_id] = seen.get(batch_id, 0) + 1
    return seen


def refuse_repeated_assignments(sheets):
    """InputError naming both rows when the results files ([(path, rows)]) hold one AssignmentId twice with
    different worker, HIT, inputs or answers (a later status is fine), or one worker twice on one HIT (MTurk gives
    a worker one assignment of a HIT)."""
    by_assignment, by_worker_hit = {}, {}
    for path, rows in sheets:
        for number, row in rows:
            here = (f"{path}: row {number}", {k: (v or "").strip() for k, v in row.items()
                                              if k and (k in {"AssignmentId", "WorkerId", "HITId"}
                                                        or k.startswith(("Input.", "Answer.")))})
            assignment = here[1].get("AssignmentId", "")
            first = by_assignment.setdefault(assignment, here)
            if first is not here and first[1] != here[1]:
                raise InputError(f"{here[0]}: AssignmentId {assignment} is also at {first[0]} with other "
                                 "contents; an assignment is one row: remove the wrong row, or ingest the file as "
                                 "downloaded")
            worker_hit = (here[1].get("WorkerId", ""), here[1].get("HITId", ""))
            other = by_worker_hit.setdefault(worker_hit, (here[0], assignment))
            if other[1] != assignment:
                raise InputError(f"{here[0]}: worker {worker_hit[0]} holds a second assignment ({assignment}) of HIT "
                                 f"{worker_hit[1]} beside {other[1]} at {other[0]}; a worker answers a HIT once: "
                                 "keep one of the two rows")


def refuse_beyond_max(tx, where, batch_id, hit_id, assignment_id, settings):
    """InputError when a new assignment would give HIT `hit_id` more than its MaxAssignments (MTurk gives no more)."""
    hit = next((h for h in tx.hits(batch_id) if h["hit_id"] == hit_id), {"meta": {}})
    taken = [a["assignment_id"] for a in tx.assignments(batch_id=batch_id) if a["hit_id"] == hit_id]
    capacity = round1.hit_capacity(hit, settings)
    if assignment_id not in taken and len(taken) >= capacity:
        raise InputError(f"{where}, column AssignmentId: HIT {hit_id} already has its {capacity} assignment(s) "
                         f"({', '.join(taken)}), its MaxAssignments; MTurk gives a HIT no more, so this row is not "
                         "from the uploaded batch: leave it out")


def _ingest_row(tx, path, number, row, plans, hits_by_token, cancelled):
    where = f"{path}: row {number}"
    key = (row.get("Input." + ROW_KEY) or "").strip()
    if key not in plans:
        raise InputError(f"{where}, column Input.{ROW_KEY}: {key!r} is not a row of any exported batch; "
                         "ingest only results of CSVs written by `picforge annotate mturk export`")
    if plans[key][0] in cancelled:
        raise InputError(f"{where}, column Input.{ROW_KEY}: batch {plans[key][0]} was cancelled and its items went "
                         "back to waiting; its results cannot be ingested (leave this file out)")
    for column in RESULT_COLUMNS[:4]:
        if not (row.get(column) or "").strip():
            raise InputError(f"{where}, column {column}: empty; ingest the file as downloaded")
    status = row["AssignmentStatus"].strip()
    if status not in ASSIGNMENT_STATUSES:
        raise InputError(f"{where}, column AssignmentStatus: {status!r} is not one of {', '.join(ASSIGNMENT_STATUSES)}")
    batch_id, slots, settings = plans[key]
    hit_id = row["HITId"].strip()
    if hits_by_token.setdefault(key, hit_id) != hit_id:
        raise InputError(f"{where}, column HITId: row key {key} already belongs to HIT {hits_by_token[key]}; "
                         "was the batch CSV uploaded twice? Ingest only one of the two batches")
    refuse_beyond_max(tx, where, batch_id, hit_id, row["AssignmentId"].strip(), settings)
    fields = {name[len("Answer."):]: value for name, value in row.items() if name and name.startswith("Answer.")}
    try:
        answers = round1.answers_by_field(fields, slots)
    except ValueError as err:
        raise InputError(f"{where}, column Answer.{str(err).removeprefix('field ')}") from None
    try:
        tx.add_hit(hit_id, batch_id, [s for s in slots if not s.startswith(round1.GOLD_PREFIX)],
                   request_token=key, meta={"slots": slots})
        tx.record_assignment(row["AssignmentId"].strip(), batch_id, row["WorkerId"].strip(), status, hit_id=hit_id,
                             submitted_at=(row.get("SubmitTime") or "").strip() or None,
                             meta={"accept_time": (row.get("AcceptTime") or "").strip(),
                                   **{name: row[name].strip() for name in ("AutoApprovalTime",
                                                                           "AutoApprovalDelayInSeconds")
                                      if (row.get(name) or "").strip()},
                                   "row": f"{os.path.basename(path)}: row {number}"})
        tx.record_answers(row["AssignmentId"].strip(), answers, row=where)
    except ValueError as err:
        raise InputError(f"{where}: {err}; ingest the file as downloaded") from None
    return batch_id


def write_review_file(ledger, batch_id, plan, path, approve_all=False):
    """Write the Approve/Reject CSV to upload on the requester site for the batch's submitted
    assignments (`x` in Approve, or the reason in Reject), leaving out those of held workers (too few check answers
    to judge); returns {approved, rejected, held}."""
    submitted = [v for v in round1.assignment_verdicts(ledger, batch_id, plan) if v["status"] == "Submitted"]
    verdicts = [v for v in submitted if approve_all or not v.get("held")]  # held: left out until they can be judged
    counts = {"approved": 0, "rejected": 0, "held": len(submitted) - len(verdicts)}

    rows = []
    for verdict in verdicts:
        approve = verdict["valid"] or approve_all or verdict.get("pay_unjudged", False)
        counts["approved" if approve else "rejected"] += 1
        rows.append({"HITId": verdict["hit_id"], "AssignmentId": verdict["assignment_id"],
                     "WorkerId": verdict["worker_id"], "Approve": "x" if approve else "",
                     "Reject": "" if approve else verdict["reason"]})
    write_atomically(path, csv_text(["HITId", "AssignmentId", "WorkerId", "Approve", "Reject"], rows))
    for verdict, row in zip(verdicts, rows):
        round1.record_review(ledger, verdict, verdict["status"], decided="Approved" if row["Approve"] else "Rejected")
    return counts
