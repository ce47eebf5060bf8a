"""A multistream dump with its index beside it is read stream by stream, in parallel, into the same articles as
the dump read whole: on the embedded runner, on Dask, and through `picforge mine` to the same triplets."""
import bz2
import logging
import re

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from picforge import progress
from picforge.errors import InputError
from picforge.rundir import RunDir
from pipeline.dump.index import dump_parts, stream_offsets, stream_ranges
from pipeline.dump.pages import article_record, classify_page
from pipeline.dump.reader import expand_inputs, read_pages
from pipeline.stages.read_dump import ReadDump
from tests.cli_helpers import picforge_in_child
from tests.pipeline.dump_factory import write_multistream

PAGES_PER_STREAM = 10  # the sample's 103 pages in 11 streams
SCORES = ("semantic_score", "domain_score")


@pytest.fixture(scope="module")
def multistream_103(enwiki_sample_103, tmp_path_factory):
    """The 103-page sample written as a multistream dump with its index beside it."""
    dump = tmp_path_factory.mktemp("multistream") / "enwiki-20240101-pages-articles-multistream.xml.bz2"
    write_multistream(enwiki_sample_103, dump, PAGES_PER_STREAM)
    return dump


@pytest.fixture(scope="module")
def whole_articles(enwiki_sample_103):
    """The article records of the sample read whole, by the functions ReadDump applies to each page."""
    return [article_record(f, w) for f, w, redirect in read_pages(str(enwiki_sample_103))
            if not classify_page(f, w, redirect)]


def test_index_lines_give_the_sorted_stream_offsets():
    lines = ["600:12:Anarchism\n", "600:25:Autism\n", "1234:39:Albedo: a measure\n", "\n"]
    assert stream_offsets(lines, "index.txt") == [600, 1234]
    assert stream_ranges([600, 1234], 2000) == [(600, 1234), (1234, 2000)]
    with pytest.raises(InputError, match=r"^index.txt: line 2 is not `offset:page_id:title` \('garbage'\)"):
        stream_offsets(["600:12:Anarchism", "garbage"], "index.txt")


def test_streams_give_the_articles_of_the_whole_dump(multistream_103, enwiki_sample_103, whole_articles, caplog,
                                                     monkeypatch):
    parts = dump_parts(expand_inputs(str(multistream_103)), sequential=False)
    assert len(parts) == 11 and all(start is not None for _, start, _ in parts)
    assert len(whole_articles) == 69
    caplog.set_level(logging.INFO, logger=progress.log.name)
    monkeypatch.setattr(progress, "INTERVAL_S", 0)  # a progress line per page, as every 30 s on a long run
    with TestPipeline() as p:
        assert_that(p | "streams" >> ReadDump(str(multistream_103)), equal_to(whole_articles), label="streams")
        assert_that(p | "whole" >> ReadDump(str(enwiki_sample_103)), equal_to(whole_articles), label="whole")
    done = [float(m.group(1)) for r in caplog.records
            if (m := re.search(r"^read-dump: [\d,]+ pages read in .*, (\d+)% done, about .* left$", r.getMessage()))]
    assert len(done) > 150 and max(done) >= 90  # the whole file by compressed bytes read, the streams by streams read
    # with --max-pages the dump is read whole, in order, so the run keeps the first N articles
    assert dump_parts(expand_inputs(str(multistream_103)), sequential=True) == [
        (str(multistream_103), None, multistream_103.stat().st_size)]


@pytest.mark.slow
def test_streams_are_read_in_parallel_on_dask(multistream_103, whole_articles):
    distributed = pytest.importorskip("distributed", reason="DaskRunner needs apache-beam[dask] (dask.distributed)")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        options = PipelineOptions(["--runner", "picforge.dask_runner.DaskRunner",
                                   "--dask_client_address", cluster.scheduler_address])
        with beam.Pipeline(options=options) as p:
            ids = p | ReadDump(str(multistream_103)) | beam.Map(lambda a: (a["page_id"], a["wikitext_sha1"]))
            assert_that(ids, equal_to([(a["page_id"], a["wikitext_sha1"]) for a in whole_articles]))


@pytest.mark.slow
def test_mine_on_the_multistream_dump_selects_the_same_triplets(multistream_103, mined_103, wic_zip, tmp_path):
    code, out, err = picforge_in_child("mine", "--input", multistream_103, "--wic", wic_zip, "--out", tmp_path / "run")
    assert code == 0, err
    streamed, whole = (list(RunDir(str(run)).iter_records("select")) for run in (tmp_path / "run", mined_103))
    assert "read as 11 bz2 streams" in err and f"{len(whole)} triplets selected" in out
    # the encoder's last float bits move with batch composition (as between runners): scores agree to 1e-6
    assert [{**t, **dict.fromkeys(SCORES)} for t in streamed] == [{**t, **dict.fromkeys(SCORES)} for t in whole]
    assert [t[k] for t in streamed for k in SCORES] == pytest.approx([t[k] for t in whole for k in SCORES], abs=2e-6)


def test_an_index_of_another_dump_is_one_line(multistream_103, wic_zip, tmp_path):
    dump = tmp_path / multistream_103.name
    dump.write_bytes(multistream_103.read_bytes())
    index = tmp_path / multistream_103.name.replace("-multistream.xml.bz2", "-multistream-index.txt.bz2")
    index.write_bytes(bz2.compress(b"601:12:Anarchism\n"))
    code, _, err = picforge_in_child("mine", "--input", dump, "--wic", wic_zip, "--out", tmp_path / "run")
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (f"picforge: error: {index}: offset 601 is not the start of a bz2 stream in {dump}, so the "
                           "index belongs to another dump; use the index of the same dump and date, or move it away "
                           "to read the dump whole")


def test_a_damaged_stream_loses_only_its_own_pages(multistream_103, whole_articles, tmp_path, caplog):
    dump = tmp_path / multistream_103.name
    index = multistream_103.with_name(multistream_103.name.replace(".xml.bz2", "-index.txt.bz2"))
    (tmp_path / index.name).write_bytes(index.read_bytes())
    start, end = dump_parts(expand_inputs(str(multistream_103)), sequential=False)[3][1:]
    data = bytearray(multistream_103.read_bytes())
    data[(start + end) // 2] ^= 0xFF  # a bit flip inside the fourth stream
    dump.write_bytes(bytes(data))
    every_id = {a["page_id"] for a in whole_articles}

    def all_but_one_streams_articles(got):  # a stream holds 10 pages, so at most 10 articles
        assert len(every_id) - 10 <= len(got) < len(every_id) and set(got) < every_id, f"{len(got)} articles"

    result = TestPipeline()
    assert_that(result | ReadDump(str(dump)) | beam.Map(lambda a: a["page_id"]), all_but_one_streams_articles)
    outcome = result.run()
    outcome.wait_until_finish()
    unreadable = outcome.metrics().query(beam.metrics.MetricsFilter().with_name("files-unreadable"))["counters"]
    assert [c.committed for c in unreadable] == [1]
    assert any(f"{dump} (stream at byte {start:,})" in r.getMessage() for r in caplog.records)
