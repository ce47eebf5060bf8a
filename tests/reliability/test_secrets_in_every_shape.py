"""Issue 44 class 5, through `picforge` as subprocesses at -v and -vv: a secret in a URL's user-info (with or without
a password, a password holding `@`) or in its query string (`?api_key=`, a dump URL's `?token=`) is in no output
line, log line, traceback, stored manifest or cache entry, and no file name (picforge/redact.py)."""
import pytest

from tests.cli_helpers import picforge_in_child
from tests.http_helpers import QuietHandler, serving
from tests.stsb_context.openai_server import FakeOpenAI

TOKEN = "skTOKENx7Q2mN9vR4"


def files_holding(folder, secret):
    """The files under `folder` whose name or bytes hold `secret`."""
    return [p for p in folder.rglob("*") if secret in p.name or (p.is_file() and secret.encode() in p.read_bytes())]


@pytest.mark.parametrize("verbosity", [[], ["-v"], ["-vv"]])
def test_a_ledger_password_holding_an_at_sign_is_never_printed(verbosity, tmp_path):
    ledger = "postgresql://alice:PG@secretPW99@127.0.0.1:1/pic"
    code, out, err = picforge_in_child(*verbosity, "annotate", "report", "--run", tmp_path, "--ledger", ledger)
    assert code != 0 and err.strip()
    assert "secretPW99" not in out + err and "PG@" not in out + err, err[-3000:]


class AnyKeyOpenAI(FakeOpenAI):
    """The local OpenAI server, taking any credential (httpx sends a URL's user-info as Basic auth)."""

    def respond(self, headers, body):
        return super().respond({"Authorization": f"Bearer {self.api_key}"}, body)


@pytest.mark.parametrize("shape", ["user-info", "user-info and password", "query"])
def test_an_llm_token_in_the_base_url_is_in_no_log_line_manifest_or_cache_entry(shape, stsb_file, tmp_path,
                                                                                monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-the-token")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    rows = tmp_path / "sts-test.csv"
    rows.write_text("\n".join(stsb_file.read_text(encoding="utf-8").splitlines()[1:3]) + "\n", encoding="utf-8")
    server = AnyKeyOpenAI(api_key="sk-not-the-token").start()
    try:
        port = server.server.server_address[1]
        url = {"user-info": f"http://{TOKEN}@127.0.0.1:{port}/v1",
               "user-info and password": f"http://me:{TOKEN}@127.0.0.1:{port}/v1",
               "query": f"http://127.0.0.1:{port}/v1?api_key={TOKEN}"}[shape]
        code, out, err = picforge_in_child("-vv", "stsb-context", "generate", "--stsb", rows, "--out", tmp_path / "out",
                                           "--base-url", url)
    finally:
        server.stop()
    assert TOKEN not in out + err, err[-3000:]
    if shape == "query":  # the SDK appends its paths after the query, so the server answers 404, which names the URL
        assert code != 0 and "?api_key=*** NotFoundError (HTTP 404)" in err, err[-3000:]
    else:  # the requests went out through that URL, and the run wrote its manifest and cache entries
        assert code == 0 and server.count, err[-3000:]
        assert "http://***@127.0.0.1" in err or "http://me:***@127.0.0.1" in err  # the endpoint, logged redacted
        assert len(list((tmp_path / "out").rglob("*.json"))) > 2
    assert not files_holding(tmp_path, TOKEN)


class DumpHandler(QuietHandler):
    """Serves the dump at any path whose query holds the token."""
    dump = b""

    def do_GET(self):  # noqa: N802
        if f"token={TOKEN}" not in self.path:
            return self.reply(403)
        self.reply(200, self.dump, "application/octet-stream")


def test_a_dump_url_token_is_in_no_log_line_file_name_or_manifest(enwiki_sample, wic_zip, tmp_path):
    DumpHandler.dump = enwiki_sample.read_bytes()
    with serving(DumpHandler) as server:
        url = f"http://127.0.0.1:{server.server_address[1]}/enwiki-sample.xml.bz2?token={TOKEN}&format=raw"
        code, out, err = picforge_in_child("-vv", "mine", "--input", url, "--wic", wic_zip, "--out", tmp_path / "run",
                                           "--cache-dir", tmp_path / "downloads")
    assert code == 0, err[-3000:]
    assert [p.name.split("-", 1)[1] for p in (tmp_path / "downloads").iterdir()] == ["enwiki-sample.xml.bz2"]
    assert "token=***" in err  # urllib3's request line at -vv, redacted
    assert TOKEN not in out + err
    assert not files_holding(tmp_path, TOKEN)
