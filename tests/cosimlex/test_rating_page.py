"""The two-page rating task: assignment plan, escaping, and the real pages driven in headless Chromium."""
import http.server
import json
import shutil
import threading
import urllib.parse
import xml.etree.ElementTree as ET

import pytest

from picforge.mturk_xml import html_question_xml
from companions.cosimlex.answers import read_submissions, submission_ratings
from companions.cosimlex.rating import annotator_assignments, rating_forms, render_form
from tests.http_helpers import QuietHandler

HOSTILE = "Tom & Jerry wrote <script>alert(1)</script> near the bank; the money was gone."


def selection(pair_no, word1, word2, text1, text2):
    def chosen(text):
        s1, s2 = text.index(word1), text.index(word2)
        return {"candidate_id": f"{word1}|{word2}@{len(text)}", "page_id": 1, "text": text, "edited": False,
                "word1_start": s1, "word1_end": s1 + len(word1), "word2_start": s2, "word2_end": s2 + len(word2)}
    return {"pair_id": f"{word1}|{word2}", "pair_no": pair_no, "word1": word1, "word2": word2,
            "context1": chosen(text1), "context2": chosen(text2)}


SELECTIONS = [
    selection(0, "bank", "money", HOSTILE, "The bank lent them money for the farm."),
    selection(1, "cup", "mug", "A cup of tea stood next to a mug.", "He won the cup and drank from a mug."),
    selection(2, "car", "bicycle", "The car overtook a bicycle.", "A bicycle is cheaper than a car."),
]


def test_forms_come_in_complementary_couples():
    forms = rating_forms(SELECTIONS, pairs_per_form=2, seed=0)
    assert [(f["form_id"], f["exclusive_with"]) for f in forms] == [
        ("0001A", "0001B"), ("0001B", "0001A"), ("0002A", "0002B"), ("0002B", "0002A")]
    items = {f["form_id"]: sorted(i["item_id"] for i in f["items"]) for f in forms}
    assert items["0001A"] == ["bank|money#1", "cup|mug#2"]
    assert items["0001B"] == ["bank|money#2", "cup|mug#1"]
    assert items["0002A"] == ["car|bicycle#1"] and items["0002B"] == ["car|bicycle#2"]
    for form in forms:  # one context of each pair per form
        pairs = [i["pair_id"] for i in form["items"]]
        assert len(pairs) == len(set(pairs))
    assert rating_forms(SELECTIONS, 2, seed=0) == forms
    plan = annotator_assignments(forms, ["ann", "bea", "cy"])
    assert plan == [{"annotator": "ann", "variant": "A", "forms": ["0001A", "0002A"]},
                    {"annotator": "bea", "variant": "B", "forms": ["0001B", "0002B"]},
                    {"annotator": "cy", "variant": "A", "forms": ["0001A", "0002A"]}]


def test_pages_escape_the_text_and_the_question_xml_holds_the_page():
    form = rating_forms(SELECTIONS, pairs_per_form=3)[0]
    page = render_form(form, "mturk")
    assert "<script>alert(1)</script>" not in page
    assert "Tom &amp; Jerry wrote &lt;script&gt;alert(1)&lt;/script&gt;" in page
    root = ET.fromstring(html_question_xml(page))  # the MTurk tooling's HTMLQuestion wrapper takes the page
    content = root.find("{*}HTMLContent").text
    assert content.strip() == page.strip()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        pytest.skip("needs Debian chromium and chromium-driver (apt-get install -y chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    yield driver
    driver.quit()


def visible_page(driver):
    from selenium.webdriver.common.by import By

    (page,) = [p for p in driver.find_elements(By.CSS_SELECTOR, "section.page") if p.is_displayed()]
    return page


def problem(driver):
    return driver.find_element("id", "problem").text


def answer_items(driver, form, words, ratings):
    """Go through page 1 and page 2 of every item, checking what each page shows."""
    from selenium.webdriver.common.by import By

    seen = []
    for number, item in enumerate(form["items"], start=1):
        page = visible_page(driver)
        assert "page1" in page.get_attribute("class")
        context = page.find_element(By.CSS_SELECTOR, ".context")
        assert context.text == item["text"]
        assert page.find_elements(By.CSS_SELECTOR, "b, strong") == []
        assert item["word1"] not in page.find_element(By.TAG_NAME, "p").text
        driver.find_element("id", "next_button").click()
        assert problem(driver) == "Please fill in every box before going on."
        inputs = page.find_elements(By.CSS_SELECTOR, "input[type=text]")
        for field, word in zip(inputs, words[number - 1]):
            field.send_keys(word)
        driver.find_element("id", "next_button").click()

        page = visible_page(driver)
        assert "page2" in page.get_attribute("class")
        bold = [b.text for b in page.find_elements(By.CSS_SELECTOR, ".context b")]
        assert bold == sorted([item["word1"], item["word2"]], key=item["text"].index)
        assert page.find_element(By.CSS_SELECTOR, ".context").text == item["text"]
        last = number == len(form["items"])
        button = driver.find_element("id", "submit_button" if last else "next_button")
        button.click()
        assert problem(driver) == "Please choose a rating from 0 to 6."
        page.find_element(By.CSS_SELECTOR, f"input[type=radio][value='{ratings[number - 1]}']").click()
        seen.append(item["item_id"])
        button.click()
    return seen


def test_standalone_form_page_one_then_page_two_then_answers_file(browser, tmp_path):
    form = rating_forms(SELECTIONS, pairs_per_form=3)[0]
    path = tmp_path / "form.html"
    path.write_text(render_form(form, "standalone"), encoding="utf-8")
    browser.get(path.as_uri())
    identity = visible_page(browser)
    assert "identity" in identity.get_attribute("class")
    browser.find_element("id", "next_button").click()
    assert problem(browser) == "Please fill in every box before going on."
    identity.find_element("name", "worker_id").send_keys("ann-07")
    browser.find_element("id", "next_button").click()
    words = [("cartoon", "theft"), ("breakfast", "kitchen"), ("traffic", "road")]
    answer_items(browser, form, words, [2, 5, 3])
    assert browser.find_element("id", "finished").is_displayed()
    record = json.loads(browser.find_element("id", "answers_json").get_attribute("value"))
    assert record["worker_id"] == "ann-07" and record["form_id"] == form["form_id"]
    link = browser.find_element("id", "download_answers")
    assert link.get_attribute("download") == f"cosimlex-{form['form_id']}-ann-07.json"
    assert json.loads(urllib.parse.unquote(link.get_attribute("href").split(",", 1)[1])) == record
    (submission,) = read_submissions("answers.json", json.dumps(record).encode())
    ratings = submission_ratings(submission, {i["item_id"] for i in form["items"]}, "answers.json")
    got = {(r["item_id"], r["inspired1"], r["inspired2"], r["rating"], r["status"]) for r in ratings}
    assert got == {(item["item_id"], *words[n], [2, 5, 3][n], "ok") for n, item in enumerate(form["items"])}
    assert {r["assignment_id"] for r in ratings} == {f"standalone:{form['form_id']}:ann-07"}


class _TurkServer(QuietHandler):
    """Serves the task page and records what the page posts to /mturk/externalSubmit."""
    page = b""
    posted = []

    def do_GET(self):
        self.reply(200, self.page, "text/html; charset=utf-8")

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        type(self).posted.append((self.path, urllib.parse.parse_qsl(body, keep_blank_values=True)))
        self.reply(200, b"submitted")


@pytest.fixture
def turk_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _TurkServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


def question_form_answers(fields):
    """The QuestionFormAnswers XML that MTurk stores for posted form fields."""
    answers = "".join(f"<Answer><QuestionIdentifier>{k}</QuestionIdentifier><FreeText>{v}</FreeText></Answer>"
                      for k, v in fields if k != "assignmentId")
    return ('<?xml version="1.0" encoding="ASCII"?><QuestionFormAnswers xmlns="http://mechanicalturk.amazonaws.com/'
            f'AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd">{answers}</QuestionFormAnswers>')


def test_mturk_page_posts_every_answer_to_external_submit(browser, turk_server):
    from selenium.webdriver.support.ui import WebDriverWait

    form = rating_forms(SELECTIONS, pairs_per_form=2)[1]
    _TurkServer.page, _TurkServer.posted = render_form(form, "mturk").encode(), []
    base = f"http://127.0.0.1:{turk_server.server_address[1]}"
    browser.get(f"{base}/task?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1")
    assert browser.find_element("id", "submit_button").get_attribute("disabled") == "true"
    browser.get(f"{base}/task?assignmentId=A77&hitId=H1&workerId=W9&turkSubmitTo={urllib.parse.quote(base)}")
    answer_items(browser, form, [("loan", "farm"), ("tea", "trophy")], [4, 1])
    WebDriverWait(browser, 20).until(lambda _: _TurkServer.posted)
    (path, fields), = _TurkServer.posted
    assert path == "/mturk/externalSubmit"
    posted = dict(fields)
    assert posted["assignmentId"] == "A77" and posted["form_id"] == form["form_id"]
    assignment = {"AssignmentId": "A77", "WorkerId": "W9", "HITId": "H1", "SubmitTime": "2024-05-01T10:00:00Z",
                  "Answer": question_form_answers(fields)}
    (submission,) = read_submissions("assignments.jsonl", json.dumps(assignment).encode())
    ratings = submission_ratings(submission, {i["item_id"] for i in form["items"]}, "assignments.jsonl")
    assert [(r["item_id"], r["inspired1"], r["rating"], r["worker_id"]) for r in ratings] == [
        (form["items"][0]["item_id"], "loan", 4, "W9"), (form["items"][1]["item_id"], "tea", 1, "W9")]
