"""`annotate mturk create|status|save|review|expire|delete` against botocore's Stubber on a real MTurk
client: every request is validated against the MTurk API model, and none leaves the machine."""
import xml.etree.ElementTree as ET

import pytest
from botocore.stub import ANY, Stubber

from annotation.mturk import hit_pages, client as mturk_client, fees as mturk_fees, hits as mturk_hits, round1
from picforge import mturk_xml
from picforge import ledger as L

from mturk_support import (NOW, SCRIPT, answer_xml, gold_bank, hit_id, hit_record, make_run, real_client,
                           record_calls, write_gold)

BATCH = "b1"
# The CLI options of `create` below, as library settings (for drafting the same deterministic plan).
SETTINGS = round1.Round1Settings(questions_per_hit=4, assignments=3, min_worker_gold=3)
HIT_TYPE = mturk_hits.HitTypeSettings(reward="0.50")


@pytest.fixture
def env(tmp_path, monkeypatch, annotate, ledger_url):
    run_dir, ledger = make_run(tmp_path, ledger_url)
    gold = write_gold(tmp_path / "gold.jsonl")
    client = real_client()
    monkeypatch.setattr(mturk_client, "mturk_client", lambda live, profile=None: client)
    stubber = Stubber(client)
    stubber.activate()
    create = ["annotate", "mturk", "create", "--run", run_dir, "--batch", BATCH, "--gold", gold,
              "--questions-per-hit", "4", "--assignments", "3", "--reward", "0.50",
              "--min-worker-gold", "3"]  # a worker of the 3 HITs answers 3 distinct checks: judge on them
    yield {"run": run_dir, "gold": gold, "ledger": ledger, "client": client, "stubber": stubber, "create": create,
           "batch_args": ["--run", run_dir, "--batch", BATCH],
           "cli": lambda argv: annotate(*argv[1:])}
    stubber.deactivate()
    ledger.dispose()


def planned_tokens(env):
    """The request tokens `create` will use: the plan is a pure function of batch name, ledger and options."""
    plan, _ = round1.plan_batch(env["ledger"], BATCH, round1.API_BATCH, env["gold"], SETTINGS,
                                {"environment": "sandbox", "hit_type": HIT_TYPE.as_meta()})
    return [hit["token"] for hit in plan["hits"]]


def expect_qualification_type(stubber):
    stubber.add_response("list_qualification_types", {"NumResults": 0, "QualificationTypes": []},
                         {"Query": ANY, "MustBeRequestable": True, "MustBeOwnedByCaller": True})
    stubber.add_response("create_qualification_type", {"QualificationType": {"QualificationTypeId": "QT1"}}, {
        "Name": ANY, "Keywords": ANY, "Description": ANY, "QualificationTypeStatus": "Active", "Test": ANY,
        "TestDurationInSeconds": ANY, "AnswerKey": ANY})


def expect_hit_type(stubber):
    stubber.add_response("create_hit_type", {"HITTypeId": "HT1"}, {
        "AutoApprovalDelayInSeconds": ANY, "AssignmentDurationInSeconds": ANY, "Reward": "0.50", "Title": ANY,
        "Keywords": ANY, "Description": ANY, "QualificationRequirements": ANY})


def create_params(token):
    """What create_hit_with_hit_type must be sent for the HIT with this request token."""
    return {"HITTypeId": "HT1", "MaxAssignments": 3, "LifetimeInSeconds": ANY, "Question": ANY,
            "RequesterAnnotation": token, "UniqueRequestToken": token}


def expect_create(stubber, token, n):
    stubber.add_response("create_hit_with_hit_type", {"HIT": hit_record(n, token)}, create_params(token))


def create_batch(env):
    """`mturk create` with every call succeeding; returns the requests sent."""
    calls = record_calls(env["client"])
    expect_qualification_type(env["stubber"])
    expect_hit_type(env["stubber"])
    for n, token in enumerate(planned_tokens(env), start=1):
        expect_create(env["stubber"], token, n)
    assert env["cli"](env["create"]) == 0
    env["stubber"].assert_no_pending_responses()
    return calls


def test_create_prints_cost_and_sends_qualification_test_hit_type_and_escaped_pages(env, capsys):
    calls = create_batch(env)
    out = capsys.readouterr().out
    # 3 annotations x 3 questions = 9 items, 3 per HIT beside 1 gold check: 3 HITs x 3 assignments x $0.50.
    assert "9 questions in 3 HIT(s) x 3 assignment(s) x $0.50 = $4.50 + MTurk fees $0.90 = $5.40" in out
    assert "https://workersandbox.mturk.com/projects/GRP1/tasks" in out

    sent = dict(calls)
    ns = {"q": hit_pages.QUESTION_FORM_NS, "k": hit_pages.ANSWER_KEY_NS}
    test = ET.fromstring(sent["CreateQualificationType"]["Test"])
    key = ET.fromstring(sent["CreateQualificationType"]["AnswerKey"])
    asked = [q.find("q:QuestionIdentifier", ns).text for q in test.findall("q:Question", ns)]
    keyed = {q.find("k:QuestionIdentifier", ns).text: q.find("k:AnswerOption/k:SelectionIdentifier", ns).text
             for q in key.findall("k:Question", ns)}
    bank = {g["gold_id"]: g for g in gold_bank()}
    assert len(asked) == 6 and keyed == {g: ("yes" if bank[g]["answer"] else "no") for g in asked}
    requirements = {r["QualificationTypeId"]: r for r in sent["CreateHITType"]["QualificationRequirements"]}
    assert requirements["QT1"]["Comparator"] == "GreaterThanOrEqualTo" and requirements["QT1"]["IntegerValues"] == [5]
    assert {"Country": "US"} in requirements[mturk_hits.LOCALE_QUALIFICATION]["LocaleValues"]
    assert requirements[mturk_hits.APPROVAL_RATE_QUALIFICATION]["IntegerValues"] == [98]

    pages = "".join(ET.fromstring(params["Question"]).find(f"{{{mturk_xml.HTML_QUESTION_NS}}}HTMLContent").text
                    for op, params in calls if op == "CreateHITWithHITType")
    assert SCRIPT not in pages and "&lt;script&gt;alert(1)&lt;/script&gt;" in pages
    assert "large number" in pages and "unsolved crime" in pages      # the experts' paraphrases are asked about
    assert "same_meaning" not in pages and "data-answer" in pages     # practice only; no expert Y/N anywhere
    for gold_id in asked:                                             # test questions never shown in the HITs
        assert bank[gold_id]["passage1"] not in pages
    tokens = planned_tokens(env)
    with env["ledger"].read() as q:
        hits = {h["request_token"]: h for h in q.hits(BATCH)}
        assert q.batch(BATCH)["meta"]["qualification_type_id"] == "QT1"
    assert [hits[t]["hit_id"] for t in tokens] == [hit_id(1), hit_id(2), hit_id(3)]


def test_create_retried_after_a_failure_reuses_tokens_and_never_duplicates(env, capsys):
    stubber = env["stubber"]
    first, second, third = planned_tokens(env)
    expect_qualification_type(stubber)
    expect_hit_type(stubber)
    expect_create(stubber, first, 1)
    stubber.add_client_error("create_hit_with_hit_type", service_error_code="ServiceFault", http_status_code=500,
                             service_message="We encountered an internal error. Please try again.",
                             expected_params=create_params(second))
    assert env["cli"](env["create"]) == 1
    assert "1 new HIT(s) are recorded; run the same command again" in capsys.readouterr().err
    with env["ledger"].read() as q:
        assert [h["request_token"] for h in q.hits(BATCH)] == [first]

    # The failed call had in fact reached MTurk: the retry's token is refused with the HIT's id in the message.
    expect_hit_type(stubber)
    stubber.add_client_error("create_hit_with_hit_type", service_error_code="RequestError", http_status_code=400,
                             service_message=f'The HIT with ID "{hit_id(2)}" already exists.',
                             modeled_fields={"TurkErrorCode": "AWS.MechanicalTurk.HitAlreadyExists"},
                             expected_params=create_params(second))
    stubber.add_response("get_hit", {"HIT": hit_record(2, second)}, {"HITId": hit_id(2)})
    expect_create(stubber, third, 3)
    assert env["cli"](env["create"]) == 0

    # A third run finds every HIT recorded and creates nothing.
    expect_hit_type(stubber)
    assert env["cli"](env["create"]) == 0
    stubber.assert_no_pending_responses()
    assert "0 HIT(s) created now; 3 in the batch" in capsys.readouterr().out
    with env["ledger"].read() as q:
        assert sorted((h["hit_id"], h["request_token"]) for h in q.hits(BATCH)) == [
            (hit_id(1), first), (hit_id(2), second), (hit_id(3), third)]


def test_used_token_without_hit_id_is_resolved_by_paging_through_hits(env):
    stubber = env["stubber"]
    first, second, third = planned_tokens(env)
    expect_qualification_type(stubber)
    expect_hit_type(stubber)
    expect_create(stubber, first, 1)
    stubber.add_client_error("create_hit_with_hit_type", service_error_code="ServiceFault", http_status_code=400,
                             service_message=f'The idempotency token "{second}" has already been processed.',
                             expected_params=create_params(second))
    stubber.add_response("list_hits", {"NextToken": "page-2", "NumResults": 1, "HITs": [hit_record(9, "someone-else")]}, {})
    stubber.add_response("list_hits", {"NumResults": 1, "HITs": [hit_record(2, second)]}, {"NextToken": "page-2"})
    expect_create(stubber, third, 3)
    assert env["cli"](env["create"]) == 0
    stubber.assert_no_pending_responses()
    with env["ledger"].read() as q:
        assert {h["request_token"]: h["hit_id"] for h in q.hits(BATCH)}[second] == hit_id(2)


@pytest.mark.parametrize("flags, message", [
    (["--live", "--max-spend", "5.00"], "this batch costs $5.40, above --max-spend $5.00"),
    (["--live"], "--live spends real money: give --max-spend USD"),
    (["--max-spend", "1"], "this batch costs $5.40, above --max-spend $1.00"),
])
def test_budget_refusal_makes_no_api_call_and_keeps_no_plan(env, capsys, flags, message):
    calls = record_calls(env["client"])
    assert env["cli"](env["create"] + flags) == 2
    assert message in capsys.readouterr().err
    assert calls == []
    with env["ledger"].read() as q:
        assert q.batch(BATCH) is None and q.hits() == []


def test_live_batch_within_budget_checks_the_account_balance_first(env, capsys):
    calls = record_calls(env["client"])
    env["stubber"].add_response("get_account_balance", {"AvailableBalance": "3.00"}, {})
    assert env["cli"](env["create"] + ["--live", "--max-spend", "10"]) == 2
    assert "holds $3.00, less than the $5.40 the 3 HIT(s) still to create cost" in capsys.readouterr().err
    assert [op for op, _ in calls] == ["GetAccountBalance"]


def test_a_sandbox_batch_is_not_touched_with_live(env, capsys):
    create_batch(env)
    assert env["cli"](["annotate", "mturk", "save", "--live", *env["batch_args"]]) == 2
    assert "lives in the MTurk sandbox; run this verb without --live" in capsys.readouterr().err


def _slots(env):
    with env["ledger"].read() as q:
        return {h["hit_id"]: h["meta"]["slots"] for h in q.hits(BATCH)}


def _answers(slots, wrong_gold=False, disagree_on=()):
    """Posted fields of a worker who agrees with the experts except on `disagree_on` (and gold if asked)."""
    bank = {g["gold_id"]: g for g in gold_bank()}
    fields = {}
    for n, slot in enumerate(slots, start=1):
        if slot.startswith(round1.GOLD_PREFIX):
            right = bank[slot[len(round1.GOLD_PREFIX):]]["answer"]
            yes = right != wrong_gold
        else:
            agreeing = not slot.endswith("/q3")   # every expert said Q3 = N (different meanings)
            yes = agreeing != (slot in disagree_on)
        fields[f"answer_{n}"] = "yes" if yes else "no"
    fields["comments"] = "clear passages"
    return fields


def _assignment(aid, worker, hit, fields, status="Submitted"):
    return {"AssignmentId": aid, "WorkerId": worker, "HITId": hit, "AssignmentStatus": status,
            "AcceptTime": NOW, "SubmitTime": NOW, "AutoApprovalTime": NOW.replace(year=2099),  # far off: held work stays held
            "Answer": answer_xml(fields)}


def _worker_assignments(env, status="Submitted"):
    """Per HIT: W1 agrees everywhere, W2 disagrees on the first item of HIT 1, W3 fails the gold check."""
    slots = _slots(env)
    first_item = next(s for s in slots[hit_id(1)] if not s.startswith(round1.GOLD_PREFIX))
    result = {}
    for n in (1, 2, 3):
        h = hit_id(n)
        result[h] = [_assignment(f"A{n}1", "W1", h, _answers(slots[h]), status),
                     _assignment(f"A{n}2", "W2", h, _answers(slots[h], disagree_on=(first_item,) if n == 1 else ()),
                                 status),
                     _assignment(f"A{n}3", "W3", h, _answers(slots[h], wrong_gold=True), status)]
    return result, first_item


def expect_save(stubber, assignments):
    """HIT 1 answers in two pages (NextToken), the others in one."""
    statuses = ["Submitted", "Approved", "Rejected"]
    for h, found in assignments.items():
        if h == hit_id(1):
            stubber.add_response("list_assignments_for_hit",
                                 {"NextToken": "more", "NumResults": 2, "Assignments": found[:2]},
                                 {"HITId": h, "AssignmentStatuses": statuses, "MaxResults": 100})
            stubber.add_response("list_assignments_for_hit", {"NumResults": 1, "Assignments": found[2:]},
                                 {"HITId": h, "AssignmentStatuses": statuses, "MaxResults": 100, "NextToken": "more"})
        else:
            stubber.add_response("list_assignments_for_hit", {"NumResults": 3, "Assignments": found},
                                 {"HITId": h, "AssignmentStatuses": statuses, "MaxResults": 100})


def test_save_pages_through_assignments_and_re_polling_adds_nothing(env, capsys):
    create_batch(env)
    assignments, _ = _worker_assignments(env)
    expect_save(env["stubber"], assignments)
    assert env["cli"](["annotate", "mturk", "save", *env["batch_args"]]) == 0
    assert "9 assignment(s) on MTurk, 9 in the ledger" in capsys.readouterr().out
    with env["ledger"].read() as q:
        first = q.dump()
        answers = q.answers(assignment_id="A11")
    assert len(first["assignments"]) == 9 and len(first["answers"]) == 9 * 5   # 4 answers + comments each
    slots = _slots(env)[hit_id(1)]
    assert {a["field"]: (a["item_id"], a["value"]) for a in answers} == {
        **{f"answer_{n}": (None if s.startswith("gold:") else s, _answers(slots)[f"answer_{n}"])
           for n, s in enumerate(slots, start=1)}, "comments": (None, "clear passages")}

    expect_save(env["stubber"], assignments)      # the same poll again
    assert env["cli"](["annotate", "mturk", "save", *env["batch_args"]]) == 0
    with env["ledger"].read() as q:
        assert q.dump() == first
    env["stubber"].assert_no_pending_responses()


def test_review_approves_rejects_by_gold_and_decides_by_majority(env, capsys):
    create_batch(env)
    assignments, first_item = _worker_assignments(env)
    expect_save(env["stubber"], assignments)
    assert env["cli"](["annotate", "mturk", "save", *env["batch_args"]]) == 0
    calls = record_calls(env["client"])
    for n in (1, 2, 3):
        for worker in (1, 2):
            env["stubber"].add_response("approve_assignment", {},
                                        {"AssignmentId": f"A{n}{worker}", "RequesterFeedback": ANY})
        env["stubber"].add_response("reject_assignment", {}, {"AssignmentId": f"A{n}3", "RequesterFeedback": ANY})
    assert env["cli"](["annotate", "mturk", "review", *env["batch_args"]]) == 0
    env["stubber"].assert_no_pending_responses()
    out = capsys.readouterr().out
    assert "approved 6, rejected 3 assignment(s)" in out
    assert "round 1: 8 item(s) accepted, 1 rejected (go to round 2), 0 waiting" in out
    feedback = {params["AssignmentId"]: params["RequesterFeedback"] for _, params in calls}
    assert feedback["A13"].startswith("1 of the 1 check question(s) with known answers were answered wrongly")
    assert feedback["A11"].startswith("Thank you")

    with env["ledger"].read() as q:
        statuses = {a["assignment_id"]: a["status"] for a in q.assignments(batch_id=BATCH)}
        decisions = q.decision_map(L.ROUND_MTURK)
    assert statuses == {f"A{n}{w}": ("Rejected" if w == 3 else "Approved") for n in (1, 2, 3) for w in (1, 2, 3)}
    # W1 and W2 are the valid votes; on the first item of HIT 1 they split 1-1: no majority, so round 2.
    assert decisions[first_item]["decision"] == L.REJECTED
    assert decisions[first_item]["reason"] == "1 of 2 valid assignment(s) agree with the expert"
    assert {iid: d["decision"] for iid, d in decisions.items() if iid != first_item} == {
        f"{t}/{k}": L.ACCEPTED for t in ("T1", "T2", "T3") for k in ("q1", "q2", "q3")
        if f"{t}/{k}" != first_item}
    assert sorted(v["worker"] for v in decisions[first_item]["detail"]["votes"]) == ["W1", "W2"]

    # Reviewing again calls nothing and changes nothing.
    with env["ledger"].read() as q:
        before = q.dump(with_times=True)
    assert env["cli"](["annotate", "mturk", "review", *env["batch_args"]]) == 0
    with env["ledger"].read() as q:
        assert q.dump(with_times=True) == before

    # Round 2 (the other half of annotate) takes exactly the round-1 rejection to the expert verifiers.
    assert env["cli"](["annotate", "export", "verify2", "--run", env["run"], "--verifiers", "vera"]) == 0
    with env["ledger"].read() as q:
        assert [i["item_id"] for b in q.batches(kind="verify2") for i in q.items(batch_id=b["batch_id"])] == [
            first_item]


def test_review_records_the_real_status_when_mturk_already_approved(env):
    create_batch(env)
    assignments, _ = _worker_assignments(env)
    expect_save(env["stubber"], {h: (a[:1] if h == hit_id(2) else []) for h, a in assignments.items()})
    assert env["cli"](["annotate", "mturk", "save", *env["batch_args"]]) == 0
    env["stubber"].add_client_error("approve_assignment", service_error_code="RequestError", http_status_code=400,
                                    service_message="This operation can be called with a status of: Submitted",
                                    expected_params={"AssignmentId": "A21", "RequesterFeedback": ANY})
    env["stubber"].add_response("get_assignment", {"Assignment": {**assignments[hit_id(2)][0],
                                                                  "AssignmentStatus": "Approved"}},
                                {"AssignmentId": "A21"})
    # --approve-all: the one worker has a single check answer, too few to judge, so review would hold them
    assert env["cli"](["annotate", "mturk", "review", *env["batch_args"], "--approve-all"]) == 0
    env["stubber"].assert_no_pending_responses()
    with env["ledger"].read() as q:
        assert [a["status"] for a in q.assignments(batch_id=BATCH)] == ["Approved"]
        assert q.decisions(round=L.ROUND_MTURK) == []       # 1 of 3 assignments: HITs not complete yet


def test_status_expire_and_delete(env, capsys):
    create_batch(env)
    tokens = planned_tokens(env)
    stubber = env["stubber"]
    for n, token in enumerate(tokens, start=1):
        stubber.add_response("get_hit", {"HIT": hit_record(n, token, completed=1)}, {"HITId": hit_id(n)})
    assert env["cli"](["annotate", "mturk", "status", *env["batch_args"]]) == 0
    assert "3 of 3 planned HIT(s) created; assignments available 6, pending 0, completed 3; 0 saved" in (
        capsys.readouterr().out)

    for n, token in enumerate(tokens, start=1):
        stubber.add_response("update_expiration_for_hit", {}, {"HITId": hit_id(n), "ExpireAt": mturk_hits.PAST})
    for n, token in enumerate(tokens, start=1):
        stubber.add_response("get_hit", {"HIT": hit_record(n, token, status="Reviewable", completed=3)},
                             {"HITId": hit_id(n)})
    assert env["cli"](["annotate", "mturk", "expire", *env["batch_args"]]) == 0
    with env["ledger"].read() as q:
        assert {h["status"] for h in q.hits(BATCH)} == {"Reviewable"}

    # Only HIT 1's work is saved: HITs 2 and 3 are kept so their answers are not lost.
    assignments, _ = _worker_assignments(env)
    expect_save(env["stubber"], {h: (a if h == hit_id(1) else []) for h, a in assignments.items()})
    assert env["cli"](["annotate", "mturk", "save", *env["batch_args"]]) == 0
    for n, token in enumerate(tokens, start=1):
        stubber.add_response("get_hit", {"HIT": hit_record(n, token, status="Reviewable", completed=3)},
                             {"HITId": hit_id(n)})
        if n == 1:
            stubber.add_response("delete_hit", {}, {"HITId": hit_id(1)})
    capsys.readouterr()
    assert env["cli"](["annotate", "mturk", "delete", *env["batch_args"]]) == 0
    stubber.assert_no_pending_responses()
    out = capsys.readouterr().out
    assert f"{hit_id(2)}  kept: it has assignments not saved yet" in out and "1 of 3 HIT(s) deleted" in out
    with env["ledger"].read() as q:
        assert {h["hit_id"]: h["status"] for h in q.hits(BATCH)}[hit_id(1)] == "Disposed"


@pytest.mark.parametrize("reward, assignments, hits, total", [
    ("0.50", 3, 3, "5.40"),    # 20% fee
    ("0.50", 10, 1, "7.00"),   # 40% fee from 10 assignments on
    ("0.02", 1, 5, "0.15"),    # at least $0.01 fee per assignment
])
def test_batch_cost_includes_mturk_fees(reward, assignments, hits, total):
    assert str(mturk_fees.batch_cost(reward, assignments, hits)["total"]) == total


def test_a_tampered_answer_is_kept_unusable_and_rejected_without_blocking_the_save(env, capsys):
    create_batch(env)
    assignments, _ = _worker_assignments(env)
    tampered = _assignment("A19", "W9", hit_id(1), {"answer_1": "yes", "answer_99": "yes"})
    expect_save(env["stubber"], {h: ([tampered] if h == hit_id(1) else a[:1]) for h, a in assignments.items()})
    assert env["cli"](["annotate", "mturk", "save", *env["batch_args"]]) == 0
    with env["ledger"].read() as q:
        saved = {a["assignment_id"]: a for a in q.assignments(batch_id=BATCH)}
        assert q.answers(assignment_id="A19") == [] and len(q.answers(assignment_id="A21")) == 5
    assert "answer_99: the HIT has only 4 questions" in saved["A19"]["meta"]["answer_error"]
    env["stubber"].add_response("reject_assignment", {}, {
        "AssignmentId": "A19", "RequesterFeedback": "The form came back without usable answers."})
    assert env["cli"](["annotate", "mturk", "review", *env["batch_args"]]) == 0
    env["stubber"].assert_no_pending_responses()
    # A21 and A31 are held, neither approved nor rejected: each of their workers answered one check question.
    assert "approved 0, rejected 1 assignment(s), 2 held" in capsys.readouterr().out


def _manual_export_takes_every_item(env, capsys):
    """The requester-UI path plans a batch of all 9 items (3 annotations x q1, q2, q3)."""
    capsys.readouterr()
    assert env["cli"](["annotate", "mturk", "export", "--run", env["run"], "--batch", "m1", "--gold", env["gold"],
                       "--questions-per-hit", "4", "--min-worker-gold", "3"]) == 0
    assert "batch m1: 3 HIT row(s), 9 questions" in capsys.readouterr().out


@pytest.mark.parametrize("fail_on", ["list_qualification_types", "create_hit_with_hit_type"])
def test_a_create_mturk_refused_records_no_batch_and_a_retry_resumes(env, capsys, fail_on):
    stubber = env["stubber"]
    if fail_on == "create_hit_with_hit_type":
        expect_qualification_type(stubber)
        expect_hit_type(stubber)
    stubber.add_client_error(fail_on, service_error_code="ServiceUnavailable", http_status_code=503,
                             service_message="The service is unavailable.")
    assert env["cli"](env["create"]) == 1
    err = capsys.readouterr().err
    assert "ServiceUnavailable" in err and err.count("\n") == 1
    if fail_on == "create_hit_with_hit_type":
        assert f"batch '{BATCH}' is not recorded and its items still wait for verification" in err
    with env["ledger"].read() as q:
        assert q.batch(BATCH) is None and q.hits() == [] and q.memberships("mturk") == {}
    stubber.assert_no_pending_responses()

    create_batch(env)          # the same command again creates the whole batch, with the same tokens
    with env["ledger"].read() as q:
        batch = q.batch(BATCH)
        assert len(q.hits(BATCH)) == 3 and len(q.items(batch_id=BATCH)) == 9
    assert (batch["meta"]["qualification_type_id"], batch["meta"]["hit_type_id"]) == ("QT1", "HT1")


def test_a_create_without_credentials_leaves_the_items_to_the_manual_path(tmp_path, monkeypatch, annotate,
                                                                         ledger_url, capsys):
    run_dir, ledger = make_run(tmp_path, ledger_url)
    gold = write_gold(tmp_path / "gold.jsonl")
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    assert annotate("mturk", "create", "--run", run_dir, "--batch", BATCH, "--gold", gold,
                    "--questions-per-hit", "4", "--min-worker-gold", "3") == 1
    assert "no AWS credentials found" in capsys.readouterr().err
    with ledger.read() as q:
        assert q.batch(BATCH) is None
    _manual_export_takes_every_item({"cli": lambda argv: annotate(*argv[1:]), "run": run_dir, "gold": gold}, capsys)
    ledger.dispose()


def test_cancel_batch_waits_for_deleted_hits_then_releases_the_items(env, capsys):
    create_batch(env)
    cancel = ["annotate", "cancel-batch", *env["batch_args"]]
    capsys.readouterr()
    assert env["cli"](cancel) == 2
    assert f"batch '{BATCH}' has 3 HIT(s) on MTurk ({hit_id(1)}, {hit_id(2)}, {hit_id(3)}); run " in (
        capsys.readouterr().err)
    for n, token in enumerate(planned_tokens(env), start=1):
        env["stubber"].add_response("get_hit", {"HIT": hit_record(n, token, status="Reviewable")}, {"HITId": hit_id(n)})
        env["stubber"].add_response("delete_hit", {}, {"HITId": hit_id(n)})
    assert env["cli"](["annotate", "mturk", "delete", *env["batch_args"]]) == 0
    env["stubber"].assert_no_pending_responses()
    assert env["cli"](cancel) == 0
    assert f"batch {BATCH}: cancelled; 9 item(s) released" in capsys.readouterr().out
    assert env["cli"](env["create"]) == 2
    assert f"batch '{BATCH}' was cancelled (its items went back to waiting); start a new --batch" in (
        capsys.readouterr().err)
    _manual_export_takes_every_item(env, capsys)


def test_re_polling_never_moves_a_reviewed_status_back(env):
    create_batch(env)
    assignments, _ = _worker_assignments(env)
    first = {h: a[:1] for h, a in assignments.items()}
    expect_save(env["stubber"], first)
    assert env["cli"](["annotate", "mturk", "save", *env["batch_args"]]) == 0
    for n in (1, 2, 3):
        env["stubber"].add_response("approve_assignment", {}, {"AssignmentId": f"A{n}1", "RequesterFeedback": ANY})
    assert env["cli"](["annotate", "mturk", "review", *env["batch_args"], "--final"]) == 0
    expect_save(env["stubber"], first)           # a stale answer still says Submitted
    assert env["cli"](["annotate", "mturk", "save", *env["batch_args"]]) == 0
    env["stubber"].assert_no_pending_responses()
    with env["ledger"].read() as q:
        saved = q.assignments(batch_id=BATCH)
    assert {a["status"] for a in saved} == {"Approved"}
    assert all(a["meta"]["review"].startswith("Thank you") for a in saved)     # the review is kept too


def test_review_block_blocks_each_worker_whose_gold_record_failed_once(env, capsys):
    # W3 answers the 3 distinct checks of the 3 HITs wrongly (the batch judges workers on 3: SETTINGS)
    create_batch(env)
    assignments, _ = _worker_assignments(env)
    expect_save(env["stubber"], assignments)
    assert env["cli"](["annotate", "mturk", "save", *env["batch_args"]]) == 0
    for n in (1, 2, 3):
        for worker, verb in ((1, "approve_assignment"), (2, "approve_assignment"), (3, "reject_assignment")):
            env["stubber"].add_response(verb, {}, {"AssignmentId": f"A{n}{worker}", "RequesterFeedback": ANY})
    env["stubber"].add_response("create_worker_block", {}, {"WorkerId": "W3", "Reason": ANY})
    capsys.readouterr()
    assert env["cli"](["annotate", "mturk", "review", *env["batch_args"], "--block"]) == 0
    env["stubber"].assert_no_pending_responses()
    assert "blocked W3 (their gold record failed)" in capsys.readouterr().out
    with env["ledger"].read() as q:
        blocks = [(b["worker_id"], b["batch_id"], b["how"]) for b in q.worker_blocks()]
        assert q.worker_blocks()[0]["reason"].startswith("Across your assignments you answered 0 of 3")
    assert blocks == [("W3", BATCH, "api")]
    assert env["cli"](["annotate", "mturk", "review", *env["batch_args"], "--block"]) == 0   # no second block call
    assert "no worker to block" in capsys.readouterr().out
