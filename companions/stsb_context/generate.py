"""Context generation through the official `openai` client: cached, concurrent within a bound, budgeted.

Retries with exponential backoff on 408/409/429/5xx and connection errors are the client's own
(`max_retries`, honouring `Retry-After`); the API key comes only from the environment and is never
logged, cached or written to the run directory.
"""
import dataclasses
import ipaddress
import json
import logging
import math
import os
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from urllib.parse import urlparse

from companions.stsb_context import prompts, verbatim
from companions.stsb_context.cache import ResponseCache, cache_key
from companions.stsb_context.settings import GENERATIONS, OPENAI_ENDPOINT, GenerationSettings
from companions.stsb_context.stsb import read_pairs
from picforge.errors import InputError
from picforge.rundir import fingerprint, input_identity

STAGE = GENERATIONS
SCHEMA = "stsb_generation"
LOCAL_PLACEHOLDER_KEY = "EMPTY"  # what vLLM, llama.cpp and Ollama accept when they run without a key
CHARS_PER_TOKEN_LOW = 3  # a generous (high) token estimate for reserving budget before a request
log = logging.getLogger(__name__)


class MalformedCompletion(ValueError):
    """A 200 answer whose body is not a usable chat completion."""


@dataclasses.dataclass(frozen=True)
class Job:
    """One distinct prompt to answer."""
    key: str
    messages: list
    worst_tokens: int


def resolve_endpoint(base_url=None):
    """The base URL requests go to: --base-url, else $OPENAI_BASE_URL, else the OpenAI API; InputError if malformed."""
    endpoint = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_ENDPOINT).rstrip("/")
    try:
        parsed = urlparse(endpoint)
        usable = parsed.scheme in ("http", "https") and bool(parsed.hostname) and (parsed.port or 0) >= 0
    except ValueError:  # a broken IPv6 literal or port
        usable = False
    if not usable:
        source = "--base-url" if base_url else "$OPENAI_BASE_URL"
        raise InputError(f"{source} {endpoint}: not an http(s) URL with a host; give one such as "
                         "http://127.0.0.1:8000/v1")
    return endpoint


def is_local(endpoint):
    """True for a loopback endpoint (a self-hosted server that cannot bill): exactly `localhost` or a loopback
    IP literal, never a name that merely starts like one (`127.0.0.1.evil.example`)."""
    host = (urlparse(endpoint).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_completion(body):
    """The fields picforge keeps from a chat-completions response body; MalformedCompletion if unusable."""
    try:
        data = json.loads(body)
    except ValueError as err:
        raise MalformedCompletion(f"body is not JSON ({err.msg} at char {err.pos})") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedCompletion("body has no choices")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str) or not content.strip():
        raise MalformedCompletion("choices[0].message.content is missing or empty")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    counts = {k: usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
    well_formed = all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts.values())
    return {
        "id": data.get("id"),
        "model": data.get("model"),
        "content": content.strip(),
        "finish_reason": choices[0].get("finish_reason"),
        "usage": counts if well_formed else None,
    }


def estimate_tokens(text):
    """A deliberately high token count for text (about 3 characters a token)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN_LOW) + 8


class Budget:
    """Per-run caps on requests and tokens. Each request is charged its worst case (prompt estimate plus the
    request's max_tokens), which the client can verify, never the usage a server reports."""

    def __init__(self, max_requests, max_tokens):
        self.max_requests, self.max_tokens = max_requests, max_tokens
        self.requests = self.tokens = 0
        self.lock = threading.RLock()

    def fits(self, worst_tokens):
        """True when one more request of at most `worst_tokens` tokens stays within both caps."""
        with self.lock:
            return self.requests < self.max_requests and self.tokens + worst_tokens <= self.max_tokens

    def reserve(self, worst_tokens):
        """Charge one request and `worst_tokens` tokens; False when either cap would be passed."""
        with self.lock:
            if not self.fits(worst_tokens):
                return False
            self.requests += 1
            self.tokens += worst_tokens
            return True


def make_client(endpoint, *, max_retries, timeout):
    """The official OpenAI client for `endpoint`, with its key from $OPENAI_API_KEY (placeholder for local servers)."""
    from openai import OpenAI

    api_key = os.environ.get("OPENAI_API_KEY")
    if not api_key:
        if not is_local(endpoint):
            raise InputError(f"{endpoint}: no API key; export OPENAI_API_KEY (it is read only from the environment)")
        api_key = LOCAL_PLACEHOLDER_KEY
    return OpenAI(base_url=endpoint, api_key=api_key, max_retries=max_retries, timeout=timeout)


def openai_sender(client, settings):
    """A function messages -> (parsed completion, retries taken) calling the chat-completions API."""
    def send(messages):
        raw = client.chat.completions.with_raw_response.create(
            model=settings.model, messages=messages, temperature=settings.temperature,
            max_tokens=settings.max_tokens, seed=settings.seed)
        return parse_completion(raw.text), raw.retries_taken
    return send


def describe_error(err, limit=500):
    """A short description of an API error, with the API key (should a server echo it) blanked out."""
    text = f"{type(err).__name__}: {err}"
    api_key = os.environ.get("OPENAI_API_KEY")
    if api_key:
        text = text.replace(api_key, "***")
    return text[:limit]


def _fatal(err):
    """True for errors that every further request would repeat (bad key, no such model or URL)."""
    import openai
    return isinstance(err, (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError))


class Fetcher:
    """Answers distinct jobs from the cache or through `send`, counting what it did."""

    def __init__(self, cache, send, budget, settings):
        self.cache, self.send, self.budget, self.settings = cache, send, budget, settings
        self.counts = {"requests_sent": 0, "cache_hits": 0, "retries": 0, "tokens_budgeted": 0,
                       "tokens_reported": 0}
        self.lock = threading.Lock()

    def answer(self, job):
        """Send one job; returns its outcome (answered/malformed/error) after caching a good answer."""
        import openai
        reported = 0
        try:
            response, retries = self.send(job.messages)
            reported = response["usage"]["total_tokens"] if response["usage"] else 0
            self.cache.put(job.key, {"model": self.settings.model, "messages": job.messages,
                                     "params": self.settings.params()}, response)
            outcome = {"status": "answered", "response": response}
        except MalformedCompletion as err:
            retries, outcome = 0, {"status": "malformed", "error": str(err)}
        except (openai.APIStatusError, openai.APIConnectionError) as err:
            if _fatal(err):
                raise
            retries, outcome = 0, {"status": "error", "error": describe_error(err)}
        with self.lock:
            self.counts["requests_sent"] += 1
            self.counts["retries"] += retries
            self.counts["tokens_budgeted"] += job.worst_tokens
            self.counts["tokens_reported"] += reported
        return outcome

    def run(self, jobs, concurrency):
        """{key: outcome} for every job: cached answers first, then requests in job order within the budget."""
        outcomes, pending = {}, []
        for job in jobs:
            cached = self.cache.get(job.key)
            if cached is not None:
                outcomes[job.key] = {"status": "answered", "response": cached}
                self.counts["cache_hits"] += 1
            else:
                pending.append(job)
        if self.send is None:
            outcomes.update({job.key: {"status": "not-cached"} for job in pending})
            return outcomes
        fatal = None
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="stsb-generate") as pool:
            in_flight = {}

            def collect(done):
                nonlocal fatal
                for future in done:
                    job = in_flight.pop(future)
                    try:
                        outcomes[job.key] = future.result()
                    except Exception as err:
                        if not _fatal(err):
                            raise
                        fatal = fatal or err

            for job in pending:
                while in_flight and (len(in_flight) >= concurrency or not self.budget.fits(job.worst_tokens)):
                    collect(wait(in_flight, return_when=FIRST_COMPLETED)[0])
                if fatal is not None or not self.budget.reserve(job.worst_tokens):
                    break
                in_flight[pool.submit(self.answer, job)] = job
            collect(wait(in_flight)[0])
        if fatal is not None:
            raise InputError(f"{self.settings.endpoint}: {type(fatal).__name__} (HTTP {fatal.status_code}) for model "
                             f"{self.settings.model!r}; check OPENAI_API_KEY, --model and --base-url "
                             "(answers received so far are cached)")
        for job in pending:
            outcomes.setdefault(job.key, {"status": "over-budget"})
        return outcomes


def generation_record(pair, letter, prompt, key, outcome, exact=False):
    """The `generations` row of one pair: its answer (if any) and where the target phrase sits in it."""
    record = {
        "pair_id": pair["pair_id"], "line": pair["line"], "genre": pair["genre"], "score": pair["score"],
        "origin_phrase": pair["sentence1"], "target_sentence": pair["sentence2"],
        "letter": letter, "prompt": prompt, "cache_key": key, "status": outcome["status"],
        "context": None, "target_phrase": None, "target_start": None, "starts_with_letter": None,
        "error": outcome.get("error"),
    }
    if outcome["status"] == "answered":
        context = outcome["response"]["content"]
        found = verbatim.locate(context, pair["sentence2"], exact)
        record.update(context=context, starts_with_letter=context[:1].upper() == letter,
                      status="kept" if found else "no-verbatim")
        if found:
            record["target_start"], record["target_phrase"] = found
    return record


def generation_counters(records, fetch_counts):
    """The funnel of a generation run, with the verbatim drop rate over answered pairs."""
    by_status = {}
    for record in records:
        by_status[record["status"]] = by_status.get(record["status"], 0) + 1
    answered = by_status.get("kept", 0) + by_status.get("no-verbatim", 0)
    counters = {f"{STAGE}/pairs": len(records), **{f"{STAGE}/{k}": v for k, v in sorted(by_status.items())},
                **{f"{STAGE}/{k}": v for k, v in fetch_counts.items()},
                f"{STAGE}/starts_with_letter": sum(1 for r in records if r["starts_with_letter"])}
    drop_rate = by_status.get("no-verbatim", 0) / answered if answered else None
    pending = len(records) - answered
    return counters, drop_rate, pending


def generate_contexts(run, stsb_path, settings, *, cache_dir, offline=False, exact=False, max_requests=1500,
                      max_tokens=500_000, concurrency=4, max_retries=4, timeout=60.0, force=False):
    """Run stage `generations`: one context per STS-B pair, written as Parquet with a manifest; returns it."""
    started = time.time()
    pairs = read_pairs(stsb_path)
    inputs = {"stsb": input_identity(stsb_path)}
    options = {"model": settings.model, **settings.params(), "exact_match": exact}
    stage_print = fingerprint(STAGE, inputs, options)
    done = None if force else run.up_to_date(STAGE, stage_print)
    if done is not None:
        log.info("skipping %s: up to date", STAGE)
        return dict(done, skipped=True)
    planned, jobs = [], {}
    for pair in pairs:
        letter = prompts.start_letter(settings.seed, pair["pair_id"])
        prompt = prompts.build_prompt(pair["sentence2"], letter)
        messages = prompts.chat_messages(prompt)
        key = cache_key(settings.model, messages, settings.params())
        planned.append((pair, letter, prompt, key))
        jobs.setdefault(key, Job(key, messages, estimate_tokens(prompt) + settings.max_tokens))
    send = None
    if not offline:
        send = openai_sender(make_client(settings.endpoint, max_retries=max_retries, timeout=timeout), settings)
    fetcher = Fetcher(ResponseCache(cache_dir), send, Budget(max_requests, max_tokens), settings)
    outcomes = fetcher.run(list(jobs.values()), concurrency)
    records = [generation_record(pair, letter, prompt, key, outcomes[key], exact)
               for pair, letter, prompt, key in planned]
    counters, drop_rate, pending = generation_counters(records, fetcher.counts)
    return run.write_stage(STAGE, records, SCHEMA, inputs=inputs, options=options, counters=counters,
                           started=started, complete=pending == 0, pending=pending, verbatim_drop_rate=drop_rate,
                           budget={"max_requests": max_requests, "max_tokens": max_tokens}, offline=offline)


def default_cache(out):
    """RUN_DIR/cache for a local run directory; remote run directories need --cache."""
    if "://" in out:
        raise InputError(f"{out}: the response cache must be local; pass --cache DIR")
    return os.path.join(out, "cache")


def generate_into(out, stsb_path, *, model, base_url, live, temperature, completion_tokens, seed, cache_dir,
                  offline, exact, max_requests, max_tokens, concurrency, max_retries, timeout, force):
    """`stsb-context` generation into run folder `out`; a non-loopback endpoint needs `live` (or `offline`)."""
    from picforge.rundir import RunDir, writable_folder

    if not stsb_path or not out:
        raise InputError("stsb-context: generation needs --stsb FILE and --out RUN_DIR")
    endpoint = resolve_endpoint(base_url)
    if not offline and not live and not is_local(endpoint):
        raise InputError(f"{endpoint}: not a loopback server, so requests may cost money; pass --live (spending "
                         f"at most --max-requests {max_requests} / --max-tokens {max_tokens}) or "
                         "--offline to replay the cache")
    settings = GenerationSettings(model=model, endpoint=endpoint, temperature=temperature,
                                  max_tokens=completion_tokens, seed=seed)
    return generate_contexts(
        RunDir(writable_folder(out)), stsb_path, settings, cache_dir=cache_dir or default_cache(out),
        offline=offline, exact=exact, max_requests=max_requests, max_tokens=max_tokens, concurrency=concurrency,
        max_retries=max_retries, timeout=timeout, force=force)
