"""Reading rating answers (standalone JSON files, MTurk assignments, MTurk batch-results CSV) into rating
records, and keeping only the first context of a pair that each annotator rated."""
import collections
import csv
import datetime
import io
import json
import re
import xml.etree.ElementTree as ET

from picforge.mturk_xml import fields_from_answer_xml
from companions.cosimlex.rating import SCALE
from picforge.errors import InputError
from picforge.sheets import decode_text

ITEM_FIELD = re.compile(r"item(\d+)_id$")
OK, INVALID, REPEAT, REJECTED = "ok", "invalid-rating", "repeat-pair", "rejected-assignment"
US_ZONES = {"PST": -8, "PDT": -7, "MST": -7, "MDT": -6, "CST": -6, "CDT": -5, "EST": -5, "EDT": -4, "UTC": 0, "GMT": 0}
MTURK_CSV_TIME = re.compile(r"(?P<clock>\w{3} \w{3} \d{2} \d{2}:\d{2}:\d{2}) (?P<zone>[A-Z]{3}) (?P<year>\d{4})")


def mturk_answer_fields(answer_xml, where):
    """{QuestionIdentifier: text} of an MTurk QuestionFormAnswers document, or a clear error."""
    try:
        return fields_from_answer_xml(answer_xml)
    except ET.ParseError as err:
        raise InputError(f"{where}: the Answer XML does not parse ({err}); save the assignment again") from None


def utc_time(text):
    """An ISO-8601 UTC time from ISO text or MTurk's CSV form ("Tue Jan 02 10:00:00 PST 2024")."""
    text = str(text).strip()
    match = MTURK_CSV_TIME.fullmatch(text)
    try:
        if match:
            moment = datetime.datetime.strptime(f"{match['clock']} {match['year']}", "%a %b %d %H:%M:%S %Y")
            moment = moment.replace(tzinfo=datetime.timezone(datetime.timedelta(hours=US_ZONES[match['zone']])))
        else:
            moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.astimezone(datetime.timezone.utc).isoformat()


def _submission(source, assignment_id, worker_id, submitted_at, answers, assignment_status=""):
    return {"source": source, "assignment_id": assignment_id, "worker_id": worker_id,
            "submitted_at": utc_time(submitted_at), "answers": answers, "rejected": assignment_status == "Rejected"}


def _json_submissions(record, where):
    if "Assignments" in record:
        for number, assignment in enumerate(record["Assignments"], start=1):
            yield from _json_submissions(assignment, f"{where} assignment {number}")
    elif "Answer" in record and "AssignmentId" in record:
        yield _submission("mturk", record["AssignmentId"], record["WorkerId"], record.get("SubmitTime", ""),
                          mturk_answer_fields(record["Answer"], where), record.get("AssignmentStatus", ""))
    elif "answers" in record and record.get("worker_id") and record.get("form_id"):
        yield _submission("standalone", f"standalone:{record['form_id']}:{record['worker_id']}",
                          record["worker_id"], record.get("submitted_at", ""), record["answers"])
    else:
        raise InputError(f"{where}: not a rating answer; give the JSON a standalone form downloaded, MTurk "
                         "assignments as returned by list_assignments_for_hit, or a Batch_*_batch_results.csv")


def read_submissions(path, data):
    """Submissions {source, assignment_id, worker_id, submitted_at, answers} of one answers file's bytes."""
    text = decode_text(data, path)
    if path.lower().endswith(".csv"):
        rows = list(csv.DictReader(io.StringIO(text)))
        for row_no, row in enumerate(rows, start=2):
            if "AssignmentId" not in row or "WorkerId" not in row:
                raise InputError(f"{path}: row 1: AssignmentId/WorkerId columns missing; give MTurk's "
                                 "Batch_*_batch_results.csv unchanged")
            answers = {k[len("Answer."):]: v for k, v in row.items() if k and k.startswith("Answer.")}
            yield _submission("mturk-batch", row["AssignmentId"], row["WorkerId"], row.get("SubmitTime", ""), answers,
                              row.get("AssignmentStatus", ""))
        return
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        document = None
    if document is not None:
        for number, record in enumerate(document if isinstance(document, list) else [document], start=1):
            yield from _json_submissions(record, f"{path} record {number}")
        return
    for line_no, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise InputError(f"{path}: line {line_no}: not valid JSON ({err.msg}); fix or remove the line") \
                    from None
            yield from _json_submissions(record, f"{path} line {line_no}")


def submission_ratings(submission, known_items, where):
    """Rating records of one submission: one per item of the form it answered."""
    answers = submission["answers"]
    numbers = sorted(int(m.group(1)) for m in map(ITEM_FIELD.match, answers) if m)
    if not numbers:
        raise InputError(f"{where}: assignment {submission['assignment_id']} has no item fields; "
                         "it does not come from a CoSimLex rating form")
    ratings = []
    for number in numbers:
        item_id = answers[f"item{number}_id"]
        if item_id not in known_items:
            raise InputError(f"{where}: assignment {submission['assignment_id']} rates unknown item {item_id!r}; "
                             "ingest answers into the run directory whose forms they come from")
        raw = str(answers.get(f"item{number}_rating", "")).strip()
        rating = int(raw) if raw.isdigit() and int(raw) in SCALE else None
        pair_id, _, context_no = item_id.rpartition("#")
        ratings.append({
            "assignment_id": submission["assignment_id"], "worker_id": submission["worker_id"],
            "submitted_at": submission["submitted_at"], "source": submission["source"],
            "form_id": str(answers.get("form_id", "")), "item_id": item_id, "pair_id": pair_id,
            "context_no": int(context_no), "inspired1": str(answers.get(f"item{number}_inspired1", "")),
            "inspired2": str(answers.get(f"item{number}_inspired2", "")), "rating": rating,
            "status": REJECTED if submission["rejected"] else OK if rating is not None else INVALID,
        })
    return ratings


def merge_ratings(existing, new):
    """All ratings keyed by (assignment, item): re-ingested answers add nothing, the first version stays,
    except that an assignment rejected since is marked so. Returns (ratings, number of new ratings)."""
    merged = {(r["assignment_id"], r["item_id"]): r for r in existing}
    added = 0
    for rating in new:
        key = (rating["assignment_id"], rating["item_id"])
        if key not in merged:
            merged[key] = rating
            added += 1
        elif rating["status"] == REJECTED:
            merged[key] = dict(merged[key], status=REJECTED)
    return list(merged.values()), added


def mark_repeat_pairs(ratings):
    """Statuses with one context per pair per annotator: only the annotator's earliest assignment that
    shows the pair counts (rejected ones aside); their later ratings of the same pair become `repeat-pair`."""
    first = {}
    for rating in sorted(ratings, key=lambda r: (r["submitted_at"], r["assignment_id"])):
        if rating["status"] != REJECTED:
            first.setdefault((rating["worker_id"], rating["pair_id"]), rating["assignment_id"])
    marked = []
    for rating in ratings:
        status = rating["status"]
        if status != REJECTED and first[(rating["worker_id"], rating["pair_id"])] != rating["assignment_id"]:
            status = REPEAT
        elif status == REPEAT:
            status = OK if rating["rating"] is not None else INVALID
        marked.append(dict(rating, status=status))
    return sorted(marked, key=lambda r: (r["submitted_at"], r["assignment_id"], r["item_id"]))


def status_counts(ratings):
    return dict(collections.Counter(r["status"] for r in ratings))
