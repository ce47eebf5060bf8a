"""Every HTTP hop is charged (redirects are not followed) and no log line of any library shows a secret, at -v and
-vv: an LLM endpoint, a LanguageTool server and a ledger URL with a password, each driven through `picforge` in a
child process against a local server speaking the real wire format."""
import csv
import json
import os
import subprocess
import sys

import pytest

from tests.annotation.test_languagetool import LanguageToolHandler
from tests.cli_helpers import ROOT, picforge_in_child
from tests.http_helpers import QuietHandler, serving

pytestmark = pytest.mark.slow
PASSWORD = "pw-SECRET-4711"
API_KEY = "sk-hops-and-logs-SECRET-99"


class Redirecting(QuietHandler):
    """An OpenAI-compatible endpoint answering 307 (to itself) five times, then a completion; counts requests."""
    seen = []

    def do_POST(self):  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        type(self).seen.append(self.path)
        if len(type(self).seen) <= 5:
            self.reply(307, headers={"Location": self.path})
            return
        body = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m", "usage": None,
                "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                             "message": {"role": "assistant", "content": "a context"}}]}
        self.reply(200, json.dumps(body).encode(), "application/json")


@pytest.fixture
def redirecting_server():
    Redirecting.seen = []
    with serving(Redirecting) as server:
        yield server


@pytest.mark.parametrize("verbosity", ["-v", "-vv"])
def test_redirects_are_charged_as_requests_and_logs_show_no_password(redirecting_server, stsb_file, tmp_path,
                                                                     verbosity):
    host, port = redirecting_server.server_address
    env = dict(os.environ, OPENAI_API_KEY=API_KEY, NO_PROXY="127.0.0.1")
    done = subprocess.run([sys.executable, "-m", "picforge.cli", verbosity, "stsb-context", "generate", "--stsb", str(stsb_file),
                           "--out", str(tmp_path / "run"), "--base-url", f"http://user:{PASSWORD}@{host}:{port}/v1",
                           "--max-requests", "2", "--max-retries", "4"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert 1 <= len(Redirecting.seen) <= 2  # never the 12 a followed redirect chain sent
    assert done.returncode != 0 and "redirects are not followed" in done.stderr, done.stderr[-2000:]  # -v: traceback
    assert f"HTTP Request: POST http://user:***@{host}:{port}/v1/chat/completions" in done.stderr  # httpx's log line
    if verbosity == "-vv":
        assert "DEBUG openai" in done.stderr or "DEBUG httpcore" in done.stderr
    assert PASSWORD not in done.stdout + done.stderr and API_KEY not in done.stdout + done.stderr
    for path in [p for p in tmp_path.rglob("*") if p.is_file()]:
        assert PASSWORD.encode() not in path.read_bytes(), path


@pytest.fixture
def languagetool_server():
    LanguageToolHandler.requests = []
    with serving(LanguageToolHandler) as server:
        yield server


@pytest.mark.parametrize("verbosity", ["-v", "-vv"])
def test_languagetool_and_ledger_urls_are_redacted_in_every_log_line(mined_103, tmp_path, languagetool_server,
                                                                     verbosity):
    import shutil
    run = tmp_path / "run"
    shutil.copytree(mined_103, run)
    code, _, err = picforge_in_child("annotate", "export", "expert", "--run", run, "--annotators", "alice",
                                     "--per-annotator", "2")
    assert code == 0, err
    exported = run / "annotation" / "expert" / "expert-alice-001.csv"
    with open(exported, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        row.update(Q1="a wholly different notion", Q2="some unrelated matter", Q3="N")
    sheet = tmp_path / "alice.csv"
    with open(sheet, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    url = f"http://user:{PASSWORD}@127.0.0.1:{languagetool_server.server_address[1]}"
    code, out, err = picforge_in_child(verbosity, "annotate", "ingest", "expert", "--run", run, "--languagetool", url,
                                       "--sheets", sheet)
    assert code == 0, err[-2000:]
    assert LanguageToolHandler.requests  # the check ran through the URL
    if verbosity == "-vv":
        assert "user:***@127.0.0.1" in err  # language_tool_python logs the server URL at DEBUG
    assert PASSWORD not in out + err
    ledger = f"postgresql://user:{PASSWORD}@127.0.0.1:1/ledger"
    code, out, err = picforge_in_child(verbosity, "annotate", "report", "--run", run, "--ledger", ledger)
    assert code != 0 and PASSWORD not in out + err
    for path in [p for p in tmp_path.rglob("*") if p.is_file()]:
        assert PASSWORD.encode() not in path.read_bytes(), path
