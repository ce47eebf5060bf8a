"""MTurk HITs, made idempotently and recorded in the ledger as MTurk returns them: qualification test (round 1),
HIT type, HITs (UniqueRequestToken per HIT, so a retry never creates one twice), status, expire and delete."""
import dataclasses
import datetime
import logging
import re

from botocore.exceptions import ClientError

from annotation.mturk import client as mturk_client, round1
from annotation.mturk.client import QUESTIONS_BATCH, MTurkFailure, environment, error_text
from annotation.mturk.fees import (amount_problem, announce_cost, assignments_per_hit, check_balance,
                                  check_can_ask_again)
from annotation.mturk.question_xml import question_xmls
from picforge.errors import InputError

log = logging.getLogger(__name__)

# MTurk system qualification types.
LOCALE_QUALIFICATION = "00000000000000000071"
APPROVAL_RATE_QUALIFICATION = "000000000000000000L0"
APPROVED_HITS_QUALIFICATION = "00000000000000000040"
PAST = datetime.datetime(2015, 1, 1, tzinfo=datetime.timezone.utc)  # ExpireAt in the past expires a HIT now
HIT_ID_RE = re.compile(r"\b[A-Z0-9]{30}\b")


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
                raise MTurkFailure(f"creating HIT {number} of {len(plan['hits'])} failed ({error_text(err)}); "
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
                        profile=None, say=print, at=None):
    """Plan a round-1 batch, announce its cost (refused above `max_spend`), then create its HITs (`at`: the run
    options the commands its errors name carry)."""
    plan, new = round1.plan_batch(ledger, batch_id, round1.API_BATCH, gold_path, settings,
                                  {"environment": environment(live), "hit_type": hit_type.as_meta()}, limit=limit,
                                  at=at or f"--run {run_dir}")
    say(round1.judging_line(plan, new))
    with ledger.read() as q:
        stranded = {} if new else round1.stranded_hits(q, batch_id, plan)
        asked = sum(hit["meta"].get("additional_assignments", 0) for hit in q.hits(batch_id))
    assignments = round1.settings_of(plan).assignments
    announce_cost(batch_id, plan, f"{len(plan['items'])} questions", live, max_spend, say=say,
                  asked_again=asked // assignments + len(stranded))
    questions = question_xmls(plan, round1.hit_pages_of(run_dir, plan))
    client = mturk_client.mturk_client(live, profile)
    create_planned_hits(client, ledger, batch_id, plan, questions, live, say=say, asked_again=len(stranded))
    for hit_id in stranded:
        ask_again(client, ledger, hit_id, assignments, plan["hit_type"]["lifetime"], say=say)
    if stranded:
        say(f"asked {len(stranded)} HIT(s) again ({assignments} more assignment(s) each): their items had no valid "
            "answer")


def ask_again(client, ledger, hit_id, assignments, lifetime, say=print):
    """Add `assignments` assignments to a HIT whose every assignment was rejected (CreateAdditionalAssignmentsForHIT,
    with a request token per round of asking, so a retry never asks twice) and record them in the HIT's meta; a HIT
    past its Expiration (MTurk's own date) is extended by `lifetime` seconds first (UpdateExpirationForHIT), or no
    worker could take the new assignments."""
    with ledger.read() as q:
        hit = next(h for h in q.hits() if h["hit_id"] == hit_id)
    added = hit["meta"].get("additional_assignments", 0)
    check_can_ask_again(hit_id, assignments, assignments + added, assignments)
    token = f"{hit['request_token'][:50]}-again{added // assignments + 1}"
    extend_if_expired(client, hit_id, lifetime, say)
    try:
        client.create_additional_assignments_for_hit(HITId=hit_id, NumberOfAdditionalAssignments=assignments,
                                                     UniqueRequestToken=token)
    except ClientError as err:
        if not token_already_used(err):
            raise MTurkFailure(f"asking HIT {hit_id} again failed ({error_text(err)}); run the same command again "
                               "(request tokens make retries safe)") from None
    with ledger.transaction() as tx:
        tx.update_hit(hit_id, meta={"additional_assignments": added + assignments})


def extend_if_expired(client, hit_id, lifetime, say=print):
    """Give a HIT whose Expiration (as MTurk reports it) has passed `lifetime` more seconds from MTurk's clock
    reading of that check (UpdateExpirationForHIT); extending costs nothing."""
    found = client.get_hit(HITId=hit_id)["HIT"]
    expires = found.get("Expiration")
    now = datetime.datetime.now(datetime.timezone.utc)
    if expires is None or expires > now:
        return
    until = now + datetime.timedelta(seconds=lifetime)
    client.update_expiration_for_hit(HITId=hit_id, ExpireAt=until)
    say(f"HIT {hit_id} had expired ({expires.isoformat(timespec='seconds')}): open again until "
        f"{until.isoformat(timespec='seconds')}")


def create_planned_hits(client, ledger, batch_id, plan, questions, live, say=print, asked_again=0):
    """Check the balance (`live`; the HITs to create and the `asked_again` HITs to ask again), make the HIT type,
    create the HITs not recorded yet, say where workers find them."""
    if live:
        check_balance(client, ledger, batch_id, plan, asked_again)
    ids = ensure_hit_type_for_plan(client, ledger, batch_id, plan)
    created = create_hits(client, ledger, batch_id, plan, questions, ids["hit_type_id"])
    test = f"qualification test {ids['qualification_type_id']}, " if "qualification_type_id" in ids else ""
    say(f"{created} HIT(s) created now; {len(plan['hits'])} in the batch; {test}HIT type {ids['hit_type_id']}")
    with ledger.read() as q:
        groups = sorted({hit["meta"].get("group_id") for hit in q.hits(batch_id)} - {None})
    for group_id in groups:
        say(f"workers find them at {worker_url(live, group_id)}")


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
            outcomes[hit["hit_id"]] = f"kept: {error_text(err)}"
            continue
        with ledger.transaction() as tx:
            tx.update_hit(hit["hit_id"], "Disposed")
        outcomes[hit["hit_id"]] = "deleted"
    return outcomes
