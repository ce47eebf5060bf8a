"""Categories from the MediaWiki API, against a local api.php on 127.0.0.1 that speaks formatversion=2 JSON."""
import time
from http.server import ThreadingHTTPServer

import apache_beam as beam
import pytest
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from pipeline.categories_api import (BATCH_SIZE, CategoriesApiError, CategoryClient, FetchCategories,
                                     fetch_categories)
from tests.pipeline.local_mediawiki_api import HIDDEN, ApiHandler, serving

MISSING_ID = 999_999


def wiki_pages(n=120):
    """page id → (title, [category titles]) with 1–4 visible categories and every tenth page hidden ones too."""
    pages = {}
    for i in range(n):
        page_id = 1000 + 7 * i
        visible = [f"Topic {i % 13} in science", f"Born in {1800 + i}", "Living people", f"Place {i}"][: 1 + i % 4]
        pages[page_id] = (f"Article {i}", visible + (list(HIDDEN) if i % 10 == 0 else []))
    return pages


@pytest.fixture
def api():
    with serving(wiki_pages()) as server:
        yield server


def expected_categories(api, page_ids):
    return {p: [t for t in sorted(api.pages[p][1]) if t not in HIDDEN] if p in api.pages else [] for p in page_ids}


def test_fetches_visible_categories_in_batches_of_50_following_continue(api, tmp_path):
    page_ids = sorted(api.pages)
    client = CategoryClient(str(tmp_path), api.url, contact="picforge-tests@example.org")

    assert client.categories(page_ids) == expected_categories(api, page_ids)
    batches = {r["pageids"] for r in api.requests}
    assert sorted(len(b.split("|")) for b in batches) == [20, 50, 50]
    continued = [r for r in api.requests if "clcontinue" in r]
    assert continued and all(r["continue"] == "||" for r in continued)
    assert client.requests_sent == len(api.requests)


def test_a_missing_page_gets_no_categories_and_the_second_call_is_answered_from_the_cache(api, tmp_path):
    page_ids = sorted(api.pages)[:5] + [MISSING_ID]
    first = fetch_categories(page_ids, str(tmp_path), api.url)
    sent = len(api.requests)

    client = CategoryClient(str(tmp_path), api.url)
    assert client.categories(page_ids) == first == expected_categories(api, page_ids)
    assert first[MISSING_ID] == []
    assert client.requests_sent == 0 and len(api.requests) == sent


def test_429_with_retry_after_is_waited_out_then_succeeds(api, tmp_path):
    api.script.append((429, {"Retry-After": "1"}, {"error": {"code": "too-many-requests", "info": "slow down"}}))
    page_ids = sorted(api.pages)[:3]
    started = time.monotonic()

    assert fetch_categories(page_ids, str(tmp_path), api.url) == expected_categories(api, page_ids)
    assert time.monotonic() - started >= 1.0
    assert len(api.requests) == 2


def test_maxlag_error_is_retried_after_the_servers_delay(api, tmp_path):
    lagged = {"error": {"code": "maxlag", "info": "Waiting for 10.64.48.5: 7 seconds lagged.", "host": "10.64.48.5",
                        "lag": 7, "type": "db"}, "servedby": "mw-local"}
    api.script.append((200, {"Retry-After": "1", "X-Database-Lag": "7"}, lagged))
    page_ids = sorted(api.pages)[:2]

    assert fetch_categories(page_ids, str(tmp_path), api.url) == expected_categories(api, page_ids)
    assert len(api.requests) == 2 and api.requests[0]["maxlag"] == "5"


def test_server_errors_are_retried_with_backoff_then_reported_with_the_fix(api, tmp_path):
    api.script.extend([(503, {}, {"error": "unavailable"})] * 3)
    client = CategoryClient(str(tmp_path), api.url, max_attempts=3, backoff=0.01)
    page_ids = sorted(api.pages)[:4]

    with pytest.raises(CategoriesApiError, match=r"page ids 1000…1021.*3 attempts \(HTTP 503\).*re-run"):
        client.categories(page_ids)
    assert len(api.requests) == 3
    assert client.categories(page_ids) == expected_categories(api, page_ids)  # the next run succeeds


def test_a_refused_connection_is_retried_then_reported(tmp_path):
    with ThreadingHTTPServer(("127.0.0.1", 0), ApiHandler) as closed:
        url = f"http://127.0.0.1:{closed.server_address[1]}/w/api.php"
    client = CategoryClient(str(tmp_path), url, max_attempts=2, backoff=0.01)

    with pytest.raises(CategoriesApiError, match="connection failed"):
        client.categories([1000])
    assert client.requests_sent == 0


def test_an_api_error_other_than_lag_is_not_retried(api, tmp_path):
    api.script.append((200, {}, {"error": {"code": "badinteger", "info": 'Invalid value "x" for integer parameter'}}))

    with pytest.raises(CategoriesApiError, match="API error badinteger"):
        fetch_categories([1000], str(tmp_path), api.url)
    assert len(api.requests) == 1


def test_a_cache_line_cut_short_by_a_crash_is_fetched_again(api, tmp_path):
    page_ids = sorted(api.pages)[:2]
    fetch_categories(page_ids, str(tmp_path), api.url)
    (cache_file,) = tmp_path.glob("categories-*.jsonl")
    lines = cache_file.read_text().splitlines()
    cache_file.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])
    sent = len(api.requests)

    assert fetch_categories(page_ids, str(tmp_path), api.url) == expected_categories(api, page_ids)
    assert len(api.requests) == sent + 1


def test_fetch_categories_dofn_yields_each_page_of_each_batch(api, tmp_path):
    page_ids = sorted(api.pages)[:60] + [MISSING_ID]
    batches = [page_ids[:BATCH_SIZE], page_ids[BATCH_SIZE:]]
    with test_pipeline.TestPipeline() as p:
        fetched = p | beam.Create(batches) | beam.ParDo(FetchCategories(api.url, str(tmp_path)))
        assert_that(fetched, equal_to(list(expected_categories(api, page_ids).items())))


def test_a_redirect_is_not_followed_so_every_request_is_counted(api, tmp_path):
    api.script.extend([(307, {"Location": api.url}, {})] * 5)
    client = CategoryClient(str(tmp_path), api.url, max_attempts=3, backoff=0.01)

    with pytest.raises(CategoriesApiError, match="HTTP 307, a redirect to .*redirects are not followed"):
        client.categories([1000])
    assert len(api.requests) == client.requests_sent == 1
