"""MTurk batches of prepared question files (such as a companion's rating forms): the plan file,
the batch plan kept in the ledger with the first HIT MTurk accepts, answers kept as posted, and review by list.

A plan file is a JSON object whose `hits` list (or `forms` list, as a companion's rating forms give it)
holds one entry per HIT: `request_token` (unique, at most 56 characters) and `question_xml` (the path of
an HTMLQuestion, ExternalQuestion or QuestionForm file); any other keys of an entry are kept with its HIT
in the ledger. The live endpoint gets `request_token` as the HIT's UniqueRequestToken, the sandbox
`sandbox-<request_token>`, so a sandbox trial and the live batch of one plan can share a ledger. These
batches have no gold checks and no round-1 decisions.
"""
import hashlib
import json
import os
import xml.etree.ElementTree as ET

from annotation.mturk import client as mturk_client, round1
from picforge.mturk_xml import HTML_QUESTION_LIMIT
from picforge.bounded_read import MAX_TEXT_BYTES, read_bounded
from picforge.errors import InputError
from picforge.files import open_input
from picforge.sheets import read_sheet

KIND = mturk_client.QUESTIONS_BATCH
ENTRY_LISTS = ("hits", "forms")
QUESTION_ROOTS = ("HTMLQuestion", "ExternalQuestion", "QuestionForm")
SANDBOX_PREFIX = "sandbox-"
TOKEN_LIMIT = 64 - len(SANDBOX_PREFIX)   # MTurk's limit, less the sandbox prefix
REJECTION_COLUMNS = ("assignment_id", "feedback")
THANKS = "Thank you for your work."


# -- plan file -------------------------------------------------------------------------------------

def _load_plan_file(path):
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file; give the plan.json of your question files "
                         "(the plan.json written beside them)")
    try:
        document = json.loads(read_bounded(path, MAX_TEXT_BYTES, fix="give the plan.json export wrote").decode(
            "utf-8-sig"))
    except UnicodeDecodeError as err:
        raise InputError(f"{path}: byte {err.start} is not UTF-8; give the plan.json export wrote") from None
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: line {err.lineno}: not valid JSON ({err.msg}); fix the plan file") from None
    entries = next((document[key] for key in ENTRY_LISTS
                    if isinstance(document, dict) and isinstance(document.get(key), list)), None)
    if not entries:
        raise InputError(f"{path}: no HITs in it; expected a JSON object with a non-empty 'hits' (or 'forms') "
                         "list of {request_token, question_xml} entries")
    return entries


def question_path(path, plan_path):
    """Where a plan entry's question file is: as written (absolute, or from the current folder), else
    relative to the plan file's folder."""
    if os.path.isabs(path) or os.path.exists(path):
        return path
    return os.path.join(os.path.dirname(plan_path), path)


def read_question(path, where):
    """A question file's XML text, checked: found, under MTurk's size limit, one of MTurk's question kinds."""
    try:
        with open_input(path) as fh:
            data = fh.read(HTML_QUESTION_LIMIT + 1)  # enough to see that it passes the limit
    except OSError as err:
        raise InputError(f"{where}: question file {path} cannot be read ({err.strerror}); "
                         "export the questions again or fix 'question_xml'") from None
    if len(data) > HTML_QUESTION_LIMIT:
        raise InputError(f"{where}: {path} is over MTurk's {HTML_QUESTION_LIMIT}-byte Question limit; put less on "
                         "each page")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as err:
        raise InputError(f"{where}: {path} is not well-formed XML ({err}); export the questions again") from None
    if root.tag.rsplit("}", 1)[-1] not in QUESTION_ROOTS:
        raise InputError(f"{where}: {path} holds <{root.tag.rsplit('}', 1)[-1]}>, not one of MTurk's "
                         f"{', '.join(QUESTION_ROOTS)} documents")
    return data.decode("utf-8")


def read_question_plan(path):
    """(hits, questions): every entry of the plan file as {token, question_xml, sha256, …its other keys}
    and {token: Question XML}; all entries are checked before anything is posted."""
    hits, questions, seen = [], {}, {}
    for number, entry in enumerate(_load_plan_file(path), start=1):
        where = f"{path}: entry {number}"
        if not isinstance(entry, dict):
            raise InputError(f"{where}: not a JSON object; write {{request_token, question_xml}}")
        token, given = entry.get("request_token"), entry.get("question_xml")
        if not isinstance(token, str) or not 1 <= len(token) <= TOKEN_LIMIT:
            raise InputError(f"{where}: 'request_token' must be a string of 1 to {TOKEN_LIMIT} characters "
                             f"(MTurk's UniqueRequestToken, with room for the prefix {SANDBOX_PREFIX!r})")
        if token in seen:
            raise InputError(f"{where}: request_token {token!r} is also entry {seen[token]}'s; "
                             "give every HIT its own token")
        if not isinstance(given, str) or not given:
            raise InputError(f"{where}: 'question_xml' must name the HIT's question file")
        seen[token] = number
        location = question_path(given, path)
        xml = read_question(location, where)
        extra = {key: value for key, value in entry.items() if key != "question_xml"}
        hits.append({**extra, "token": token, "question_xml": location,
                     "sha256": hashlib.sha256(xml.encode("utf-8")).hexdigest()})
        questions[token] = xml
    return hits, questions


# -- batch plan ------------------------------------------------------------------------------------

def sent_token(request_token, environment):
    """The UniqueRequestToken of a plan entry's HIT on the `environment` endpoint (mturk_client.environment)."""
    return request_token if environment == mturk_client.LIVE else SANDBOX_PREFIX + request_token


def plan_batch(ledger, batch_id, plan_path, extra_meta):
    """(plan, questions, is_new): the batch's stored plan, or a new one from the plan file (not stored yet).

    Each HIT's `token` is what MTurk gets on the endpoint of extra_meta['environment']. An existing batch
    must get the same HITs (tokens and question files) and the same extra meta; a token that belongs to
    another batch's HIT is refused, so the same questions are never posted twice on one endpoint.
    """
    entries, texts = read_question_plan(plan_path)
    hits = [{**entry, "token": sent_token(entry["token"], extra_meta["environment"])} for entry in entries]
    questions = {hit["token"]: texts[entry["token"]] for hit, entry in zip(hits, entries)}
    with ledger.read() as q:
        found = q.batch(batch_id)
        taken = {hit["request_token"]: hit for hit in q.hits() if hit["batch_id"] != batch_id}
    for number, hit in enumerate(hits, start=1):
        other = taken.get(hit["token"])
        if other is not None:
            raise InputError(f"{plan_path}: entry {number}: request token {hit['token']!r} belongs to HIT "
                             f"{other['hit_id']} of batch {other['batch_id']!r}; these questions were posted "
                             f"already on this endpoint (use --batch {other['batch_id']})")
    if found is None:
        return {**extra_meta, "kind": KIND, "source": plan_path, "hits": hits}, questions, True
    round1.check_not_cancelled(found)
    round1.check_same_plan(found, KIND, extra_meta)
    if [(h["token"], h["sha256"]) for h in found["meta"]["hits"]] != [(h["token"], h["sha256"]) for h in hits]:
        raise InputError(f"{plan_path}: its tokens or question files differ from those batch {batch_id!r} was "
                         "planned with; give the original files, or start a new --batch")
    return found["meta"], questions, False


# -- answers and review ----------------------------------------------------------------------------

def read_rejections(path):
    """{assignment_id: (row number, feedback)} of a sheet (CSV or XLSX) with columns assignment_id, feedback."""
    rows = read_sheet(path, REJECTION_COLUMNS).rows
    rejections = {}
    for row_no, row in rows:
        assignment_id, feedback = (row["assignment_id"] or "").strip(), (row["feedback"] or "").strip()
        if not assignment_id or not feedback:
            raise InputError(f"{path}: row {row_no}: give both an assignment_id and the feedback the worker sees")
        rejections[assignment_id] = (row_no, feedback)
    return rejections


def assignment_verdicts(ledger, batch_id, reject_path, approve_all):
    """Saved assignments to act on: those listed in the `reject_path` CSV (valid False, with their
    feedback) and, with `approve_all`, every other one (valid True)."""
    if not reject_path and not approve_all:
        raise InputError(f"batch {batch_id!r} has no automatic checks (prepared question files): pass "
                         "--approve-all to pay every submitted assignment, and/or --reject FILE.csv")
    rejections = read_rejections(reject_path) if reject_path else {}
    with ledger.read() as q:
        assignments = q.assignments(batch_id=batch_id)
    saved = {a["assignment_id"] for a in assignments}
    for assignment_id, (row_no, _) in rejections.items():
        if assignment_id not in saved:
            raise InputError(f"{reject_path}: row {row_no}: assignment {assignment_id} is not saved in batch "
                             f"{batch_id!r}; run `mturk save` first or fix the id")
    verdicts = []
    for assignment in assignments:
        if assignment["assignment_id"] in rejections:
            verdicts.append({**assignment, "valid": False, "reason": rejections[assignment["assignment_id"]][1]})
        elif approve_all:
            verdicts.append({**assignment, "valid": True, "reason": THANKS})
    return verdicts
