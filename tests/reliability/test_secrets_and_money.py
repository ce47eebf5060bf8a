"""The API key reaches only loopback servers without --live, and caps count what the client can verify."""
import os
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer

import pytest

from companions.stsb_context import generate
from picforge import cli, llm
from tests.http_helpers import QuietHandler, serving
from tests.stsb_context.openai_server import FakeOpenAI

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SECRET = "sk-reliability-SECRET-4f1c"


class Sniffer:
    """An HTTP proxy on 127.0.0.1 that records the Authorization header of every request it is handed."""

    def __init__(self):
        self.seen = []
        sniffer = self

        class Handler(QuietHandler):
            def do_POST(self):
                sniffer.seen.append((self.path, self.headers.get("Authorization")))
                self.reply(502)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def stsb_rows(stsb_file, tmp_path):
    path = tmp_path / "sts-test.csv"
    path.write_text("\n".join(stsb_file.read_text(encoding="utf-8").splitlines()[1:15]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("host, local", [
    ("localhost", True), ("127.0.0.1", True), ("127.3.2.1", True), ("[::1]", True),
    ("127.0.0.1.evil.example", False), ("localhost.evil.example", False), ("127.0.0.1@evil.example", False),
    ("api.openai.com", False),
])
def test_only_loopback_hosts_count_as_local(host, local):
    assert llm.is_local(f"http://{host}:8000/v1") is local


def test_a_look_alike_host_never_receives_the_key(stsb_rows, tmp_path):
    sniffer = Sniffer()
    env = {k: v for k, v in os.environ.items() if k.upper() not in ("NO_PROXY", "OPENAI_BASE_URL")}
    env.update(OPENAI_API_KEY=SECRET, HTTP_PROXY=sniffer.url, http_proxy=sniffer.url)
    done = subprocess.run([sys.executable, "-m", "picforge.cli", "stsb-context", "generate", "--stsb", str(stsb_rows),
                           "--out", str(tmp_path / "run"), "--base-url", "http://127.0.0.1.evil.example/v1",
                           "--max-retries", "0"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    sniffer.server.shutdown()
    assert sniffer.seen == []
    assert done.returncode == 2 and "pass --live" in done.stderr.strip().splitlines()[-1]
    assert SECRET not in done.stderr + done.stdout


def test_a_server_reporting_negative_usage_cannot_stretch_the_token_cap(stsb_rows, tmp_path, monkeypatch, capsys):
    server = FakeOpenAI({"": "negative-usage"}, api_key=SECRET).start()
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    try:
        code = cli.main(["stsb-context", "generate", "--stsb", str(stsb_rows), "--out", str(tmp_path / "run"),
                         "--base-url", server.base_url, "--max-tokens", "400", "--concurrency", "1"])
    finally:
        server.stop()
    assert code == 1  # pairs left over budget
    assert server.count == 1  # one worst case (prompt estimate + 256 completion tokens) fits in 400, two do not
    assert "tokens budgeted" in capsys.readouterr().out


class _AlwaysFailing(QuietHandler):
    """An OpenAI-compatible endpoint that answers every request 500, counting them."""
    seen = []

    def do_POST(self):  # noqa: N802 (http.server's name)
        type(self).seen.append(self.path)
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.reply(500, b'{"error": {"message": "server exploded", "type": "server_error"}}', "application/json")


@pytest.fixture
def failing_server():
    _AlwaysFailing.seen = []
    with serving(_AlwaysFailing) as server:
        yield server


def test_every_http_attempt_counts_against_max_requests(failing_server, stsb_file, tmp_path):
    host, port = failing_server.server_address
    url = f"http://user:s3cr3t-pass@{host}:{port}/v1"
    out = tmp_path / "run"
    env = dict(os.environ, OPENAI_API_KEY="sk-test-key-123")
    done = subprocess.run([sys.executable, "-m", "picforge.cli", "stsb-context", "generate", "--stsb", str(stsb_file), "--out",
                           str(out), "--base-url", url, "--max-requests", "2", "--max-retries", "4"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert len(_AlwaysFailing.seen) == 2  # 2 attempts in all, retries included, never the SDK's 2 x 5
    from picforge.rundir import RunDir
    manifest = RunDir(str(out)).read_manifest("generations")
    counters = manifest["counters"]
    assert counters["generations/requests_sent"] == 2  # the retries the failures asked for found no budget left
    assert counters["generations/retries"] + counters["generations/over_budget_retries"] >= 2
    # The password of the base URL is in no file, log line or message.
    for path in [p for p in tmp_path.rglob("*") if p.is_file()]:
        assert b"s3cr3t-pass" not in path.read_bytes(), path
    assert "s3cr3t-pass" not in done.stdout + done.stderr
    assert manifest["inputs"]["endpoint"] == f"http://user:***@{host}:{port}/v1"
