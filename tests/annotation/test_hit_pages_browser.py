"""The HIT pages in headless Chromium: fill, submit, and feed what the browser posts into the same
parsers `mturk save` (MTurk Answer XML) and `mturk ingest` (requester-UI results CSV) use."""
import csv
import http.server
import os
import shutil
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

import pytest
from botocore.stub import ANY, Stubber

from annotation.mturk import (hits as mturk_hits, manual as mturk_manual, review as mturk_review,
                              question_xml as mturk_xml, round1)
from picforge.mturk_xml import HTML_QUESTION_NS

from mturk_support import SCRIPT, answer_xml, gold_bank, make_run, real_client, write_gold
from tests.http_helpers import QuietHandler

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
BROWSER_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 # Nothing but the test server resolves: the crowd-html-elements script cannot load.
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        pytest.skip("needs Debian chromium + chromium-driver (apt-get install -y chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in BROWSER_FLAGS + [f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"]:
        options.add_argument(flag)
    options.set_capability("unhandledPromptBehavior", "ignore")   # leave alerts open so the test sees them
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


class _Handler(QuietHandler):
    def do_GET(self):
        body = self.server.pages.get(urllib.parse.urlparse(self.path).path)
        self.reply(200 if body is not None else 404, (body or "not found").encode("utf-8"), "text/html; charset=utf-8")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        self.server.posts.append((self.path, self.rfile.read(length).decode("utf-8")))
        self.reply(200, b"<p>submitted</p>", "text/html")


@pytest.fixture(scope="module")
def server():
    """An HTTP server on 127.0.0.1 serving `pages` and recording every POST (as MTurk's externalSubmit)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.pages, httpd.posts = {}, []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield httpd
    httpd.shutdown()


@pytest.fixture
def batch(tmp_path):
    run_dir, ledger = make_run(tmp_path)
    yield {"run": run_dir, "ledger": ledger, "gold": write_gold(tmp_path / "gold.jsonl"), "tmp": tmp_path}
    ledger.dispose()


def _plan(batch, kind, settings=round1.Round1Settings(questions_per_hit=4, assignments=1)):
    plan, _ = round1.plan_batch(batch["ledger"], "b1", kind, batch["gold"], settings,
                                {"environment": "sandbox", "hit_type": mturk_hits.HitTypeSettings().as_meta()}
                                if kind == round1.API_BATCH else {})
    round1.store_plan(batch["ledger"], "b1", plan)
    return plan


def _alert_text(driver):
    from selenium.common.exceptions import NoAlertPresentException
    try:
        alert = driver.switch_to.alert
    except NoAlertPresentException:
        return None
    text = alert.text
    alert.accept()
    return text


def _wait_for_post(server, count, seconds=10):
    deadline = time.time() + seconds
    while len(server.posts) < count and time.time() < deadline:
        time.sleep(0.05)
    return server.posts


def _intended_answers(slots):
    """What the test clicks: right answers to gold checks, yes/no alternating on the items."""
    bank = {g["gold_id"]: g for g in gold_bank()}
    return {n: (bank[s[len(round1.GOLD_PREFIX):]]["answer"] if s.startswith(round1.GOLD_PREFIX) else n % 2 == 1)
            for n, s in enumerate(slots, start=1)}


def _click_answers(driver, answers):
    from selenium.webdriver.common.by import By
    for n, yes in answers.items():
        driver.find_element(By.CSS_SELECTOR, f'input[name="answer_{n}"][value="{"yes" if yes else "no"}"]').click()
    driver.find_element(By.NAME, "comments").send_keys("Passage B had <b>odd</b> text")


def test_unescaped_script_would_fire_an_alert(browser, server):
    """Control: the alert detection below does see a script that runs."""
    server.pages["/raw"] = f"<!DOCTYPE html><html><body><p>{SCRIPT}</p></body></html>"
    browser.get(server.url + "/raw")
    assert _alert_text(browser) == "1"


def test_html_question_page_posts_what_mturk_save_parses(browser, server, batch):
    from selenium.webdriver.common.by import By

    # one worker, one HIT: judged on its one gold answer (the held-until-judged rule has tests of its own)
    plan = _plan(batch, round1.API_BATCH, round1.Round1Settings(questions_per_hit=4, assignments=1, min_worker_gold=1))
    pages = round1.hit_pages_of(batch["run"], plan)
    hit = next(h for h in plan["hits"] if "T1/q2" in h["slots"] or "T1/q3" in h["slots"])   # shows {SCRIPT}
    questions = mturk_xml.question_xmls(plan, pages)
    # The page exactly as MTurk will serve it: the HTMLContent of the Question sent to create_hit_with_hit_type.
    page = ET.fromstring(questions[hit["token"]]).find(f"{{{HTML_QUESTION_NS}}}HTMLContent").text
    server.pages["/hit"] = page
    query = urllib.parse.urlencode({"hitId": "3HIT1", "workerId": "W1", "turkSubmitTo": server.url})

    browser.get(f"{server.url}/hit?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&{query}")   # preview
    assert browser.find_element(By.ID, "submitButton").get_attribute("disabled") is not None

    browser.get(f"{server.url}/hit?assignmentId=A1&{query}")
    assert _alert_text(browser) is None
    passages = [p.text for p in browser.find_elements(By.CSS_SELECTOR, "p.passage")]
    assert any(SCRIPT in text and "Costs & fees rose by $5." in text for text in passages)
    assert browser.execute_script("return document.querySelectorAll('section.question script').length") == 0

    practice = browser.find_element(By.CSS_SELECTOR, "section.practice")
    wrong = "no" if practice.get_attribute("data-answer") == "yes" else "yes"
    practice.find_element(By.CSS_SELECTOR, f'input[value="{wrong}"]').click()
    feedback = practice.find_element(By.CSS_SELECTOR, ".feedback")
    assert feedback.is_displayed() and feedback.text.startswith("Not quite.")

    posted_before = len(server.posts)
    browser.find_element(By.ID, "submitButton").click()          # nothing answered: the browser refuses
    time.sleep(0.3)
    assert len(server.posts) == posted_before

    answers = _intended_answers(hit["slots"])
    _click_answers(browser, answers)
    browser.find_element(By.ID, "submitButton").click()
    path, body = _wait_for_post(server, posted_before + 1)[-1]
    assert path == "/mturk/externalSubmit"
    fields = dict(urllib.parse.parse_qsl(body, keep_blank_values=True))
    assert fields["assignmentId"] == "A1"

    # `mturk save`: the posted fields come back from MTurk as Answer XML; save parses them into the ledger.
    client = real_client()
    with Stubber(client) as stubber:
        for n, planned in enumerate(plan["hits"], start=1):
            stubber.add_response("create_hit_with_hit_type", {"HIT": {
                "HITId": f"3HIT{n}", "HITTypeId": "HT1", "HITStatus": "Assignable", "HITGroupId": "G"}}, {
                "HITTypeId": "HT1", "MaxAssignments": 1, "LifetimeInSeconds": ANY, "Question": ANY,
                "RequesterAnnotation": planned["token"], "UniqueRequestToken": planned["token"]})
        mturk_hits.create_hits(client, batch["ledger"], "b1", plan, questions, "HT1")
        with batch["ledger"].read() as q:
            hit_id = next(h["hit_id"] for h in q.hits("b1") if h["request_token"] == hit["token"])
        for n in range(1, len(plan["hits"]) + 1):
            found = [] if f"3HIT{n}" != hit_id else [{
                "AssignmentId": "A1", "WorkerId": "W1", "HITId": hit_id, "AssignmentStatus": "Submitted",
                "Answer": answer_xml(fields)}]
            stubber.add_response("list_assignments_for_hit", {"NumResults": len(found), "Assignments": found},
                                 {"HITId": f"3HIT{n}", "AssignmentStatuses": ANY, "MaxResults": 100})
        mturk_review.save_assignments(client, batch["ledger"], "b1")
    with batch["ledger"].read() as q:
        saved = {a["field"]: (a["item_id"], a["value"]) for a in q.answers(assignment_id="A1")}
    expected = {f"answer_{n}": (None if s.startswith(round1.GOLD_PREFIX) else s, "yes" if answers[n] else "no")
                for n, s in enumerate(hit["slots"], start=1)}
    assert saved == {**expected, "comments": (None, "Passage B had <b>odd</b> text")}
    [verdict] = round1.assignment_verdicts(batch["ledger"], "b1", plan)
    assert verdict["valid"], verdict["reason"]


def test_requester_ui_template_posts_what_mturk_ingest_parses(browser, server, batch):
    from selenium.webdriver.common.by import By

    plan = _plan(batch, round1.MANUAL_BATCH)
    csv_path, template_path, *_ = mturk_manual.export_batch(batch["run"], "b1", plan, str(batch["tmp"] / "export"))
    with open(csv_path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    template = open(template_path, encoding="utf-8").read()
    escaped_script = SCRIPT.replace("<", "&lt;").replace(">", "&gt;")
    rows.sort(key=lambda r: any(escaped_script in value for value in r.values()))   # the <script> row last

    shown = []
    for row in rows:
        # The requester UI pastes each ${variable} of the template verbatim with the row's CSV value.
        page = template
        for name, value in row.items():
            page = page.replace("${" + name + "}", value)
        server.pages["/manual"] = page
        browser.get(server.url + "/manual")
        assert _alert_text(browser) is None
        slots = next(h["slots"] for h in plan["hits"] if h["token"] == row["row_key"])
        assert len(browser.find_elements(By.CSS_SELECTOR, "section.question")) == len(slots)
        shown += [p.text for p in browser.find_elements(By.CSS_SELECTOR, "p.passage")]
    assert any(SCRIPT in text for text in shown)
    assert any("Results were ${question_2} uncertain." in text for text in shown)   # not a template variable

    answers = _intended_answers(slots)
    _click_answers(browser, answers)
    # What crowd-form submits: every named input's value (checked radios, the comments box).
    posted = browser.execute_script(
        "const f = {}; document.querySelectorAll('crowd-form input:checked, crowd-form textarea')"
        ".forEach(e => { if (e.name && !e.name.startsWith('practice_')) f[e.name] = e.value; }); return f;")
    results = batch["tmp"] / "Batch_4242_batch_results.csv"
    header = ["HITId", "HITTypeId", "AssignmentId", "WorkerId", "AssignmentStatus", "AcceptTime", "SubmitTime",
              *[f"Input.{k}" for k in row], *[f"Answer.{k}" for k in sorted(posted)], "Approve", "Reject"]
    with open(results, "w", encoding="utf-8-sig", newline="") as fh:   # the site's download starts with a BOM
        writer = csv.DictWriter(fh, fieldnames=header)
        writer.writeheader()
        writer.writerow({"HITId": "3MANUAL1", "HITTypeId": "T", "AssignmentId": "AM1", "WorkerId": "W9",
                         "AssignmentStatus": "Submitted", "AcceptTime": "Fri May 01 10:00:00 PDT 2026",
                         "SubmitTime": "Fri May 01 10:09:00 PDT 2026",
                         **{f"Input.{k}": v for k, v in row.items()},
                         **{f"Answer.{k}": v for k, v in posted.items()}})
    assert mturk_manual.ingest_results(batch["ledger"], [str(results)], batch["run"]) == {"b1": 1}
    with batch["ledger"].read() as q:
        saved = {a["field"]: (a["item_id"], a["value"]) for a in q.answers(assignment_id="AM1")}
        first = q.dump()
    expected = {f"answer_{n}": (None if s.startswith(round1.GOLD_PREFIX) else s, "yes" if answers[n] else "no")
                for n, s in enumerate(slots, start=1)}
    assert saved == {**expected, "comments": (None, "Passage B had <b>odd</b> text")}
    shutil.copy(results, batch["tmp"] / "again.csv")
    mturk_manual.ingest_results(batch["ledger"], [str(results), str(batch["tmp"] / "again.csv")],
                                batch["run"])
    with batch["ledger"].read() as q:
        assert q.dump() == first
