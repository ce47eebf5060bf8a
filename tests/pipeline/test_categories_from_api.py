"""`picforge mine --categories-from-api`: the `domains` stage takes page categories from a local api.php."""
import apache_beam as beam
import pytest
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from picforge.cli import main
from picforge.errors import InputError
from picforge.rundir import RunDir
from picforge.stage_jobs import beam_counters
from pipeline.mine import MineOptions, mine
from pipeline.stages.domains import ApiCategoryTexts, ScoreDomains
from tests.conftest import pipeline_fixture
from tests.pipeline.dump_factory import article_wikitext, two_phrase_pages, write_dump
from tests.pipeline.local_mediawiki_api import HIDDEN, serving

STAGES = ("read-dump", "clean", "sentences", "phrases", "group", "pairs", "domains", "select")
CONTACT = "picforge-tests@example.org"
# What the API says: unlike their wikitext, pages 11 and 12 ("massive figure") share their visible categories;
# 13 and 14 ("perfect pitch") have the same ones as in the wikitext; 15 is in no pair.
API_PAGES = {
    11: ("Temple of Ardos", ["Sculpture", "Ancient art", HIDDEN[0]]),
    12: ("Northwind Holdings", ["Sculpture", "Ancient art"]),
    13: ("St Cecilia's organ", ["Church music", "Pipe organs"]),
    14: ("Westbury cricket ground", ["Cricket grounds in England", "Sports venues"]),
    15: ("Quiet village", ["Villages in Wales"]),
}


def quiet_village():
    return dict(title="Quiet village", page_id=15, wikitext=article_wikitext([
        "The quiet village lies in a green valley between two rivers. "
        "Farmers grow barley and oats on the gentle slopes."], ["Villages in Wales"]))


def requested_ids(api, since=0):
    """Page ids of the batches asked since the `since`-th request (a `continue` request repeats its batch's ids)."""
    batches = [request["pageids"] for request in api.requests[since:] if "clcontinue" not in request]
    return [int(page_id) for batch in batches for page_id in batch.split("|")]


def ranked(run):
    return [(t["phrase"], t["domain_score"]) for t in run.iter_records("select")]


@pipeline_fixture(scope="module")
def runs(tmp_path_factory, wic_zip):
    """One run directory mined without the API, then with it (twice), without it again, with it again, by CLI."""
    tmp = tmp_path_factory.mktemp("categories-from-api")
    dump = write_dump(tmp / "pages.xml.bz2", two_phrase_pages() + [quiet_village()])
    out = str(tmp / "run")
    run = RunDir(out)
    steps = {}
    with serving(API_PAGES) as api:
        from_api = MineOptions(categories_from_api=True, categories_api_url=api.url,
                               categories_cache_dir=str(tmp / "cache"), categories_contact=CONTACT)
        cli_args = ["mine", "--input", dump, "--wic", str(wic_zip), "--out", out, "--categories-from-api",
                    "--categories-api-url", api.url, "--categories-cache-dir", str(tmp / "cache")]
        for name, mine_it in (("wikitext", lambda: mine(dump, str(wic_zip), out)),
                              ("api", lambda: mine(dump, str(wic_zip), out, from_api)),
                              ("api again", lambda: mine(dump, str(wic_zip), out, from_api)),
                              ("wikitext again", lambda: mine(dump, str(wic_zip), out)),
                              ("api from cache", lambda: mine(dump, str(wic_zip), out, from_api)),
                              ("cli", lambda: main(cli_args))):
            sent = len(api.requests)
            steps[name] = {"returned": mine_it(), "requested": requested_ids(api, sent),
                           "requests": len(api.requests) - sent, "ranked": ranked(run),
                           "manifests": {stage: run.read_manifest(stage) for stage in STAGES}}
    return steps


def stages_rerun(runs, before, after):
    """Stages whose manifest was rewritten between two steps (a skipped stage keeps its manifest as it was)."""
    return [stage for stage in STAGES
            if runs[after]["manifests"][stage] != runs[before]["manifests"][stage]]


def test_domain_scores_and_ranking_come_from_the_api(runs):
    wikitext, api = dict(runs["wikitext"]["ranked"]), dict(runs["api"]["ranked"])
    assert [phrase for phrase, _ in runs["wikitext"]["ranked"]] == ["massive figure", "perfect pitch"]
    assert wikitext["massive figure"] < 0.2
    assert api["massive figure"] == pytest.approx(1.0, abs=1e-5)  # same visible categories from the API
    assert api["perfect pitch"] == pytest.approx(wikitext["perfect pitch"], abs=2e-6)  # same categories either way
    assert [phrase for phrase, _ in runs["api"]["ranked"]] == ["perfect pitch", "massive figure"]
    assert runs["api"]["manifests"]["domains"]["options"]["categories_api_url"].startswith("http://127.0.0.1:")


def test_only_the_paired_pages_are_asked_once(runs):
    assert sorted(runs["api"]["requested"]) == [11, 12, 13, 14]  # page 15 is in no pair
    counters = runs["api"]["manifests"]["domains"]["counters"]
    # one batch; its 8 categories come in two answers (the local API gives 7 per answer, then `continue`)
    assert counters["domains/api-requests"] == runs["api"]["requests"] == 2 and counters["domains/api-pages"] == 4
    assert "domains/api-pages-without-categories" not in counters  # a counter never incremented is not reported


def test_toggling_the_flag_reruns_only_domains_and_select(runs):
    for before, after in (("wikitext", "api"), ("api again", "wikitext again"), ("wikitext again", "api from cache")):
        assert stages_rerun(runs, before, after) == ["domains", "select"]
        fingerprints = [runs[step]["manifests"]["domains"]["fingerprint"] for step in (before, after)]
        assert fingerprints[0] != fingerprints[1]
    assert runs["wikitext again"]["ranked"] == runs["wikitext"]["ranked"]


def test_a_rerun_with_the_same_options_skips_every_stage_and_asks_nothing(runs):
    assert stages_rerun(runs, "api", "api again") == []
    assert runs["cli"]["returned"] == 0
    assert stages_rerun(runs, "api from cache", "cli") == []  # the CLI flags give the same fingerprints
    assert runs["api again"]["requests"] == runs["cli"]["requests"] == 0


def test_domains_rerun_with_the_api_is_answered_from_the_cache(runs):
    assert runs["api from cache"]["requests"] == 0
    counters = runs["api from cache"]["manifests"]["domains"]["counters"]
    assert counters["domains/api-requests"] == 0 and counters["domains/api-pages"] == 4
    assert runs["api from cache"]["ranked"] == runs["api"]["ranked"]


def test_score_domains_counts_pages_the_api_does_not_know_or_categorise_as_without_categories(tmp_path):
    pages = {1: ("One", ["Sculpture", "Ancient art"]), 2: ("Two", ["Ancient art", "Sculpture"]),
             4: ("Four", list(HIDDEN)), 5: ("Five", ["Never asked"])}
    pairs = [{"phrase": "a", "sentence_id1": "1:0", "sentence_id2": "2:0"},
             {"phrase": "b", "sentence_id1": "1:1", "sentence_id2": "3:0"},  # 3: missing on the wiki
             {"phrase": "c", "sentence_id1": "2:1", "sentence_id2": "4:0"}]  # 4: hidden categories only
    with serving(pages) as api:
        pipeline = test_pipeline.TestPipeline()
        scored = (pipeline | beam.Create(pairs)
                  | ScoreDomains(ApiCategoryTexts(api.url, str(tmp_path), CONTACT))
                  | beam.Map(lambda p: (p["phrase"], p["domain_score"] and round(p["domain_score"], 4))))
        assert_that(scored, equal_to([("a", 1.0), ("b", None), ("c", None)]))
        result = pipeline.run()
        result.wait_until_finish()
    assert sorted(requested_ids(api)) == [1, 2, 3, 4]
    counters = beam_counters(result)
    assert counters["domains/pairs-without-categories"] == 2
    assert counters["domains/api-pages-without-categories"] == 2


def test_a_remote_cache_dir_is_refused_before_anything_runs(tmp_path, wic_zip):
    options = MineOptions(categories_from_api=True, categories_cache_dir="gs://bucket/categories")
    with pytest.raises(InputError, match="--categories-cache-dir gs://bucket/categories.*mounted on every worker"):
        mine(str(tmp_path / "none.xml"), str(wic_zip), str(tmp_path / "run"), options)
    assert not (tmp_path / "run").exists()
