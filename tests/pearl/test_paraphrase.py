"""Phrase-level augmentation through STS-B-Context's OpenAI client, cache and budget, against a local server
speaking the real chat-completions wire format."""
import json

import pytest

from companions.pearl import paraphrase
from companions.pearl.corpus import STAGE as PHRASES_STAGE
from companions.pearl.release import write_release, read_jsonl
from picforge.rundir import RunDir
from tests.cli_helpers import picforge
from tests.stsb_context.conftest import API_KEY, openai_env  # noqa: F401 - the key in the environment only
from tests.stsb_context.openai_server import FakeOpenAI, paraphrased

PHRASES = [("the New York Times", 9), ("a minimum date", 3), ("of Afroasiatic", 2), ("was spoken", 2)]


@pytest.fixture
def pearl_run(tmp_path):
    """A PEARL run directory whose `pearl-phrases` stage holds four phrases."""
    run = RunDir(str(tmp_path / "pearl"))
    records = [{"phrase": p, "lexical_type": "NP", "entity_type": "OTHER", "label": "NP-OTHER", "count": n,
                "augmentations": [{"kind": "char-drop", "text": p[1:]}], "hard_negatives": []} for p, n in PHRASES]
    run.write_stage(PHRASES_STAGE, records, "pearl_phrase", inputs={}, options={})
    return run


@pytest.fixture
def server(openai_env):
    fake = FakeOpenAI({"minimum date": "503-once", "Afroasiatic": "malformed"}, api_key=openai_env).start()
    yield fake
    fake.stop()


def test_paraphrases_cached_budgeted_and_merged_into_the_release(pearl_run, server, tmp_path, capsys):
    assert picforge("pearl", "paraphrase", "--run", pearl_run.root, "--base-url", server.base_url) == 1
    rows = {r["phrase"]: r for r in pearl_run.iter_records(paraphrase.STAGE)}
    assert rows["the New York Times"] == {"phrase": "the New York Times", "status": "kept", "error": None,
                                          "paraphrase": paraphrased("the New York Times"),
                                          "cache_key": rows["the New York Times"]["cache_key"]}
    assert rows["a minimum date"]["status"] == "kept"         # 503 once, retried by the client
    assert rows["of Afroasiatic"]["status"] == "malformed"    # truncated JSON: recorded, not cached
    manifest = pearl_run.read_manifest(paraphrase.STAGE)
    assert not manifest["complete"] and manifest["pending"] == 1
    sent = server.count
    assert "1 unanswered" in capsys.readouterr().out

    # a re-run asks only for what is missing; the answered phrases come from the cache
    picforge("pearl", "paraphrase", "--run", pearl_run.root, "--base-url", server.base_url)
    assert server.count == sent + 1
    counters = pearl_run.read_manifest(paraphrase.STAGE)["counters"]
    assert counters["pearl-paraphrases/cache_hits"] == 3

    manifest = write_release(pearl_run.root, str(tmp_path / "release"))
    rows = [row for split in manifest["counts"] for row in read_jsonl(tmp_path / "release" / "data" / f"{split}.jsonl")]
    times = next(row for row in rows if row["phrase"] == "the New York Times")
    assert {"kind": "paraphrase", "text": "Times York New the"} in times["augmentations"]
    kept = sum(1 for r in pearl_run.iter_records(paraphrase.STAGE) if r["status"] == "kept")
    stats = json.loads((tmp_path / "release" / "stats.json").read_text())
    assert stats["augmentations"]["paraphrase"] == kept >= 3  # counted per kind beside the build's own kinds
    assert stats["augmentations"]["char-drop"] == len(PHRASES)
    assert f"| paraphrase | {kept} |" in (tmp_path / "release" / "README.md").read_text()


def test_budget_caps_requests_and_frequent_phrases_go_first(pearl_run, server):
    assert picforge("pearl", "paraphrase", "--run", pearl_run.root, "--base-url", server.base_url,
                    "--max-requests", 1) == 1
    assert server.count == 1
    statuses = {r["phrase"]: r["status"] for r in pearl_run.iter_records(paraphrase.STAGE)}
    assert statuses["the New York Times"] == "kept"
    assert sorted(statuses.values()) == ["kept", "over-budget", "over-budget", "over-budget"]


def test_paid_endpoint_needs_live(pearl_run, openai_env, capsys):
    assert picforge("pearl", "paraphrase", "--run", pearl_run.root, "--base-url", "https://api.example.com/v1") == 2
    err = capsys.readouterr().err
    assert "pass --live" in err and "Traceback" not in err and API_KEY not in err


def test_offline_replays_the_cache_only(pearl_run, server):
    assert picforge("pearl", "paraphrase", "--run", pearl_run.root, "--offline") == 1
    assert server.count == 0
    assert {r["status"] for r in pearl_run.iter_records(paraphrase.STAGE)} == {"not-cached"}


def test_parse_paraphrase():
    assert paraphrase.parse_paraphrase("New York", '"NYC."\n') == ("kept", "NYC")
    assert paraphrase.parse_paraphrase("New York", "Paraphrase: the Big Apple") == ("kept", "the Big Apple")
    assert paraphrase.parse_paraphrase("New York", "new york") == ("rejected", None)
    assert paraphrase.parse_paraphrase("New York", "  \n") == ("rejected", None)
    assert paraphrase.parse_paraphrase("New York", "a very long answer that goes on and on and on") == ("rejected", None)
