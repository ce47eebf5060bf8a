"""Fixtures of the STS-B-Context tests: a small STS-B file from the shared data, the local OpenAI server, the CLI."""
import pytest

from picforge import cli
from .openai_server import FakeOpenAI

API_KEY = "sk-test-9f8e7d6c5b4a-SECRET"
# Faults keyed by a substring of the target sentence (STS-B sentence 2) of the first rows of the shared file.
FAULTS = {"brushing her hair": "429-once", "slicing a cucumber": "503-once",
          "playing soccer on the beach": "malformed", "measures another woman": "no-phrase"}


@pytest.fixture
def small_stsb(stsb_file, tmp_path):
    """14 real STS-B rows in the official headerless layout; one row carries extra trailing columns."""
    lines = stsb_file.read_text(encoding="utf-8").splitlines()
    rows = lines[1:13] + [lines[638], lines[645]]
    rows[5] += "\tsource-note\textra"
    path = tmp_path / "sts-test.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def openai_env(monkeypatch):
    """The API key in the environment only; no base URL or proxy from the surroundings."""
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    return API_KEY


@pytest.fixture
def openai_server(openai_env):
    """Start a local server with the standard faults (or others: openai_server(faults=...)); stopped after the test."""
    servers = []

    def start(faults=FAULTS):
        servers.append(FakeOpenAI(faults, api_key=openai_env).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def picforge():
    """Run `picforge ARGS...` through the real CLI entry (which imports only this area's cli package)."""
    return lambda *argv: cli.main([str(a) for a in argv])
