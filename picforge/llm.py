"""The one OpenAI-compatible LLM client: cached, concurrent within a bound, capped per HTTP attempt.

Every HTTP attempt, retries included, is charged to the run's request and token caps before it is sent: the
SDK's own retries are off and picforge retries 408/409/429/5xx and connection errors itself, honouring
`Retry-After` when it is usable. Each request has one deadline (connect to last body byte) and a byte bound, both
enforced on every socket read (`picforge.llm_transport`). The API key comes only from the environment; a credential
in the base URL is used for the request and shown, stored or logged nowhere (`redact_url`). Requests to a
non-loopback server need `--live`.
"""
import collections
import dataclasses
import hashlib
import ipaddress
import json
import logging
import math
import os
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from email.utils import parsedate_to_datetime
from urllib.parse import urlparse

from picforge.errors import InputError
from picforge.files import write_atomically
from picforge.llm_transport import RefusedBody, bounded_client
from picforge.options import non_negative_int, positive_float, positive_int
from picforge.redact import redact_stored, redact_text, redact_url
from picforge.stages import option

OPENAI_ENDPOINT = "https://api.openai.com/v1"
LOCAL_PLACEHOLDER_KEY = "EMPTY"  # what vLLM, llama.cpp and Ollama accept when they run without a key
CHARS_PER_TOKEN_LOW = 3  # a generous (high) token estimate for reserving budget before a request
# The most characters one token stands for in any tokenizer picforge talks to (long whitespace and punctuation
# runs included): an answer longer than max_tokens of these was not bounded by max_tokens, so it is refused.
MAX_CHARS_PER_TOKEN = 32
RETRY_STATUSES = {408, 409, 429}
MAX_BACKOFF_S = 20.0
# Bytes an answer's headers and JSON may take beyond its text: usage, ids, escapes and headers fit well within this.
RESPONSE_OVERHEAD_BYTES = 2**20
JSON_BYTES_PER_CHAR = 6  # the most a character takes in JSON (a \uXXXX escape)
# Prompts that, retries included, all fail to connect the same way before a run stops sending (the server is down).
UNREACHABLE_JOBS = 3
log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class EndpointOptions:
    """Where a stage's requests go and how they are sent: the endpoint, requests in flight, retries, each request's
    deadline, replaying the cache only (none changes an answer, so none is in a fingerprint); a stage's Options
    inherit them and add their budget."""

    base_url: str | None = option(None, "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 for vLLM, "
                                        "llama.cpp or Ollama (default $OPENAI_BASE_URL, else the OpenAI API); the "
                                        "endpoint used, without credentials, is an input of the stage", output=False,
                                  metavar="URL")
    concurrency: int = option(4, "requests in flight at once", output=False, type=positive_int, metavar="N")
    max_retries: int = option(4, "retries with exponential backoff on 408/409/429/5xx and connection errors",
                              output=False, type=non_negative_int, metavar="N")
    timeout: float = option(60.0, "deadline of each request, from connecting to its last byte", output=False,
                            type=positive_float, metavar="SECONDS")
    offline: bool = option(False, "replay the cache only; report what is missing", output=False)


@dataclasses.dataclass(frozen=True)
class GenerationSettings:
    """What decides a completion (and so its cache key); `endpoint` never holds a password, `url` is where
    requests go (the endpoint with its credentials, when the user gave some)."""
    model: str = "gpt-3.5-turbo"
    endpoint: str = OPENAI_ENDPOINT
    temperature: float = 1.0
    max_tokens: int = 256
    seed: int = 0
    url: str = dataclasses.field(default="", repr=False, compare=False)

    def params(self):
        return {"endpoint": self.endpoint, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "seed": self.seed}


def endpoint_settings(base_url, **settings):
    """GenerationSettings for --base-url (or $OPENAI_BASE_URL): the redacted endpoint is recorded, the full URL
    only used for requests."""
    url = resolve_endpoint(base_url)
    return GenerationSettings(endpoint=redact_url(url), url=url, **settings)


def check_spend(endpoint, *, live, offline, max_requests, max_tokens):
    """InputError unless requests to `endpoint` are free (loopback), replayed (`offline`) or allowed (`live`)."""
    if not offline and not live and not is_local(endpoint):
        raise InputError(f"{redact_url(endpoint)}: not a loopback server, so requests may cost money; pass --live "
                         f"(spending at most --max-requests {max_requests} / --max-tokens {max_tokens}, retries "
                         "included) or --offline to replay the cache")


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
        raise InputError(f"{source} {redact_url(endpoint)}: not an http(s) URL with a host; give one such as "
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


def check_within_budget(response, max_tokens):
    """MalformedCompletion when an answer is longer than `max_tokens` tokens can be (by its reported completion
    tokens or its characters): a server that ignored the bound, whose text no annotator could read whole."""
    reported = (response.get("usage") or {}).get("completion_tokens")
    chars = len(response["content"])
    if chars > max_tokens * MAX_CHARS_PER_TOKEN or (reported is not None and reported > max_tokens):
        raise MalformedCompletion(f"answer of {chars:,} characters ({reported} completion tokens reported) is longer "
                                  f"than max_tokens {max_tokens} allows")


def estimate_tokens(text):
    """A deliberately high token count for text (about 3 characters a token)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN_LOW) + 8


def job_for(settings, messages):
    """The Job of `messages`: keyed by what decides its completion, charged its prompt estimate plus max_tokens."""
    prompt_tokens = sum(estimate_tokens(message["content"]) for message in messages)
    return Job(cache_key(settings.model, messages, settings.params()), messages, prompt_tokens + settings.max_tokens)


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


def response_byte_bound(max_tokens):
    """The most bytes a response may take (headers included): the longest answer `max_tokens` allows, escaped, plus
    overhead. A longer one would be refused by check_within_budget anyway; this refuses it before it is in memory."""
    return RESPONSE_OVERHEAD_BYTES + max_tokens * MAX_CHARS_PER_TOKEN * JSON_BYTES_PER_CHAR


def make_client(endpoint, *, timeout, max_tokens):
    """The official OpenAI client for `endpoint`, with its key from $OPENAI_API_KEY (placeholder for local servers),
    no retries or redirects of its own (the Fetcher retries, charging each attempt to the caps; a redirect stops the
    run, as following it would send requests the caps never saw), and `timeout` seconds and
    `response_byte_bound(max_tokens)` bytes per request."""
    from openai import OpenAI

    api_key = os.environ.get("OPENAI_API_KEY")
    if not api_key:
        if not is_local(endpoint):
            raise InputError(f"{redact_url(endpoint)}: no API key; export OPENAI_API_KEY (it is read only from the "
                             "environment)")
        api_key = LOCAL_PLACEHOLDER_KEY
    http_client = bounded_client(endpoint, seconds=timeout, max_bytes=response_byte_bound(max_tokens))
    return OpenAI(base_url=endpoint, api_key=api_key, max_retries=0, timeout=timeout, http_client=http_client)


def openai_sender(client, settings):
    """A function messages -> parsed completion making ONE chat-completions HTTP request."""
    def send(messages):
        raw = client.chat.completions.with_raw_response.create(
            model=settings.model, messages=messages, temperature=settings.temperature,
            max_tokens=settings.max_tokens, seed=settings.seed)
        return parse_completion(raw.text)
    return send


def describe_error(err, limit=500):
    """A short description of an API error, with the API key and any URL password (should a server or the HTTP
    library echo them) blanked out."""
    return redact_text(f"{type(err).__name__}: {err}", os.environ.get("OPENAI_API_KEY"))[:limit]


def _retryable(err):
    """True for errors another attempt may not repeat: timeouts, conflicts, rate limits, 5xx, lost connections."""
    import openai
    if isinstance(err, openai.APIConnectionError):
        return True
    return isinstance(err, openai.APIStatusError) and (err.status_code in RETRY_STATUSES or err.status_code >= 500)


def retry_after_seconds(value, now=None):
    """The seconds a Retry-After header value asks to wait (delta-seconds or an HTTP-date), or None when it gives
    no usable hint: absent, garbage, negative, not finite, a date already past, or longer than MAX_BACKOFF_S."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when is None or when.tzinfo is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return seconds if math.isfinite(seconds) and 0 <= seconds <= MAX_BACKOFF_S else None


def backoff_seconds(err, attempt):
    """How long to wait before retry `attempt` (1, 2, …): the server's usable Retry-After, else 0.5 s doubling."""
    response = getattr(err, "response", None)
    hint = retry_after_seconds(response.headers.get("retry-after") if response is not None else None)
    return hint if hint is not None else min(0.5 * 2 ** (attempt - 1), MAX_BACKOFF_S)


def connection_failure(err, url):
    """What stopped a request that never reached the server, e.g. `connection refused to URL`; None for others."""
    import openai
    if not isinstance(err, openai.APIConnectionError) or isinstance(err, openai.APITimeoutError):
        return None
    cause = err.__cause__ or err.__context__
    reason = "connection refused" if "refused" in str(cause).lower() else f"cannot connect ({cause or err})"
    return redact_text(f"{reason} to {url}", os.environ.get("OPENAI_API_KEY"))


def _fatal(err):
    """True for errors that every further request would repeat (bad key, no such model or URL, a redirect)."""
    import openai
    return isinstance(err, (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError)) or \
        _redirect(err) is not None


def _redirect(err):
    """Where an API error's 3xx response points (redacted), or None for any other error."""
    response = getattr(err, "response", None)
    if response is None or not 300 <= response.status_code < 400:
        return None
    return redact_url(response.headers.get("location", "") or "nowhere")


def make_fetcher(settings, *, cache_dir, offline, max_requests, max_tokens, max_retries, timeout):
    """A Fetcher for `settings`: the response cache in `cache_dir`, the caps, and (unless `offline`, which only
    replays the cache) the official client sending to the endpoint with its credentials."""
    client = None if offline else make_client(settings.url or settings.endpoint, timeout=timeout,
                                              max_tokens=settings.max_tokens)
    send = None if client is None else openai_sender(client, settings)
    return Fetcher(ResponseCache(cache_dir), send, Budget(max_requests, max_tokens), settings, max_retries)


class Fetcher:
    """Answers distinct jobs from the cache or through `send` (one HTTP request a call), retrying failed attempts
    up to `max_retries` times; every attempt is charged to the budget first and counted."""

    def __init__(self, cache, send, budget, settings, max_retries=4, sleep=time.sleep):
        self.cache, self.send, self.budget, self.settings = cache, send, budget, settings
        self.max_retries, self.sleep = max_retries, sleep
        self.counts = {"requests_sent": 0, "cache_hits": 0, "retries": 0, "tokens_budgeted": 0,
                       "tokens_reported": 0, "over_budget_retries": 0, "answers_too_long": 0}
        self.lock = threading.Lock()

    def _count(self, **increments):
        with self.lock:
            for name, n in increments.items():
                self.counts[name] += n

    def _check_length(self, response):
        """check_within_budget for this run's max_tokens, counting each answer refused as too long."""
        try:
            check_within_budget(response, self.settings.max_tokens)
        except MalformedCompletion:
            self._count(answers_too_long=1)
            raise

    def answer(self, job):
        """Send one job (its first attempt already charged); returns its outcome (answered/malformed/error) after
        caching a good answer."""
        import openai
        attempt = 0
        while True:
            self._count(requests_sent=1, tokens_budgeted=job.worst_tokens, retries=int(attempt > 0))
            try:
                response = self.send(job.messages)
                self._check_length(response)
            except (MalformedCompletion, RefusedBody) as err:
                return {"status": "malformed", "error": str(err)}
            except (openai.APIStatusError, openai.APIConnectionError) as err:
                if _fatal(err):
                    raise
                if not _retryable(err) or attempt >= self.max_retries:
                    return {"status": "error", "error": describe_error(err),
                            "unreachable": connection_failure(err, self.settings.url or self.settings.endpoint)}
                if not self.budget.reserve(job.worst_tokens):
                    self._count(over_budget_retries=1)
                    return {"status": "error", "error": describe_error(err) + " (no retry: the budget is spent)"}
                attempt += 1
                delay = backoff_seconds(err, attempt)
                log.info("retrying request (retry %d of %d) in %.1f s after %s", attempt, self.max_retries, delay,
                         describe_error(err, limit=120))
                self.sleep(delay)
                continue
            self._count(tokens_reported=response["usage"]["total_tokens"] if response["usage"] else 0)
            self.cache.put(job.key, {"model": self.settings.model, "messages": job.messages,
                                     "params": self.settings.params()}, response)
            return {"status": "answered", "response": response}

    def run(self, jobs, concurrency):
        """{key: outcome} for every job: cached answers first, then requests in job order within the budget."""
        outcomes, pending = {}, []
        for job in jobs:
            try:
                cached = self.cache.get(job.key)
                if cached is not None:
                    self._check_length(cached)
            except MalformedCompletion as err:
                outcomes[job.key] = {"status": "malformed", "error": f"cached {err}"}
                continue
            if cached is not None:
                outcomes[job.key] = {"status": "answered", "response": cached}
                self.counts["cache_hits"] += 1
            else:
                pending.append(job)
        if self.send is None:
            outcomes.update({job.key: {"status": "not-cached"} for job in pending})
            return outcomes
        fatal, unreachable = None, collections.Counter()
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="llm-fetch") as pool:
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
                    else:  # counts the jobs that never reached the server, while nothing else came back
                        unreachable[outcomes[job.key].get("unreachable")] += 1

            def down():
                """The one connection failure every job so far ended with, once UNREACHABLE_JOBS did."""
                (cause, jobs), = unreachable.most_common(1) or [(None, 0)]
                return cause if cause and jobs >= UNREACHABLE_JOBS and len(unreachable) == 1 else None

            for job in pending:
                while in_flight and (len(in_flight) >= concurrency or not self.budget.fits(job.worst_tokens)):
                    collect(wait(in_flight, return_when=FIRST_COMPLETED)[0])
                if fatal is not None or down() or not self.budget.reserve(job.worst_tokens):
                    break
                in_flight[pool.submit(self.answer, job)] = job
            collect(wait(in_flight)[0])
        if fatal is not None and _redirect(fatal) is not None:
            raise InputError(f"{self.settings.endpoint}: answered HTTP {fatal.status_code}, a redirect to "
                             f"{_redirect(fatal)}; redirects are not followed (each hop would be a request past the "
                             "caps): pass the final URL as --base-url (answers received so far are cached)")
        if down():
            raise InputError(f"{down()}: each of the first {sum(unreachable.values())} prompts failed so, retries "
                             "included; start the server or fix --base-url (answers received so far are cached)")
        if fatal is not None:
            raise InputError(f"{self.settings.endpoint}: {type(fatal).__name__} (HTTP {fatal.status_code}) for model "
                             f"{self.settings.model!r}; check OPENAI_API_KEY, --model and --base-url "
                             "(answers received so far are cached)")
        for job in pending:
            outcomes.setdefault(job.key, {"status": "over-budget"})
        return outcomes


def cache_key(model, messages, params):
    """The sha256 of the canonical JSON of what determines a completion."""
    payload = json.dumps({"model": model, "messages": messages, "params": params},
                         sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    """A directory of `<key[:2]>/<key>.json` entries."""

    def __init__(self, directory):
        self.directory = directory

    def path(self, key):
        return os.path.join(self.directory, key[:2], f"{key}.json")

    def get(self, key):
        """The cached answer for `key`, or None (an unreadable entry counts as missing and is logged)."""
        path = self.path(key)
        try:
            with open(path, encoding="utf-8") as fh:
                return json.load(fh)["response"]
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as err:
            log.warning("ignoring unreadable cache entry %s (%s); it will be requested again", path, err)
            return None

    def put(self, key, request, response):
        """Store one answer atomically: readers see the old entry or the whole new one, never a partial file."""
        entry = redact_stored({"key": key, "request": request, "response": response})
        write_atomically(self.path(key), json.dumps(entry, ensure_ascii=False, indent=1, sort_keys=True))
