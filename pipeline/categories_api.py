"""Visible categories of Wikipedia pages from the MediaWiki API (`--categories-from-api`), cached on disk.

Pages are asked for 50 ids at a time (`action=query&prop=categories&clshow=!hidden`), following `continue`
until every category of the batch is in; answers go to a JSON-lines cache so that no page is asked twice,
and 429/5xx answers, `maxlag` errors and dropped connections are retried with backoff (honouring Retry-After).
"""
import fcntl
import json
import logging
import os
import time

import apache_beam as beam
import requests
from apache_beam.metrics import Metrics

from picforge import __version__
from pipeline.category_source import CATEGORIES_API_URL, CATEGORIES_CACHE_DIR

BATCH_SIZE = 50  # the API's limit on pageids for clients without the apihighlimits right
SHARD_IDS = 100_000  # page ids per cache file (enwiki: ~10K articles, ~1 MB per file)
RETRY_STATUSES = {429, 500, 502, 503, 504}
STAGE = "categories-api"
log = logging.getLogger(__name__)


class CategoriesApiError(RuntimeError):
    """The API refused or kept failing a request; the message names the request and the fix."""


def user_agent(contact=None):
    """A User-Agent after the Wikimedia policy: tool/version (contact) library/version; contact: e-mail or URL."""
    contact = contact or os.environ.get("PICFORGE_CONTACT")
    if not contact:
        log.warning("no contact for the MediaWiki User-Agent: set PICFORGE_CONTACT to an e-mail or URL "
                    "(Wikimedia may block anonymous clients)")
        contact = "contact not set"
    return f"picforge/{__version__} ({contact}) phrase-in-context dataset builder, python-requests/{requests.__version__}"


def query_params(page_ids, continuation=None, maxlag=5):
    """Parameters of one API request for the visible categories of up to 50 pages."""
    params = {
        "action": "query", "prop": "categories", "clshow": "!hidden", "cllimit": "max",
        "pageids": "|".join(str(page_id) for page_id in page_ids),
        "format": "json", "formatversion": "2", "maxlag": str(maxlag),
    }
    params.update(continuation or {})
    return params


def category_name(title):
    """'Category:Ancient Greek sculpture' → 'Ancient Greek sculpture' (any wiki's namespace prefix)."""
    return title.split(":", 1)[1] if ":" in title else title


def parse_pages(answer):
    """(categories by page id, ids of missing pages) of one formatversion=2 query answer."""
    found, missing = {}, set()
    for page in answer.get("query", {}).get("pages", []):
        page_id = int(page["pageid"]) if "pageid" in page else None
        if page.get("missing") or page.get("invalid") or page_id is None:
            if page_id is not None:
                missing.add(page_id)
            continue
        found[page_id] = [category_name(c["title"]) for c in page.get("categories", [])]
    return found, missing


def retry_delay(response, attempt, backoff, max_backoff):
    """Seconds to wait before retrying: the server's Retry-After when given, else exponential backoff."""
    header = response.headers.get("Retry-After") if response is not None else None
    if header and header.strip().isdigit():
        return min(float(header), max_backoff)
    return min(backoff * 2 ** attempt, max_backoff)


class CategoryCache:
    """JSON lines {"page_id", "categories", "missing"} sharded by page-id range under `directory`."""

    def __init__(self, directory):
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        self._shards = {}

    def _path(self, shard):
        return os.path.join(self.directory, f"categories-{shard:06d}.jsonl")

    def _shard(self, shard):
        if shard not in self._shards:
            entries = {}
            path = self._path(shard)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as fh:
                    for line in fh:
                        try:
                            record = json.loads(line)
                        except json.JSONDecodeError:  # a line cut short by a crash: that page is asked again
                            continue
                        entries[record["page_id"]] = record["categories"]
            self._shards[shard] = entries
        return self._shards[shard]

    def get(self, page_id):
        """The cached categories of a page ([] for a missing page), or None when never fetched."""
        return self._shard(page_id // SHARD_IDS).get(page_id)

    def put(self, categories, missing=()):
        """Append fetched pages (one locked write per cache file, safe for concurrent workers)."""
        records = [{"page_id": p, "categories": c, "missing": False} for p, c in categories.items()]
        records += [{"page_id": p, "categories": [], "missing": True} for p in missing]
        by_shard = {}
        for record in records:
            by_shard.setdefault(record["page_id"] // SHARD_IDS, []).append(record)
        for shard, shard_records in by_shard.items():
            text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in shard_records)
            with open(self._path(shard), "a", encoding="utf-8") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                fh.write(text)
                fcntl.flock(fh, fcntl.LOCK_UN)
            self._shard(shard).update((r["page_id"], r["categories"]) for r in shard_records)


class CategoryClient:
    """Fetches visible categories through the cache; `requests_sent` counts HTTP requests made."""

    def __init__(self, cache_dir, api_url=CATEGORIES_API_URL, session=None, contact=None, maxlag=5, max_attempts=8,
                 backoff=1.0, max_backoff=120.0, timeout=60):
        self.cache = CategoryCache(cache_dir)
        self.api_url = api_url
        self.session = session or requests.Session()
        self.session.headers["User-Agent"] = user_agent(contact)
        self.maxlag = maxlag
        self.max_attempts = max_attempts
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.requests_sent = 0

    def categories(self, page_ids):
        """{page_id: [visible categories]} for `page_ids` ([] for pages the wiki does not have)."""
        page_ids = list(dict.fromkeys(int(p) for p in page_ids))
        result = {p: self.cache.get(p) for p in page_ids}
        todo = [p for p in page_ids if result[p] is None]
        for start in range(0, len(todo), BATCH_SIZE):
            batch = todo[start:start + BATCH_SIZE]
            found, missing = self.fetch_batch(batch)
            self.cache.put(found, missing)
            result.update(found)
            result.update((p, []) for p in missing)
        return result

    def fetch_batch(self, page_ids):
        """(categories by page id, missing ids) of ≤50 pages from the API, following every `continue`."""
        if len(page_ids) > BATCH_SIZE:
            raise ValueError(f"at most {BATCH_SIZE} page ids per request, got {len(page_ids)}")
        found, missing = {}, set()
        continuation = None
        while True:
            answer = self._get(query_params(page_ids, continuation, self.maxlag), page_ids)
            batch_found, batch_missing = parse_pages(answer)
            for page_id, names in batch_found.items():  # a continued answer carries the rest of a page's list
                found.setdefault(page_id, []).extend(names)
            missing |= batch_missing
            continuation = answer.get("continue")
            if not continuation:
                break
        unanswered = set(page_ids) - set(found) - missing
        if unanswered:
            raise CategoriesApiError(
                f"{self.api_url}: the answer for page ids {page_ids[0]}…{page_ids[-1]} left out {sorted(unanswered)[:5]}; "
                "is this a MediaWiki api.php endpoint? Re-running resumes from the cache")
        return found, missing

    def _get(self, params, page_ids):
        what = f"{self.api_url} (page ids {page_ids[0]}…{page_ids[-1]})"
        for attempt in range(self.max_attempts):
            response = None
            try:
                response = self.session.get(self.api_url, params=params, timeout=self.timeout, allow_redirects=False)
                self.requests_sent += 1
            except (requests.ConnectionError, requests.Timeout) as err:
                problem = f"connection failed: {err}"
            else:
                if response.status_code in RETRY_STATUSES:
                    problem = f"HTTP {response.status_code}"
                elif response.is_redirect:  # not followed: each hop would be a request `requests_sent` never saw
                    raise CategoriesApiError(f"{what}: HTTP {response.status_code}, a redirect to "
                                             f"{response.headers.get('location')}; redirects are not followed: pass "
                                             "the final URL as --categories-api-url")
                elif response.status_code != 200:
                    raise CategoriesApiError(f"{what}: HTTP {response.status_code}; check the API URL")
                else:
                    answer = self._json(response, what)
                    error = answer.get("error")
                    if error is None:
                        return answer
                    if error.get("code") not in ("maxlag", "ratelimited"):
                        raise CategoriesApiError(
                            f"{what}: API error {error.get('code')}: {error.get('info')}; check the request parameters")
                    problem = f"API {error.get('code')}: {error.get('info')}"
            delay = retry_delay(response, attempt, self.backoff, self.max_backoff)
            log.warning("%s: %s; retrying in %.1f s (attempt %d of %d)", what, problem, delay, attempt + 1,
                        self.max_attempts)
            time.sleep(delay)
        raise CategoriesApiError(
            f"{what}: still failing after {self.max_attempts} attempts ({problem}); "
            "check the network or wait, then re-run: fetched pages are cached")

    @staticmethod
    def _json(response, what):
        try:
            return response.json()
        except ValueError as err:
            raise CategoriesApiError(f"{what}: the answer is not JSON ({err}); is this an api.php URL?") from err


def fetch_categories(page_ids, cache_dir, api_url=CATEGORIES_API_URL, **client_options):
    """{page_id: [visible categories]} from the MediaWiki API, through the on-disk cache in `cache_dir`."""
    return CategoryClient(cache_dir, api_url, **client_options).categories(page_ids)


class FetchCategories(beam.DoFn):
    """Batches of page ids → (page_id, [visible categories]) from the MediaWiki API, cached per worker.

    Counters go to the `namespace` given (a stage's name puts them in that stage's manifest)."""

    def __init__(self, api_url=CATEGORIES_API_URL, cache_dir=None, contact=None, namespace=STAGE):
        self.api_url = api_url
        self.cache_dir = cache_dir
        self.contact = contact
        self.pages = Metrics.counter(namespace, "api-pages")
        self.without = Metrics.counter(namespace, "api-pages-without-categories")
        self.requests = Metrics.counter(namespace, "api-requests")

    def setup(self):
        cache_dir = os.path.expanduser(self.cache_dir or CATEGORIES_CACHE_DIR)
        self.client = CategoryClient(cache_dir, self.api_url, contact=self.contact)

    def process(self, page_ids):
        sent = self.client.requests_sent
        categories = self.client.categories(page_ids)
        self.requests.inc(self.client.requests_sent - sent)
        for page_id, names in categories.items():
            self.pages.inc()
            if not names:
                self.without.inc()
            yield page_id, names

    def teardown(self):
        self.client.session.close()
