"""CoSimLex rating forms posted as MTurk HITs with `annotate mturk create-questions`, saved with
`mturk save --out` and read by `cosimlex ingest rating`. MTurk is botocore's Stubber on the real client
that `annotation.mturk.client.mturk_client` builds, so every request is checked against the MTurk API model."""
import datetime
import html.parser
import json
import pathlib
import xml.etree.ElementTree as ET

import pytest
from botocore.stub import ANY, Stubber

from annotation.mturk import client as mturk_client, hits as mturk_hits
from picforge.ledger import Ledger
from companions.cosimlex.stage_names import RATINGS, SELECTION
from picforge.cli import main
from picforge.rundir import RunDir
from tests.annotation.mturk_support import NOW, answer_xml, hit_id, hit_record

BATCH = "cosimlex-r1"
PAIRS = [("cup", "mug", "A cup of tea stood next to a mug.", "He won the cup and drank from a mug."),
         ("car", "bicycle", "The car overtook a bicycle.", "A bicycle is cheaper than a car."),
         ("bank", "money", "Tom & Jerry put <b>money</b> in the bank.", "The bank lent them money for the farm.")]
# 3 pairs, 2 per form: forms 0001A/0001B (2 items each) and 0002A/0002B (1 item each).
HIT_OPTIONS = ["--assignments", "3", "--reward", "0.80", "--title", "Word similarity in context",
               "--description", "Read short texts and rate how similar two words are in them"]


def _context(word1, word2, text, number):
    s1, s2 = text.index(word1), text.index(word2)
    return {"candidate_id": f"{word1}|{word2}@{number}", "page_id": number, "text": text, "edited": False,
            "word1_start": s1, "word1_end": s1 + len(word1), "word2_start": s2, "word2_end": s2 + len(word2)}


@pytest.fixture
def rating_run(tmp_path):
    """A run directory whose expert selection holds PAIRS, with the forms of the real `export rating`."""
    run = RunDir(str(tmp_path / "run"))
    selections = [{"pair_id": f"{w1}|{w2}", "pair_no": n, "word1": w1, "word2": w2, "pos": "N", "simlex": 5.0,
                   "expert": "ana", "sheet": "selection-ana.xlsx", "expected_difference": 1,
                   "expected_more_similar": 1, "context1": _context(w1, w2, t1, 10 * n + 1),
                   "context2": _context(w1, w2, t2, 10 * n + 2)} for n, (w1, w2, t1, t2) in enumerate(PAIRS)]
    run.write_stage(SELECTION, selections, "cosimlex_selection", inputs={}, options={})
    assert main(["cosimlex", "export", "rating", "--run", run.root, "--pairs-per-form", "2"]) == 0
    plan_path = run.join("cosimlex-exports", "rating", "plan.json")
    return run, plan_path, json.loads(pathlib.Path(plan_path).read_text())["forms"]


class StubbedMTurk:
    """Stands in for annotation.mturk.client.mturk_client: builds the real client, then serves the expected
    responses through a Stubber on it and records the endpoint and every request."""

    def __init__(self, build):
        self.build, self.expected, self.endpoints, self.calls, self.stubbers = build, [], [], [], []

    def expect(self, method, response, params):
        self.expected.append(lambda stubber: stubber.add_response(method, response, params))

    def expect_error(self, method, code, message, params, **fields):
        self.expected.append(lambda stubber: stubber.add_client_error(
            method, service_error_code=code, service_message=message, http_status_code=400,
            expected_params=params, modeled_fields=fields or None))

    def __call__(self, live, profile=None):
        client = self.build(live, profile)
        self.endpoints.append(client.meta.endpoint_url)
        client.meta.events.register("before-parameter-build.mturk",
                                    lambda params, model, **_: self.calls.append((model.name, dict(params))))
        stubber = Stubber(client)
        for add in self.expected:
            add(stubber)
        self.expected = []
        stubber.activate()
        self.stubbers.append(stubber)
        return client

    def assert_done(self):
        for stubber in self.stubbers:
            stubber.assert_no_pending_responses()


@pytest.fixture
def turk(monkeypatch, tmp_path):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    stubbed = StubbedMTurk(mturk_client.mturk_client)
    monkeypatch.setattr(mturk_client, "mturk_client", stubbed)
    return stubbed


def sandbox_token(entry):
    """The UniqueRequestToken of a form's HIT in the sandbox (the live endpoint gets the plan's token as is)."""
    return "sandbox-" + entry["request_token"]


def create_params(entry, token=sandbox_token):
    return {"HITTypeId": "HT1", "MaxAssignments": 3, "LifetimeInSeconds": ANY,
            "Question": pathlib.Path(entry["question_xml"]).read_text(encoding="utf-8"),
            "RequesterAnnotation": token(entry), "UniqueRequestToken": token(entry)}


def expect_hit_type(turk):
    turk.expect("create_hit_type", {"HITTypeId": "HT1"}, {
        "AutoApprovalDelayInSeconds": ANY, "AssignmentDurationInSeconds": ANY, "Reward": "0.80",
        "Title": "Word similarity in context", "Description": ANY, "QualificationRequirements": ANY})


def create(run, plan_path, *flags, batch=BATCH):
    return main(["annotate", "mturk", "create-questions", "--run", run.root, "--batch", batch,
                 "--questions", plan_path, *HIT_OPTIONS, *flags])


def verb(run, name, *flags):
    return main(["annotate", "mturk", name, "--run", run.root, "--batch", BATCH, *flags])


def create_all(turk, run, plan_path, forms):
    expect_hit_type(turk)
    for n, entry in enumerate(forms, start=1):
        turk.expect("create_hit_with_hit_type", {"HIT": hit_record(n, sandbox_token(entry))}, create_params(entry))
    assert create(run, plan_path, "--max-spend", "20") == 0
    turk.assert_done()


def hits_by_form(run, batch=BATCH):
    ledger = Ledger.for_run(run.root)
    with ledger.read() as q:
        return {hit["meta"]["form_id"]: hit for hit in q.hits(batch)}


def test_create_posts_every_form_once_on_the_sandbox_with_the_full_cost(turk, rating_run, capsys):
    run, plan_path, forms = rating_run
    create_all(turk, run, plan_path, forms)
    out = capsys.readouterr().out
    # 4 forms x 3 assignments x $0.80 = $9.60, plus MTurk's 20% fee ($0.16 per assignment).
    assert "4 HIT(s) x 3 assignment(s) x $0.80 = $9.60 + MTurk fees $1.92 = $11.52" in out
    assert "4 HIT(s) created now; 4 in the batch; HIT type HT1" in out
    assert "https://workersandbox.mturk.com/projects/GRP1/tasks" in out
    assert turk.endpoints == [mturk_client.SANDBOX_ENDPOINT]
    requirements = dict(turk.calls)["CreateHITType"]["QualificationRequirements"]
    assert {r["QualificationTypeId"] for r in requirements} == {
        mturk_hits.LOCALE_QUALIFICATION, mturk_hits.APPROVAL_RATE_QUALIFICATION,
        mturk_hits.APPROVED_HITS_QUALIFICATION}
    hits = hits_by_form(run)
    assert {form_id: hit["request_token"] for form_id, hit in hits.items()} == {
        entry["form_id"]: sandbox_token(entry) for entry in forms}
    assert hits["0001A"]["meta"]["exclusive_with"] == "0001B"

    # Posting the same plan again creates nothing; posting it under another batch name is refused.
    expect_hit_type(turk)
    assert create(run, plan_path, "--max-spend", "20") == 0
    assert "0 HIT(s) created now; 4 in the batch" in capsys.readouterr().out
    assert create(run, plan_path, batch="again") == 2
    assert f"belongs to HIT {hit_id(1)} of batch '{BATCH}'" in capsys.readouterr().err

    # After the sandbox trial the same forms go live as their own batch, with the plan's tokens as they are.
    turk.expect("get_account_balance", {"AvailableBalance": "50.00"}, {})
    expect_hit_type(turk)
    for n, entry in enumerate(forms, start=11):
        turk.expect("create_hit_with_hit_type", {"HIT": hit_record(n, sandbox_token(entry))},
                    create_params(entry, token=lambda e: e["request_token"]))
    assert create(run, plan_path, "--live", "--max-spend", "11.52", batch="live-1") == 0
    assert "https://worker.mturk.com/projects/GRP1/tasks" in capsys.readouterr().out
    assert turk.endpoints == [mturk_client.SANDBOX_ENDPOINT] * 2 + [mturk_client.LIVE_ENDPOINT]
    assert {f: h["request_token"] for f, h in hits_by_form(run, "live-1").items()} == {
        entry["form_id"]: entry["request_token"] for entry in forms}
    turk.assert_done()


def test_a_retry_after_a_lost_reply_finds_the_hit_by_its_token(turk, rating_run, capsys):
    run, plan_path, forms = rating_run
    first, second, *rest = forms
    expect_hit_type(turk)
    turk.expect("create_hit_with_hit_type", {"HIT": hit_record(1, sandbox_token(first))}, create_params(first))
    turk.expect_error("create_hit_with_hit_type", "ServiceFault", "We encountered an internal error.",
                      create_params(second))
    assert create(run, plan_path) == 1
    assert "1 new HIT(s) are recorded; run the same command again" in capsys.readouterr().err

    # The failed call had reached MTurk: its token is refused now, with the HIT's id in the message.
    expect_hit_type(turk)
    turk.expect_error("create_hit_with_hit_type", "RequestError", f'The HIT with ID "{hit_id(2)}" already exists.',
                      create_params(second), TurkErrorCode="AWS.MechanicalTurk.HitAlreadyExists")
    turk.expect("get_hit", {"HIT": hit_record(2, sandbox_token(second))}, {"HITId": hit_id(2)})
    for n, entry in enumerate(rest, start=3):
        turk.expect("create_hit_with_hit_type", {"HIT": hit_record(n, sandbox_token(entry))}, create_params(entry))
    assert create(run, plan_path) == 0
    turk.assert_done()
    assert sorted(hit["hit_id"] for hit in hits_by_form(run).values()) == [hit_id(n) for n in range(1, 5)]
    sent = [params["UniqueRequestToken"] for op, params in turk.calls if op == "CreateHITWithHITType"]
    assert sent == [sandbox_token(e) for e in (first, second, second, *rest)]


@pytest.mark.parametrize("flags, message", [
    (["--max-spend", "11.51"], "this batch costs $11.52, above --max-spend $11.51"),
    (["--live"], "--live spends real money: give --max-spend USD"),
    (["--live", "--max-spend", "10"], "this batch costs $11.52, above --max-spend $10.00"),
])
def test_over_budget_is_refused_before_any_call(turk, rating_run, capsys, flags, message):
    run, plan_path, _ = rating_run
    assert create(run, plan_path, *flags) == 2
    assert message in capsys.readouterr().err
    assert turk.endpoints == [] and turk.calls == []
    with Ledger.for_run(run.root).read() as q:
        assert q.batch(BATCH) is None


class _FormInputs(html.parser.HTMLParser):
    """The hidden inputs of a rating page (form_id and one itemN_id per item), as the form posts them."""

    def __init__(self):
        super().__init__()
        self.hidden = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("type") == "hidden" and attrs.get("name") != "assignmentId":
            self.hidden[attrs["name"]] = attrs["value"]


def posted_fields(entry, rating):
    """What a worker's rating form posts: its hidden fields, two inspired words and a rating per item."""
    question = ET.fromstring(pathlib.Path(entry["question_xml"]).read_text(encoding="utf-8"))
    inputs = _FormInputs()
    inputs.feed(question.find("{*}HTMLContent").text)
    fields = dict(inputs.hidden)
    for name in [n for n in inputs.hidden if n.endswith("_id") and n.startswith("item")]:
        item = name[:-len("_id")]
        fields |= {f"{item}_inspired1": "kitchen & tea", f"{item}_inspired2": "<morning>", f"{item}_rating": rating}
    return fields


def worker_assignments(forms):
    """Per HIT: workers W1, W2, W3 fill the form, rating every item 2, 4 and 6 respectively."""
    return {hit_id(n): [{"AssignmentId": f"A{n}{w}", "WorkerId": f"W{w}", "HITId": hit_id(n),
                         "AssignmentStatus": "Submitted", "AcceptTime": NOW, "SubmitTime": NOW + datetime.timedelta(
                             minutes=10 * n + w), "Answer": answer_xml(posted_fields(entry, str(2 * w)))}
                        for w in (1, 2, 3)]
            for n, entry in enumerate(forms, start=1)}


def expect_save(turk, assignments):
    """HIT 1's assignments in two pages, the others in one."""
    statuses = ["Submitted", "Approved", "Rejected"]
    for hit, found in assignments.items():
        first = found[:2] if hit == hit_id(1) else found
        turk.expect("list_assignments_for_hit",
                    {"NumResults": len(first), "Assignments": first, **({"NextToken": "p2"} if first != found else {})},
                    {"HITId": hit, "AssignmentStatuses": statuses, "MaxResults": 100})
        if first != found:
            turk.expect("list_assignments_for_hit", {"NumResults": 1, "Assignments": found[2:]},
                        {"HITId": hit, "AssignmentStatuses": statuses, "MaxResults": 100, "NextToken": "p2"})


def test_saved_assignments_are_ingested_as_ratings_and_re_polling_adds_nothing(turk, rating_run, tmp_path, capsys):
    run, plan_path, forms = rating_run
    create_all(turk, run, plan_path, forms)
    assignments = worker_assignments(forms)
    saved = tmp_path / "saved" / "assignments.jsonl"
    expect_save(turk, assignments)
    assert verb(run, "save", "--out", str(saved)) == 0
    assert "12 assignment(s) on MTurk, 12 in the ledger" in capsys.readouterr().out
    first_file = saved.read_text(encoding="utf-8")
    records = [json.loads(line) for line in first_file.splitlines()]
    assert sorted(r["AssignmentId"] for r in records) == sorted(a["AssignmentId"] for f in assignments.values()
                                                                for a in f)

    expect_save(turk, assignments)                      # the same poll again
    assert verb(run, "save", "--out", str(saved)) == 0
    turk.assert_done()
    assert saved.read_text(encoding="utf-8") == first_file

    assert main(["cosimlex", "ingest", "rating", "--sheets", str(saved), "--run", run.root]) == 0
    ratings = list(run.iter_records(RATINGS))
    items = {entry["form_id"]: entry["items"] for entry in forms}
    assert len(ratings) == 3 * sum(items.values())
    form_items = {}
    for n, entry in enumerate(forms, start=1):
        form_items.update({(f"A{n}{w}", item): (f"W{w}", 2 * w)
                           for w in (1, 2, 3) for name, item in posted_fields(entry, "0").items()
                           if name.endswith("_id") and name.startswith("item")})
    got = {(r["assignment_id"], r["item_id"]): (r["worker_id"], r["rating"]) for r in ratings}
    assert got == form_items
    assert {(r["inspired1"], r["inspired2"]) for r in ratings} == {("kitchen & tea", "<morning>")}
    # Each worker rated both forms of a couple: only the earliest assignment showing a pair counts.
    assert {r["status"] for r in ratings if r["form_id"].endswith("A")} == {"ok"}
    assert {r["status"] for r in ratings if r["form_id"].endswith("B")} == {"repeat-pair"}
    capsys.readouterr()
    assert main(["cosimlex", "ingest", "rating", "--sheets", str(saved), "--run", run.root]) == 0
    assert capsys.readouterr().out.startswith("0 new ratings")

    # W1's first assignment is rejected later: its ratings stop counting, and W1's next form takes over its pairs.
    expect_save(turk, {hit: [dict(a, AssignmentStatus="Rejected") if a["AssignmentId"] == "A11" else a for a in found]
                       for hit, found in assignments.items()})
    assert verb(run, "save", "--out", str(saved)) == 0
    assert main(["cosimlex", "ingest", "rating", "--sheets", str(saved), "--run", run.root]) == 0
    assert "0 new ratings" in capsys.readouterr().out
    after = {(r["assignment_id"], r["item_id"]): r["status"] for r in run.iter_records(RATINGS)}
    assert {status for (assignment, _), status in after.items() if assignment == "A11"} == {"rejected-assignment"}
    a11_pairs = {r["pair_id"] for r in ratings if r["assignment_id"] == "A11"}
    assert {after[(r["assignment_id"], r["item_id"])] for r in ratings
            if r["worker_id"] == "W1" and r["pair_id"] in a11_pairs and r["assignment_id"] != "A11"} == {"ok"}


def test_review_status_expire_and_delete_work_on_a_question_batch(turk, rating_run, tmp_path, capsys):
    run, plan_path, forms = rating_run
    create_all(turk, run, plan_path, forms)
    assignments = worker_assignments(forms)
    expect_save(turk, {hit: (found if hit == hit_id(1) else []) for hit, found in assignments.items()})
    assert verb(run, "save") == 0
    assert verb(run, "review") == 2
    assert "pass --approve-all to pay every submitted assignment, and/or --reject" in capsys.readouterr().err

    reject = tmp_path / "reject.csv"
    reject.write_text("assignment_id,feedback\nA13,Every rating was the same.\n", encoding="utf-8")
    turk.expect("approve_assignment", {}, {"AssignmentId": "A11", "RequesterFeedback": ANY})
    turk.expect("approve_assignment", {}, {"AssignmentId": "A12", "RequesterFeedback": ANY})
    turk.expect("reject_assignment", {}, {"AssignmentId": "A13", "RequesterFeedback": "Every rating was the same."})
    assert verb(run, "review", "--reject", str(reject), "--approve-all") == 0
    assert "approved 2, rejected 1 assignment(s)" in capsys.readouterr().out
    assert verb(run, "review", "--approve-all") == 0      # reviewed assignments are left alone
    with Ledger.for_run(run.root).read() as q:
        assert {a["assignment_id"]: a["status"] for a in q.assignments(batch_id=BATCH)} == {
            "A11": "Approved", "A12": "Approved", "A13": "Rejected"}
        assert q.decisions() == []

    for n, entry in enumerate(forms, start=1):
        turk.expect("get_hit", {"HIT": hit_record(n, sandbox_token(entry), completed=3 if n == 1 else 0)},
                    {"HITId": hit_id(n)})
    assert verb(run, "status") == 0
    assert "4 of 4 planned HIT(s) created; assignments available 9, pending 0, completed 3; 3 saved" in (
        capsys.readouterr().out)
    for n, entry in enumerate(forms, start=1):
        turk.expect("update_expiration_for_hit", {}, {"HITId": hit_id(n), "ExpireAt": mturk_hits.PAST})
    for n, entry in enumerate(forms, start=1):
        turk.expect("get_hit", {"HIT": hit_record(n, sandbox_token(entry), status="Reviewable")}, {"HITId": hit_id(n)})
    assert verb(run, "expire") == 0
    for n, entry in enumerate(forms, start=1):
        turk.expect("get_hit", {"HIT": hit_record(n, sandbox_token(entry), "Reviewable", 3 if n == 1 else 0)},
                    {"HITId": hit_id(n)})
        turk.expect("delete_hit", {}, {"HITId": hit_id(n)})
    assert verb(run, "delete") == 0
    assert "4 of 4 HIT(s) deleted" in capsys.readouterr().out
    assert verb(run, "save", "--live") == 2             # a sandbox batch is never touched on the live endpoint
    turk.assert_done()
