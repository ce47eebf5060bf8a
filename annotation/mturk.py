"""MTurk API work through boto3's `mturk` client: qualification test (round 1), HIT type, HITs created
idempotently, status, saving assignments, review, expire and delete, for round-1 batches and batches of
prepared question files (kind QUESTIONS_BATCH, planned by `annotation.mturk_questions`).

The sandbox endpoint unless `live`; credentials come only from boto3's standard chain (environment,
shared files, profile, instance role) and are never logged or stored. Every result is written to the
ledger as soon as MTurk returns it, so any verb can be interrupted and run again.
"""
import dataclasses
import datetime
import json
import logging
import re
import shlex
import xml.etree.ElementTree as ET
from decimal import ROUND_HALF_UP, Decimal

from botocore.exceptions import ClientError

from annotation import hit_pages, round1
from picforge.errors import InputError
from picforge.files import write_atomically

log = logging.getLogger(__name__)

REGION = "us-east-1"
SANDBOX_ENDPOINT = "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
LIVE_ENDPOINT = "https://mturk-requester.us-east-1.amazonaws.com"
SANDBOX, LIVE = "sandbox", "live"
QUESTIONS_BATCH = "mturk-questions"   # a batch of prepared question files (no gold checks, no decisions)
# MTurk system qualification types.
LOCALE_QUALIFICATION = "00000000000000000071"
APPROVAL_RATE_QUALIFICATION = "000000000000000000L0"
APPROVED_HITS_QUALIFICATION = "00000000000000000040"
ASSIGNMENT_STATUSES = ["Submitted", "Approved", "Rejected"]
ANSWER_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"
SUBMITTED, APPROVED, REJECTED = ASSIGNMENT_STATUSES
# What the ledger keeps of an MTurk assignment in its meta (besides id, worker, HIT, status, submit time).
ASSIGNMENT_META = ("AcceptTime", "AutoApprovalTime", "ApprovalTime", "RejectionTime", "RequesterFeedback")
# MTurk's commission: 20% of the reward (at least $0.01) per assignment, 40% for HITs with 10+ assignments.
FEE_RATE, LARGE_HIT_FEE_RATE, LARGE_HIT_ASSIGNMENTS, MIN_FEE = Decimal("0.20"), Decimal("0.40"), 10, Decimal("0.01")
CENT = Decimal("0.01")
PAST = datetime.datetime(2015, 1, 1, tzinfo=datetime.timezone.utc)  # ExpireAt in the past expires a HIT now
HIT_ID_RE = re.compile(r"\b[A-Z0-9]{30}\b")


class MTurkFailure(RuntimeError):
    """An MTurk call failed; the message says what is already recorded and how to resume."""


@dataclasses.dataclass(frozen=True)
class HitTypeSettings:
    """The HIT type workers see: reward (USD per HIT), timing and worker requirements.

    The reward follows PiC, Appendix J: "Per 30 verified answers in around ~20 minutes, the verification
    process costs us $5.6 (AMT fees included)"; $4.67 plus MTurk's 20% fee ($0.93) is $5.60 for one HIT of
    30 questions (the default), about $16.80 an hour.
    """
    reward: str = "4.67"
    assignment_duration: int = 60 * 60
    lifetime: int = 7 * 24 * 60 * 60
    auto_approval_delay: int = 3 * 24 * 60 * 60
    locales: tuple = ("US", "GB", "CA", "AU", "NZ", "IE")
    min_approval_rate: int = 98
    min_approved_hits: int = 1000
    title: str = "Do these phrases mean the same? (Wikipedia passages)"
    description: str = ("Read short Wikipedia passages and say whether a phrase can be replaced by another, "
                        "or whether it means the same in two passages.")
    keywords: str = "language, meaning, paraphrase, reading, English"

    def __post_init__(self):
        problem = amount_problem(self.reward, whole_cents=True)
        if problem:
            raise InputError(f"--reward {self.reward}: {problem}")

    def as_meta(self):
        return {**dataclasses.asdict(self), "locales": list(self.locales)}


# -- money -----------------------------------------------------------------------------------------

def amount_problem(text, whole_cents=False):
    """What is wrong with `text` as an amount in USD ('' if nothing): it must be a finite number of at least
    one cent (NaN, Infinity and negatives are refused), in whole cents when `whole_cents`."""
    try:
        amount = Decimal(str(text).strip())
    except ArithmeticError:
        return "not an amount in USD; give a number such as 1.50"
    if not amount.is_finite() or amount < CENT:
        return "must be a finite amount of at least 0.01 USD (such as 1.50)"
    if whole_cents and amount != amount.quantize(CENT):
        return "must be in whole cents (such as 1.50)"
    return ""


def batch_cost(reward, assignments, hits):
    """{'rewards', 'fees', 'total'} in USD (Decimal) of `hits` HITs with `assignments` assignments each."""
    reward = Decimal(reward)
    rate = LARGE_HIT_FEE_RATE if assignments >= LARGE_HIT_ASSIGNMENTS else FEE_RATE
    fee = max(MIN_FEE, (reward * rate).quantize(CENT, rounding=ROUND_HALF_UP))
    count = assignments * hits
    return {"rewards": reward * count, "fees": fee * count, "total": (reward + fee) * count}


def describe_cost(cost, hits, assignments, reward):
    return (f"{hits} HIT(s) x {assignments} assignment(s) x ${Decimal(reward):.2f} = ${cost['rewards']:.2f} "
            f"+ MTurk fees ${cost['fees']:.2f} = ${cost['total']:.2f}")


def check_budget(cost, max_spend, live):
    """Refuse (InputError) a live run without a cap, or any run whose total exceeds the cap."""
    if live and max_spend is None:
        raise InputError("--live spends real money: give --max-spend USD (the most this batch may cost)")
    if max_spend is not None and amount_problem(max_spend):
        raise InputError(f"--max-spend {max_spend}: {amount_problem(max_spend)}")
    if max_spend is not None and cost["total"] > Decimal(str(max_spend)):
        raise InputError(f"this batch costs ${cost['total']:.2f}, above --max-spend ${Decimal(str(max_spend)):.2f}; "
                         "raise the cap, or plan fewer HITs or assignments")


def announce_cost(batch_id, plan, what, live, max_spend, say=print):
    """Say the batch's full cost, then refuse it above `max_spend` (or `live` without a cap), before any call."""
    reward, assignments, hits = plan["hit_type"]["reward"], assignments_per_hit(plan), len(plan["hits"])
    cost = batch_cost(reward, assignments, hits)
    say(f"batch {batch_id} [{environment(live)}]: {what} in " + describe_cost(cost, hits, assignments, reward))
    check_budget(cost, max_spend, live)


def assignments_per_hit(plan):
    """MaxAssignments of a batch's HITs (round-1 plans keep it in their settings)."""
    return plan["assignments"] if plan["kind"] == QUESTIONS_BATCH else plan["settings"]["assignments"]


def check_balance(client, ledger, batch_id, plan):
    """Refuse (InputError) when the account holds less than the HITs still to create cost."""
    with ledger.read() as q:
        to_create = len(plan["hits"]) - len(q.hits(batch_id))
    still = batch_cost(plan["hit_type"]["reward"], assignments_per_hit(plan), to_create)["total"]
    balance = Decimal(client.get_account_balance()["AvailableBalance"])
    if balance < still:
        raise InputError(f"the MTurk account holds ${balance:.2f}, less than the ${still:.2f} the {to_create} "
                         "HIT(s) still to create cost; prepay more on the requester site first")


# -- client and answers ----------------------------------------------------------------------------

def mturk_client(live, profile=None):
    """A boto3 MTurk client on the sandbox (default) or production endpoint, credentials from boto3's chain."""
    import boto3
    from botocore.config import Config
    session = boto3.Session(profile_name=profile)
    return session.client("mturk", region_name=REGION, endpoint_url=LIVE_ENDPOINT if live else SANDBOX_ENDPOINT,
                          config=Config(retries={"mode": "standard", "max_attempts": 5}))


def environment(live):
    return LIVE if live else SANDBOX


def require_environment(plan, live, batch_id):
    """Refuse to touch a batch's HITs on the other endpoint than the one it was created on."""
    if plan.get("environment") != environment(live):
        flag = "with --live" if plan.get("environment") == LIVE else "without --live"
        raise InputError(f"batch {batch_id!r} lives in the MTurk {plan.get('environment')}; run this verb {flag}")


def fields_from_answer_xml(xml):
    """{QuestionIdentifier: value} of an MTurk QuestionFormAnswers document (one per posted form field)."""
    fields = {}
    for answer in ET.fromstring(xml):
        if answer.tag.rsplit("}", 1)[-1] != "Answer":
            continue
        parts = {child.tag.rsplit("}", 1)[-1]: (child.text or "") for child in answer}
        fields[parts.get("QuestionIdentifier", "")] = parts.get("FreeText", parts.get("SelectionIdentifier", ""))
    return fields


def answer_xml(fields):
    """The QuestionFormAnswers document of posted fields {name: value} (the inverse of fields_from_answer_xml)."""
    root = ET.Element("QuestionFormAnswers", xmlns=ANSWER_NS)
    for name, value in fields.items():
        answer = ET.SubElement(root, "Answer")
        ET.SubElement(answer, "QuestionIdentifier").text = name
        ET.SubElement(answer, "FreeText").text = value
    return ET.tostring(root, encoding="unicode")


def _iso(value):
    return value.isoformat() if isinstance(value, datetime.datetime) else value


def _error_text(err):
    error = err.response.get("Error", {})
    return f"{error.get('Code', 'error')}: {error.get('Message', '')}".strip()


# -- create ----------------------------------------------------------------------------------------

def ensure_qualification_type(client, plan):
    """Id of the qualification type whose test is the plan's gold questions (found by name, else created)."""
    test = round1.qualification_test(plan)
    for page in client.get_paginator("list_qualification_types").paginate(
            Query=test.name, MustBeRequestable=True, MustBeOwnedByCaller=True):
        for found in page["QualificationTypes"]:
            if found["Name"] == test.name:
                return found["QualificationTypeId"]
    created = client.create_qualification_type(
        Name=test.name, Keywords="language, meaning, paraphrase", Description=test.description,
        QualificationTypeStatus="Active", Test=test.test_xml, TestDurationInSeconds=test.seconds,
        AnswerKey=test.answer_key)
    return created["QualificationType"]["QualificationTypeId"]


def qualification_requirements(hit_type, test=None):
    """Locale, approval-rate and approved-HIT requirements, plus the qualification test `test` =
    (qualification type id, pass mark) when the batch has one."""
    requirements = []
    if hit_type.locales:
        requirements.append({"QualificationTypeId": LOCALE_QUALIFICATION, "Comparator": "In",
                             "LocaleValues": [{"Country": c} for c in hit_type.locales],
                             "ActionsGuarded": "DiscoverPreviewAndAccept"})
    if hit_type.min_approval_rate:
        requirements.append({"QualificationTypeId": APPROVAL_RATE_QUALIFICATION, "Comparator": "GreaterThanOrEqualTo",
                             "IntegerValues": [hit_type.min_approval_rate], "ActionsGuarded": "PreviewAndAccept"})
    if hit_type.min_approved_hits:
        requirements.append({"QualificationTypeId": APPROVED_HITS_QUALIFICATION, "Comparator": "GreaterThanOrEqualTo",
                             "IntegerValues": [hit_type.min_approved_hits], "ActionsGuarded": "PreviewAndAccept"})
    if test is not None:
        requirements.append({"QualificationTypeId": test[0], "Comparator": "GreaterThanOrEqualTo",
                             "IntegerValues": [test[1]], "ActionsGuarded": "Accept"})
    return requirements


def ensure_hit_type(client, hit_type, test=None):
    """The HIT type id (MTurk returns the same id for the same properties, so this is idempotent)."""
    keywords = {"Keywords": hit_type.keywords} if hit_type.keywords else {}
    return client.create_hit_type(
        AutoApprovalDelayInSeconds=hit_type.auto_approval_delay,
        AssignmentDurationInSeconds=hit_type.assignment_duration, Reward=hit_type.reward,
        Title=hit_type.title, Description=hit_type.description, **keywords,
        QualificationRequirements=qualification_requirements(hit_type, test),
    )["HITTypeId"]


def ensure_hit_type_for_plan(client, ledger, batch_id, plan):
    """{[qualification_type_id,] hit_type_id} of the batch, made (idempotently) and kept in its plan.

    Round-1 batches require their qualification test; question-file batches only the worker record."""
    ids, test = {}, None
    if plan["kind"] != QUESTIONS_BATCH:
        settings = round1.settings_of(plan)
        ids["qualification_type_id"] = (plan.get("qualification_type_id")
                                        or ensure_qualification_type(client, plan))
        test = (ids["qualification_type_id"], settings.qualification_pass)
    ids["hit_type_id"] = ensure_hit_type(client, HitTypeSettings(**plan["hit_type"]), test)
    plan.update(ids)   # recorded with the plan when the batch is recorded
    with ledger.transaction() as tx:
        if tx.batch(batch_id) is not None:
            tx.update_batch(batch_id, meta=ids)
    return ids


def worker_url(live, group_id):
    """Where workers find the batch's HITs."""
    site = "https://worker.mturk.com" if live else "https://workersandbox.mturk.com"
    return f"{site}/projects/{group_id}/tasks"


def token_already_used(err):
    """Whether MTurk refused a create because its UniqueRequestToken was already used."""
    error = err.response.get("Error", {})
    text = f"{error.get('Message', '')} {err.response.get('TurkErrorCode', '')} {error.get('TurkErrorCode', '')}"
    return bool(re.search(r"HitAlreadyExists|idempotency token|already (been processed|exists)", text, re.I))


def find_hit_by_token(client, token, message):
    """The HIT created earlier with this token: the id MTurk names in its error, else a search by annotation."""
    for hit_id in HIT_ID_RE.findall(message):
        try:
            hit = client.get_hit(HITId=hit_id)["HIT"]
        except ClientError:
            continue
        if hit.get("RequesterAnnotation") == token:
            return hit
    for page in client.get_paginator("list_hits").paginate():
        for hit in page["HITs"]:
            if hit.get("RequesterAnnotation") == token:
                return hit
    raise MTurkFailure(f"MTurk says request token {token} was used, but no HIT of this account carries it; "
                       "check the MTurk requester site before retrying")


def question_xmls(plan, pages):
    """{token: HTMLQuestion XML} of every HIT in the plan (all checked against MTurk's size limit first)."""
    practice = round1.practice_of(plan)
    try:
        return {token: hit_pages.html_question_xml(hit_pages.html_question_page(questions, practice))
                for token, questions in pages.items()}
    except ValueError as err:
        raise InputError(str(err)) from None


def create_hits(client, ledger, batch_id, plan, questions, hit_type_id):
    """Create the plan's HITs that the ledger does not have yet; returns how many were created or found.

    Each HIT is sent with its deterministic UniqueRequestToken and recorded in the ledger at once (with
    its plan entry, less the token, as meta), so a retried create never makes a duplicate: a token MTurk
    has already seen is resolved to its HIT. A new batch is recorded (`round1.record_plan`) in the
    transaction of its first HIT: until MTurk accepts one, its items stay free for any other batch.
    """
    assignments, hit_type = assignments_per_hit(plan), HitTypeSettings(**plan["hit_type"])
    with ledger.read() as q:
        done = {hit["request_token"] for hit in q.hits(batch_id)}
    created = 0
    for number, planned in enumerate(plan["hits"], start=1):
        token = planned["token"]
        if token in done:
            continue
        try:
            hit = client.create_hit_with_hit_type(
                HITTypeId=hit_type_id, MaxAssignments=assignments, LifetimeInSeconds=hit_type.lifetime,
                Question=questions[token], RequesterAnnotation=token, UniqueRequestToken=token)["HIT"]
        except ClientError as err:
            if not token_already_used(err):
                recorded = (f"{created} new HIT(s) are recorded" if done or created else
                            f"batch {batch_id!r} is not recorded and its items still wait for verification")
                raise MTurkFailure(f"creating HIT {number} of {len(plan['hits'])} failed ({_error_text(err)}); "
                                   f"{recorded}; run the same command again to resume "
                                   "(request tokens make retries safe)") from None
            log.info("request token of HIT %d was already used; looking the HIT up", number)
            hit = find_hit_by_token(client, token, err.response.get("Error", {}).get("Message", ""))
        with ledger.transaction() as tx:
            if tx.batch(batch_id) is None:
                round1.record_plan(tx, batch_id, plan)
            tx.add_hit(hit["HITId"], batch_id,
                       [s for s in planned.get("slots", ()) if not s.startswith(round1.GOLD_PREFIX)],
                       request_token=token, hit_type_id=hit["HITTypeId"], status=hit["HITStatus"],
                       meta={**{k: v for k, v in planned.items() if k != "token"}, "group_id": hit.get("HITGroupId")})
        created += 1
    return created


def create_round1_batch(ledger, run_dir, batch_id, gold_path, settings, hit_type, *, live, max_spend, limit=None,
                        profile=None, say=print):
    """Plan a round-1 batch, announce its cost (refused above `max_spend`), then create its HITs."""
    plan, _ = round1.plan_batch(ledger, batch_id, round1.API_BATCH, gold_path, settings,
                                {"environment": environment(live), "hit_type": hit_type.as_meta()}, limit=limit)
    announce_cost(batch_id, plan, f"{len(plan['items'])} questions", live, max_spend, say=say)
    questions = question_xmls(plan, round1.hit_pages_of(run_dir, plan))
    create_planned_hits(mturk_client(live, profile), ledger, batch_id, plan, questions, live, say=say)


def create_planned_hits(client, ledger, batch_id, plan, questions, live, say=print):
    """Check the balance (`live`), make the HIT type, create the HITs not recorded yet, say where workers find them."""
    if live:
        check_balance(client, ledger, batch_id, plan)
    ids = ensure_hit_type_for_plan(client, ledger, batch_id, plan)
    created = create_hits(client, ledger, batch_id, plan, questions, ids["hit_type_id"])
    test = f"qualification test {ids['qualification_type_id']}, " if "qualification_type_id" in ids else ""
    say(f"{created} HIT(s) created now; {len(plan['hits'])} in the batch; {test}HIT type {ids['hit_type_id']}")
    with ledger.read() as q:
        groups = sorted({hit["meta"].get("group_id") for hit in q.hits(batch_id)} - {None})
    for group_id in groups:
        say(f"workers find them at {worker_url(live, group_id)}")


# -- status, save, review, expire, delete ----------------------------------------------------------

def hit_statuses(client, ledger, batch_id):
    """[{hit_id, status, available, pending, completed}] from MTurk, with each status recorded."""
    with ledger.read() as q:
        hit_ids = [hit["hit_id"] for hit in q.hits(batch_id)]
    rows = []
    for hit_id in hit_ids:
        hit = client.get_hit(HITId=hit_id)["HIT"]
        with ledger.transaction() as tx:
            tx.update_hit(hit_id, hit["HITStatus"])
        rows.append({"hit_id": hit_id, "status": hit["HITStatus"],
                     "available": hit.get("NumberOfAssignmentsAvailable", 0),
                     "pending": hit.get("NumberOfAssignmentsPending", 0),
                     "completed": hit.get("NumberOfAssignmentsCompleted", 0)})
    return rows


def assignment_meta(assignment):
    """What the ledger keeps of an MTurk assignment besides its id, worker, status and answers."""
    return {key: _iso(assignment[key]) for key in ASSIGNMENT_META if assignment.get(key) is not None}


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
                                     hit_id=hit["hit_id"], submitted_at=_iso(assignment.get("SubmitTime")), meta=meta)
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
        approve = verdict["valid"] or approve_all
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
                raise MTurkFailure(f"reviewing assignment {verdict['assignment_id']} failed ({_error_text(err)}); "
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


def expire_hits(client, ledger, batch_id):
    """Stop every HIT of the batch from taking new workers (submitted work stays); returns the count."""
    with ledger.read() as q:
        hit_ids = [hit["hit_id"] for hit in q.hits(batch_id)]
    for hit_id in hit_ids:
        client.update_expiration_for_hit(HITId=hit_id, ExpireAt=PAST)
    hit_statuses(client, ledger, batch_id)
    return len(hit_ids)


def delete_hits(client, ledger, batch_id):
    """Delete the batch's finished HITs from MTurk, refusing any whose assignments are not all saved.

    Returns {hit_id: outcome}.
    """
    with ledger.read() as q:
        hits = q.hits(batch_id)
        saved = {}
        for assignment in q.assignments(batch_id=batch_id):
            saved[assignment["hit_id"]] = saved.get(assignment["hit_id"], 0) + 1
    outcomes = {}
    for hit in hits:
        if hit["status"] == "Disposed":
            outcomes[hit["hit_id"]] = "already deleted"
            continue
        found = client.get_hit(HITId=hit["hit_id"])["HIT"]
        if found.get("NumberOfAssignmentsCompleted", 0) > saved.get(hit["hit_id"], 0):
            outcomes[hit["hit_id"]] = "kept: it has assignments not saved yet (run `mturk save` first)"
            continue
        try:
            client.delete_hit(HITId=hit["hit_id"])
        except ClientError as err:
            outcomes[hit["hit_id"]] = f"kept: {_error_text(err)}"
            continue
        with ledger.transaction() as tx:
            tx.update_hit(hit["hit_id"], "Disposed")
        outcomes[hit["hit_id"]] = "deleted"
    return outcomes
