"""Grammar check through language-tool-python against a local server speaking LanguageTool's /v2 API."""
import http.server
import json
import os
import threading
import urllib.parse

import pytest

from annotation.languagetool import GrammarChecker
from tests.annotation.conftest import read_csv, write_csv
from tests.annotation.test_expert import export, filled


def _match(text, offset, length, rule_id, message, replacement, category=("GRAMMAR", "Grammar")):
    """One match in the shape LanguageTool's /v2/check returns."""
    sentence_start = text.rfind(". ", 0, offset) + 2 if ". " in text[:offset] else 0
    sentence_end = text.find(".", offset) + 1 or len(text)
    return {
        "message": message, "shortMessage": message.split(".")[0],
        "replacements": [{"value": replacement}],
        "offset": offset, "length": length,
        "context": {"text": text[max(0, offset - 20):offset + length + 20], "offset": min(offset, 20),
                    "length": length},
        "sentence": text[sentence_start:sentence_end],
        "type": {"typeName": "Other"},
        "rule": {"id": rule_id, "description": message, "issueType": "grammar",
                 "category": {"id": category[0], "name": category[1]}},
        "ignoreForIncompleteSentence": False, "contextForSureMatch": 1,
    }


def fake_check(text):
    """Two of LanguageTool's real rules, enough to exercise the client: 'a' before a vowel and 'teh'."""
    matches = []
    for word, rule, message in ((" a u", "EN_A_VS_AN", "Use 'an' instead of 'a' if the following word starts "
                                                         "with a vowel sound."),
                                (" a e", "EN_A_VS_AN", "Use 'an' instead of 'a' if the following word starts "
                                                       "with a vowel sound.")):
        start = 0
        while (found := text.find(word, start)) >= 0:
            matches.append(_match(text, found + 1, 1, rule, message, "an"))
            start = found + 1
    start = 0
    while (found := text.find("teh", start)) >= 0:
        matches.append(_match(text, found, 3, "MORFOLOGIK_RULE_EN_US", "Possible spelling mistake found.", "the",
                              ("TYPOS", "Possible Typo")))
        start = found + 1
    return {"software": {"name": "LanguageTool", "version": "6.4", "buildDate": "2024-03-28 12:00:00 +0000",
                         "apiVersion": 1, "premium": False, "status": ""},
            "warnings": {"incompleteResults": False},
            "language": {"name": "English (US)", "code": "en-US",
                         "detectedLanguage": {"name": "English (US)", "code": "en-US", "confidence": 0.99}},
            "matches": sorted(matches, key=lambda m: m["offset"])}


class LanguageToolHandler(http.server.BaseHTTPRequestHandler):
    requests = []

    def _send(self, payload):
        body = json.dumps(payload).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.startswith("/v2/languages"):
            self._send([{"name": "English (US)", "code": "en", "longCode": "en-US"},
                        {"name": "German (Germany)", "code": "de", "longCode": "de-DE"}])
        else:
            self.send_error(404)

    def do_POST(self):
        if not self.path.startswith("/v2/check"):
            self.send_error(404)
            return
        form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8"))
        text, language = form["text"][0], form["language"][0]
        type(self).requests.append({"text": text, "language": language})
        self._send(fake_check(text))

    def log_message(self, *args):
        pass


@pytest.fixture
def languagetool_url():
    LanguageToolHandler.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), LanguageToolHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_checker_reports_only_issues_touching_the_paraphrase(languagetool_url):
    checker = GrammarChecker(languagetool_url)
    text = "Teh film opened. It met a unenthusiastic response. teh end."
    issues = checker.issues_in_span(text, (text.index("unenthusiastic"), text.index(" response")))
    assert [(i["rule"], i["text"], i["replacements"]) for i in issues] == [("EN_A_VS_AN", "a", ["an"])]
    assert LanguageToolHandler.requests == [{"text": text, "language": "en-US"}]
    checker.close()


def test_ingest_checks_each_paraphrase_in_its_passage(annotate, run_dir, ledger, languagetool_url, tmp_path):
    out = export(annotate, run_dir, names="alice", per=2)
    rows = filled(f"{out}/expert-alice-001.csv", **{"00001": ("unenthusiastic response", "chilly entrance room", "N")})
    sheet = write_csv(tmp_path / "alice.csv", rows)
    assert annotate("ingest", "expert", "--run", run_dir, "--languagetool", languagetool_url, "--sheets", sheet) == 0
    sent = [r["text"] for r in LanguageToolHandler.requests]
    assert sent[0] == ("The film opened in March. Critics had high hopes. It met a unenthusiastic response "
                       "from the press. Ticket sales fell quickly. The studio cut its budget.")
    assert sent[1].startswith("The lodge sits at 2,000 metres. Guests arrive by cable car. A chilly entrance room")
    assert len(sent) == 4                                   # two passages per row
    fixes = read_csv(f"{out}/fixlists/fixes-alice.csv")
    assert [(f["triplet_id"], f["column"], f["severity"]) for f in fixes] == [("00001", "Q1", "check")]
    assert fixes[0]["problem"].startswith("LanguageTool EN_A_VS_AN: Use 'an' instead of 'a'")
    with ledger.read() as q:
        assert len(q.expert_annotations()) == 2             # checks are reported, not blocking
    assert annotate("ingest", "expert", "--run", run_dir, "--languagetool", languagetool_url, "--strict-grammar",
                    "--sheets", sheet) == 0
    with ledger.read() as q:
        assert [a["triplet_id"] for a in q.expert_annotations()] == ["00002"]


def test_paraphrases_ingested_without_the_check_are_recorded_and_reported(annotate, run_dir, ledger,
                                                                          languagetool_url, tmp_path, capsys):
    out = export(annotate, run_dir, names="alice,bob", per=2)
    checked = write_csv(tmp_path / "alice.csv", filled(f"{out}/expert-alice-001.csv"))
    unchecked = write_csv(tmp_path / "bob.csv", filled(f"{out}/expert-bob-001.csv"))
    assert annotate("ingest", "expert", "--run", run_dir, "--languagetool", languagetool_url, "--sheets", checked) == 0
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", unchecked) == 0
    with ledger.read() as q:
        flags = {d["triplet_id"]: d["detail"]["grammar_checked"] for d in q.decisions(round=0)}
    assert sorted(flags.values()) == [False, False, True, True]
    report = tmp_path / "report.md"
    assert annotate("report", "--run", run_dir, "--out", str(report)) == 0
    assert "Grammar check not run for 4 of 8 paraphrases (their sheets were ingested with --no-grammar)." in \
        report.read_text()
    # Re-ingesting bob's sheet with the check running records that it ran.
    assert annotate("ingest", "expert", "--run", run_dir, "--languagetool", languagetool_url, "--sheets", unchecked) == 0
    assert annotate("report", "--run", run_dir, "--out", str(report)) == 0
    assert "Grammar check (LanguageTool) run on all 8 paraphrases." in report.read_text()


def test_unreachable_server_is_a_clear_error_and_writes_nothing(annotate, run_dir, ledger, tmp_path, capsys,
                                                               monkeypatch):
    out = export(annotate, run_dir, names="alice", per=1)
    sheet = write_csv(tmp_path / "alice.csv", filled(f"{out}/expert-alice-001.csv"))
    assert annotate("ingest", "expert", "--run", run_dir, "--languagetool", "http://127.0.0.1:9", "--sheets", sheet) == 2
    assert "LanguageTool server http://127.0.0.1:9: not reachable" in capsys.readouterr().err
    assert annotate("ingest", "expert", "--run", run_dir, "--languagetool", "http://lt:hunter2@127.0.0.1:9",
                    "--sheets", sheet) == 2
    err = capsys.readouterr().err
    assert "LanguageTool server http://lt:***@127.0.0.1:9: not reachable" in err and "hunter2" not in err
    with ledger.read() as q:
        assert q.answers() == [] and q.expert_annotations(accepted_only=False) == []
    monkeypatch.delenv("LANGUAGETOOL_URL", raising=False)
    assert annotate("ingest", "expert", "--run", run_dir, "--sheets", sheet) == 2
    assert "pass --languagetool URL" in capsys.readouterr().err


@pytest.mark.languagetool
@pytest.mark.skipif(not os.environ.get("LANGUAGETOOL_URL"), reason="set LANGUAGETOOL_URL to a LanguageTool server")
def test_real_languagetool_server_flags_article_before_paraphrase():
    checker = GrammarChecker(os.environ["LANGUAGETOOL_URL"])
    text = "The film opened in March. It met a unenthusiastic response from the press."
    issues = checker.issues_in_span(text, (text.index("unenthusiastic"), text.index(" from")))
    assert any(i["rule"] == "EN_A_VS_AN" for i in issues), issues
    clean = "The film opened in March. It met an unenthusiastic response from the press."
    assert checker.issues_in_span(clean, (clean.index("unenthusiastic"), clean.index(" from"))) == []
