"""Generation against a local server speaking the OpenAI chat-completions wire format."""
import json
import logging

import pytest

from companions.stsb_context import generate, prompts
from companions.stsb_context.stsb import read_pairs
from picforge import llm, schemas
from picforge.llm import ResponseCache, cache_key
from picforge.rundir import RunDir

from .conftest import API_KEY
from .openai_server import MALFORMED_BODY


def generate_args(stsb, out, server, *extra):
    return ["stsb-context", "generate", "--stsb", stsb, "--out", out, "--base-url", server.base_url, "--seed", 3, *extra]


def records(out):
    return {r["pair_id"]: r for r in RunDir(str(out)).iter_records("generations")}


def distinct_prompts(stsb, seed=3):
    return {prompts.build_prompt(p["sentence2"], prompts.start_letter(seed, p["pair_id"])) for p in read_pairs(str(stsb))}


def by_target(rows, text):
    return next(r for r in rows.values() if text in r["target_sentence"])


def test_generation_with_retries_malformed_and_missing_phrase(picforge, small_stsb, openai_server, tmp_path, capsys):
    server = openai_server()
    out = tmp_path / "run"
    code = picforge(*generate_args(small_stsb, out, server, "--concurrency", 3))
    assert code == 1  # the malformed answer leaves one pair unanswered
    sent = distinct_prompts(small_stsb)
    assert server.count == len(sent) + 2  # one 429 and one 503 retried by the client
    assert 1 < server.max_active <= 3
    assert {r["body"]["messages"][0]["content"] for r in server.requests} == sent
    for request in server.requests:
        assert request["auth"] == f"Bearer {API_KEY}"
        body = request["body"]
        assert (body["model"], body["temperature"], body["max_tokens"], body["seed"]) == ("gpt-3.5-turbo", 1.0, 256, 3)

    rows = records(out)
    assert len(rows) == 14
    assert by_target(rows, "playing soccer on the beach")["status"] == "malformed"
    assert "not JSON" in by_target(rows, "playing soccer on the beach")["error"]
    missing = by_target(rows, "measures another woman")
    assert missing["status"] == "no-verbatim" and missing["target_start"] is None and missing["context"]
    for text in ("brushing her hair", "slicing a cucumber"):
        assert by_target(rows, text)["status"] == "kept"
    kept = [r for r in rows.values() if r["status"] == "kept"]
    assert len(kept) == 12
    for row in rows.values():
        assert schemas.errors("stsb_generation", row) == []
    for row in kept:
        start, phrase = row["target_start"], row["target_phrase"]
        assert row["context"][start:start + len(phrase)] == phrase
        assert phrase == row["target_sentence"].rstrip(".")[0].lower() + row["target_sentence"].rstrip(".")[1:]
        assert row["starts_with_letter"] and row["prompt"].endswith(row["target_sentence"])

    manifest = RunDir(str(out)).read_manifest("generations")
    assert manifest["complete"] is False and manifest["pending"] == 1
    assert manifest["verbatim_drop_rate"] == pytest.approx(1 / 13)
    counters = manifest["counters"]
    # Every HTTP attempt is counted, retries included: what the server saw.
    assert counters["generations/retries"] == 2 and counters["generations/requests_sent"] == server.count
    assert counters["generations/cache_hits"] == 0
    cache = ResponseCache(str(out / "cache"))
    malformed = by_target(rows, "playing soccer on the beach")
    assert cache.get(malformed["cache_key"]) is None  # never cached, so a re-run asks again
    assert counters["generations/tokens_reported"] == sum(
        cache.get(r["cache_key"])["usage"]["total_tokens"] for r in kept + [missing])
    assert counters["generations/tokens_budgeted"] == sum(  # every attempt counts at its worst case
        llm.estimate_tokens(r["body"]["messages"][0]["content"]) + 256 for r in server.requests)
    printed = capsys.readouterr().out
    assert "drop rate 7.7%" in printed and "malformed 1" in printed

    # re-run: every answered prompt comes from the cache; only the malformed one is asked again
    before = server.count
    assert picforge(*generate_args(small_stsb, out, server)) == 1
    assert server.count == before + 1
    server.faults.pop("playing soccer on the beach")
    assert picforge(*generate_args(small_stsb, out, server)) == 0
    assert server.count == before + 2
    assert by_target(records(out), "playing soccer on the beach")["status"] == "kept"


def test_rerun_hits_the_cache_with_zero_requests(picforge, small_stsb, openai_server, tmp_path, monkeypatch, capsys):
    server = openai_server(faults={"measures another woman": "no-phrase"})
    first, cache = tmp_path / "first", tmp_path / "cache"
    assert picforge(*generate_args(small_stsb, first, server, "--cache", cache)) == 0
    paid = server.count
    assert paid == len(distinct_prompts(small_stsb))

    second = tmp_path / "second"
    assert picforge(*generate_args(small_stsb, second, server, "--cache", cache)) == 0
    assert picforge(*generate_args(small_stsb, second, server, "--cache", cache, "--force")) == 0
    assert server.count == paid
    assert records(second) == records(first)
    manifest = RunDir(str(second)).read_manifest("generations")
    assert manifest["counters"]["generations/cache_hits"] == paid
    assert manifest["counters"].get("generations/requests_sent", 0) == 0

    # up to date: skipped without reading the cache; --offline replays it without any key
    capsys.readouterr()
    assert picforge(*generate_args(small_stsb, second, server, "--cache", cache)) == 0
    assert "(up to date, skipped)" in capsys.readouterr().out
    monkeypatch.delenv("OPENAI_API_KEY")
    assert picforge(*generate_args(small_stsb, tmp_path / "third", server, "--cache", cache, "--offline")) == 0
    assert server.count == paid


def test_offline_reports_what_is_missing(picforge, small_stsb, openai_server, tmp_path, capsys):
    server = openai_server()
    assert picforge(*generate_args(small_stsb, tmp_path / "run", server, "--offline")) == 1
    assert server.count == 0
    assert {r["status"] for r in records(tmp_path / "run").values()} == {"not-cached"}
    assert "not-cached 14" in capsys.readouterr().out


def test_request_and_token_budgets_cap_spending(picforge, small_stsb, openai_server, tmp_path):
    server = openai_server(faults={})
    out = tmp_path / "run"
    assert picforge(*generate_args(small_stsb, out, server, "--max-requests", 3)) == 1
    assert server.count == 3
    statuses = [r["status"] for r in records(out).values()]
    assert statuses.count("kept") == 3 and statuses.count("over-budget") == 11

    assert picforge(*generate_args(small_stsb, out, server, "--max-tokens", 0)) == 1
    assert server.count == 3

    # room for one worst case (prompt estimate + 256 completion tokens) plus a little: a few requests, then stop
    worst = max(llm.estimate_tokens(p) for p in distinct_prompts(small_stsb)) + 256
    cap = worst + 100
    assert picforge(*generate_args(small_stsb, out, server, "--max-tokens", cap, "--concurrency", 1)) == 1
    counters = RunDir(str(out)).read_manifest("generations")["counters"]
    sent = counters["generations/requests_sent"]
    assert server.count == 3 + sent and 1 <= sent < 11
    assert counters["generations/tokens_budgeted"] <= cap and counters["generations/over-budget"] == 11 - sent

    assert picforge(*generate_args(small_stsb, out, server)) == 0
    assert server.count == len(distinct_prompts(small_stsb))  # nothing asked twice across the four runs


def test_api_key_is_never_logged_cached_or_written(picforge, small_stsb, openai_server, tmp_path, caplog, capsys):
    server = openai_server()
    caplog.set_level(logging.DEBUG)
    picforge("-v", *generate_args(small_stsb, tmp_path / "run", server))
    assert server.requests and all(r["auth"] == f"Bearer {API_KEY}" for r in server.requests)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".json" and "cache" in p.parts for p in written)
    for path in written:
        assert API_KEY.encode() not in path.read_bytes(), path
    assert "retrying request (retry 1 of" in caplog.text  # picforge's own backoff on 429/503 did log
    assert API_KEY not in caplog.text
    captured = capsys.readouterr()
    assert API_KEY not in captured.out + captured.err


def test_paid_endpoint_needs_live_and_a_key(picforge, small_stsb, openai_env, tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    assert picforge("stsb-context", "generate", "--stsb", small_stsb, "--out", out) == 2
    assert "https://api.openai.com/v1: not a loopback server" in capsys.readouterr().err
    assert picforge("stsb-context", "generate", "--stsb", small_stsb, "--out", out, "--base-url", "http://gpu-box:8000/v1") == 2
    assert "pass --live" in capsys.readouterr().err
    monkeypatch.delenv("OPENAI_API_KEY")
    assert picforge("stsb-context", "generate", "--stsb", small_stsb, "--out", out, "--live") == 2
    assert "no API key; export OPENAI_API_KEY" in capsys.readouterr().err
    assert not (out / "generations").exists()


def test_rejected_key_stops_with_one_clear_line(picforge, small_stsb, openai_server, tmp_path, capsys):
    server = openai_server(faults={})
    server.api_key = "sk-some-other-key"
    assert picforge(*generate_args(small_stsb, tmp_path / "run", server, "--concurrency", 2)) == 2
    err = capsys.readouterr().err
    assert f"{server.base_url}: AuthenticationError (HTTP 401)" in err and "OPENAI_API_KEY" in err
    assert API_KEY not in err
    assert server.count <= 2  # no new request after the first refusal
    assert not (tmp_path / "run" / "generations" / "_manifest.json").exists()


def test_parse_completion_accepts_the_wire_format_and_rejects_the_rest():
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": " Text. "},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}
    assert llm.parse_completion(json.dumps(body)) == {
        "id": "chatcmpl-1", "model": "m", "content": "Text.", "finish_reason": "stop",
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}
    del body["usage"]
    assert llm.parse_completion(json.dumps(body))["usage"] is None
    for bad, reason in [(MALFORMED_BODY, "not JSON"), ("[]", "no choices"), ('{"choices": []}', "no choices"),
                        ('{"choices": [{"message": {"content": ""}}]}', "missing or empty"),
                        ('{"choices": [{"message": null}]}', "missing or empty")]:
        with pytest.raises(llm.MalformedCompletion, match=reason):
            llm.parse_completion(bad)


def test_budget_charges_each_request_its_worst_case():
    budget = llm.Budget(max_requests=3, max_tokens=100)
    assert budget.reserve(60) and not budget.reserve(60)
    assert budget.reserve(40) and not budget.reserve(1)
    assert (budget.requests, budget.tokens) == (2, 100)
    budget = llm.Budget(max_requests=2, max_tokens=1000)
    assert budget.reserve(1) and budget.reserve(1) and not budget.reserve(1)  # two requests used


def test_cache_key_and_atomic_entries(tmp_path):
    messages = prompts.chat_messages("p")
    params = llm.GenerationSettings(endpoint="http://127.0.0.1:1/v1").params()
    key = cache_key("m", messages, params)
    assert key == cache_key("m", [{"content": "p", "role": "user"}], dict(reversed(params.items())))
    assert key != cache_key("m2", messages, params) != cache_key("m", messages, {**params, "seed": 1})
    cache = ResponseCache(str(tmp_path))
    assert cache.get(key) is None
    cache.put(key, {"model": "m", "messages": messages, "params": params}, {"content": "c"})
    assert cache.get(key) == {"content": "c"}
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [f"{key}.json"]
    open(cache.path(key), "w").write("{not json")
    assert cache.get(key) is None


def test_command_is_registered_with_picforge():
    from picforge import verbs
    assert verbs.find(("stsb-context", "generate")).run.__module__ == "companions.stsb_context.cli.generate"


def test_no_server_stops_early_with_the_cause_once(picforge, small_stsb, tmp_path, capsys):
    import socket
    with socket.socket() as probe:          # a port nothing listens on: every connection is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    code = picforge("stsb-context", "generate", "--stsb", small_stsb, "--out", tmp_path / "run", "--base-url", url, "--seed", 3,
                    "--concurrency", 1, "--max-retries", 1)
    err = capsys.readouterr().err
    assert code == 2 and err.count(f"connection refused to {url}") == 1, err
    assert f"each of the first {llm.UNREACHABLE_JOBS} prompts failed so" in err
    assert len(read_pairs(str(small_stsb))) > llm.UNREACHABLE_JOBS   # it stopped before the rest
