"""Nothing finished is lost or silently stale: a damaged dump keeps the pages before the damage, a run killed
(SIGKILL) anywhere in `select` is completed by the next run, one pathological page is a counted skip."""
import bz2
import csv
import os
import shutil
import signal
import subprocess
import sys

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from pipeline.mine import CANDIDATES_CSV, mine
from picforge.rundir import RunDir
from pipeline.dump.pages import classify_page
from pipeline.dump.reader import DumpFileError, iter_pages
from pipeline.stages.read_dump import ReadDump
from tests.pipeline.dump_factory import planted_pages, write_dump

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE_103 = "wiki/enwiki-sample-103pages.xml.bz2"


def readable_article_ids(bz2_bytes):
    """Ids of the articles in what Python's own bz2 module decodes of `bz2_bytes` (every complete block)."""
    ids = []
    try:
        for fields, wikitext, is_redirect in iter_pages([bz2.BZ2Decompressor().decompress(bz2_bytes)]):
            if not classify_page(fields, wikitext, is_redirect):
                ids.append(fields["page_id"])
    except DumpFileError:  # the XML stops where the decoded blocks do
        pass
    return ids


def assert_read_dump_keeps(pattern, expected_ids):
    """A real Beam pipeline reading `pattern` keeps exactly the articles `expected_ids`."""
    with TestPipeline() as p:
        ids = p | ReadDump(pattern) | beam.Map(lambda article: article["page_id"])
        assert_that(ids, equal_to(expected_ids))


@pytest.fixture(scope="module")
def sample_103():
    from tests.conftest import _shared
    return _shared(SAMPLE_103)


def test_a_damaged_bz2_block_keeps_every_page_before_it(sample_103, enwiki_sample, tmp_path):
    data = sample_103.read_bytes()
    damage_at = int(len(data) * 0.4)  # past the first of the sample's bz2 blocks
    damaged = bytearray(data)
    damaged[damage_at:damage_at + 64] = bytes(b ^ 0xFF for b in damaged[damage_at:damage_at + 64])
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "enwiki-103.xml.bz2").write_bytes(bytes(damaged))

    before_damage = readable_article_ids(data[:damage_at])
    assert len(before_damage) >= 10
    assert_read_dump_keeps(str(tmp_path / "damaged" / "enwiki-103.xml.bz2"), before_damage)

    shutil.copy(enwiki_sample, tmp_path / "damaged" / "enwiki-5.xml.bz2")  # several files: the others whole
    whole_5 = readable_article_ids(enwiki_sample.read_bytes())
    assert len(whole_5) == 5
    assert_read_dump_keeps(str(tmp_path / "damaged" / "*.xml.bz2"), before_damage + whole_5)


@pytest.mark.slow  # the whole mine, end to end
def test_one_pathological_page_is_a_counted_skip(tmp_path, wic_zip):
    pages = planted_pages()
    pages.insert(2, {"title": "One long token", "page_id": 999,
                     "wikitext": "A short opening sentence here. The token " + "x" * 3_000_000
                     + " sits in a sentence of ten words.\n\nA last line."})
    dump = write_dump(tmp_path / "pathological.xml.bz2", pages)
    out = str(tmp_path / "run")
    mine(dump, str(wic_zip), out)
    run = RunDir(out)
    assert run.read_manifest("phrases")["counters"]["phrases/skipped-too-long"] == 1
    assert run.count_rows("read-dump") == len(pages)
    assert run.count_rows("select") > 0


@pytest.mark.parametrize("point", ["before-finalise", "mid-finalise", "before-manifest"])
def test_sigkill_in_select_is_completed_by_the_next_run(point, finished_run, tmp_path, wic_zip):
    dump, finished, triplets, candidates = finished_run
    out = tmp_path / "run"
    shutil.copytree(finished, out)
    os.remove(out / "select" / "_manifest.json")  # select must run again (e.g. a changed --top-n)
    (out / CANDIDATES_CSV).write_text("triplet_id\nfrom-an-older-selection\n")
    argv = ["mine", "--input", dump, "--wic", str(wic_zip), "--out", str(out)]
    child = subprocess.Popen([sys.executable, "-m", "tests.reliability.paused_mine", point, *argv], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert child.stdout.readline().strip() == f"paused at {point}"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL

    run = RunDir(str(out))
    if run.read_manifest("select") is not None:  # whatever a manifest says must already be true
        assert list(run.iter_records("select")) == triplets
    stale = out / CANDIDATES_CSV
    assert not stale.exists() or "from-an-older-selection" not in stale.read_text()

    funnel = mine(dump, str(wic_zip), str(out))
    assert list(run.iter_records("select")) == triplets
    assert (out / CANDIDATES_CSV).read_text() == candidates
    assert funnel[-1] == {"step": "6 triplets selected", "count": len(triplets)}
    assert len(list(csv.DictReader(candidates.splitlines()))) == len(triplets)
