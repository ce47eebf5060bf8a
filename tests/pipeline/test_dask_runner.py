"""`picforge mine` on DaskRunner (a local dask.distributed cluster) gives the same triplets as on DirectRunner."""
import json

import apache_beam as beam
import pytest
from apache_beam.metrics import Metrics
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to

from picforge.rundir import RunDir
from pipeline.mine import FUNNEL_JSON, MineOptions, mine
from tests.pipeline.dump_factory import two_phrase_pages, write_dump

distributed = pytest.importorskip("distributed", reason="DaskRunner needs apache-beam[dask] (dask.distributed)")

# `--runner DaskRunner` is Beam's stock runner, which loses data (see picforge/dask_runner.py): picforge refuses it.
DASK_RUNNER = "picforge.dask_runner.DaskRunner"

SCORES = ("semantic_score", "domain_score")


def without_scores(triplet):
    return {k: v for k, v in triplet.items() if k not in SCORES}


def scores(triplets):
    return [t[k] for t in triplets for k in SCORES]


@pytest.fixture(scope="module")
def dask_address():
    """A local dask.distributed cluster: one worker process with two threads."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def dask_options(address):
    return PipelineOptions(["--runner", DASK_RUNNER, "--dask_client_address", address])


@pytest.mark.slow
def test_mine_gives_the_same_triplets_on_dask_and_direct_runners(tmp_path, wic_zip, dask_address):
    dump = write_dump(tmp_path / "planted.xml.bz2", two_phrase_pages())
    options = MineOptions(top_n=10)
    direct_funnel = mine(dump, str(wic_zip), str(tmp_path / "direct"), options)
    dask_funnel = mine(dump, str(wic_zip), str(tmp_path / "dask"), options,
                       beam_args=["--dask_client_address", dask_address], runner=DASK_RUNNER)

    direct_triplets = list(RunDir(str(tmp_path / "direct")).iter_records("select"))
    dask_triplets = list(RunDir(str(tmp_path / "dask")).iter_records("select"))
    assert "massive figure" in {t["phrase"] for t in direct_triplets}
    assert [without_scores(t) for t in dask_triplets] == [without_scores(t) for t in direct_triplets]
    # Encoder outputs differ by ~1e-7 with batch composition and thread count, so the rounded scores may
    # differ in their last (6th) decimal between runners; everything else must be identical.
    assert scores(dask_triplets) == pytest.approx(scores(direct_triplets), abs=2e-6)
    # the funnel mixes record counts and Beam counters, so equal funnels also mean DaskRunner reported metrics
    assert dask_funnel == direct_funnel
    assert json.loads((tmp_path / "dask" / FUNNEL_JSON).read_text()) == dask_funnel


class _EmitAtFinishBundle(beam.DoFn):
    """Buffers a bundle and emits it from finish_bundle, as BatchElements and Top do."""

    def start_bundle(self):
        self.buffered = []

    def process(self, element):
        self.buffered.append(element)

    def finish_bundle(self):
        for element in self.buffered:
            yield beam.utils.windowed_value.WindowedValue(element, beam.window.GlobalWindow().max_timestamp(),
                                                          [beam.window.GlobalWindow()])


def test_beam_internals_it_patches_are_those_it_was_checked_against():
    from picforge.dask_runner import changed_beam_internals

    assert changed_beam_internals() == [], "Beam changed under picforge/dask_runner.py: re-check its five fixes"


def test_outputs_emitted_in_finish_bundle_reach_the_next_transform(dask_address):
    with beam.Pipeline(options=dask_options(dask_address)) as p:
        numbers = p | beam.Create(range(5))
        assert_that(numbers | "buffer" >> beam.ParDo(_EmitAtFinishBundle()), equal_to(list(range(5))), label="finish")
        assert_that(numbers | beam.BatchElements(min_batch_size=2, max_batch_size=2) | beam.Map(sorted),
                    equal_to([[0, 1], [2, 3], [4]]), label="batches")
        assert_that(numbers | beam.combiners.Top.Smallest(2), equal_to([[0, 1]]), label="top")


def test_tagged_outputs_side_inputs_and_joins_are_routed_correctly(dask_address):
    with beam.Pipeline(options=dask_options(dask_address)) as p:
        split = p | "numbers" >> beam.Create(range(6)) | beam.FlatMap(
            lambda n: [n] if n % 2 else [beam.pvalue.TaggedOutput("even", n)]).with_outputs("even", main="odd")
        assert_that(split.odd, equal_to([1, 3, 5]), label="odd")
        assert_that(split.even, equal_to([0, 2, 4]), label="even")
        offsets = p | "offsets" >> beam.Create([10, 20])
        assert_that(split.odd | beam.Map(lambda n, offs: n + sum(offs), beam.pvalue.AsList(offsets)),
                    equal_to([31, 33, 35]), label="side input")
        joined = ({"left": p | "left" >> beam.Create([("a", 1)]), "right": p | "right" >> beam.Create([("a", 2), ("b", 3)])}
                  | beam.CoGroupByKey() | beam.MapTuple(lambda k, v: (k, sorted(v["left"]), sorted(v["right"]))))
        assert_that(joined, equal_to([("a", [1], [2]), ("b", [], [3])]), label="join")


def test_every_sink_runs_and_counters_are_reported(tmp_path, dask_address):
    def count(element):
        Metrics.counter("probe", "elements").inc()
        return element

    pipeline = beam.Pipeline(options=dask_options(dask_address))
    pipeline | "first" >> beam.Create(["a", "b"]) | "write first" >> beam.io.WriteToText(str(tmp_path / "first"))
    pipeline | "second" >> beam.Create(["c"]) | beam.Map(count) | "write second" >> beam.io.WriteToText(str(tmp_path / "second"))
    result = pipeline.run()
    result.wait_until_finish()

    def lines(prefix):
        return sorted(line for path in tmp_path.glob(prefix + "-*") for line in path.read_text().split())

    assert lines("first") == ["a", "b"]
    assert lines("second") == ["c"]
    counters = result.metrics().query(beam.metrics.MetricsFilter().with_name("elements"))["counters"]
    assert [c.committed for c in counters] == [1]


def test_a_runner_without_its_extra_is_a_one_line_error(monkeypatch):
    from picforge import options
    from picforge.errors import InputError

    monkeypatch.setitem(options.RUNNER_EXTRAS, DASK_RUNNER, ("picforge_absent_module.bag", "dask"))
    with pytest.raises(InputError, match=r"pip install 'picforge\[dask\]'"):
        options.pipeline_options(["--runner", DASK_RUNNER])
