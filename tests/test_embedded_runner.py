"""`--runner DirectRunner` is Beam's embedded FnApiRunner (never Prism, which downloads a binary), and its
multi-process workers get a share of the cores each instead of a thread pool per core."""
import logging
import os

import apache_beam as beam
from apache_beam.options.pipeline_options import DirectOptions, StandardOptions
from apache_beam.testing.util import assert_that, equal_to

from picforge.embedded_runner import THREAD_VARIABLES, Spread, worker_threads
from picforge.options import pipeline_options


def test_direct_runner_is_the_embedded_runner_and_never_tries_prism(caplog):
    caplog.set_level(logging.INFO)
    options = pipeline_options([])
    assert options.view_as(StandardOptions).runner == "picforge.embedded_runner.EmbeddedRunner"
    with beam.Pipeline(options=options) as p:
        assert_that(p | beam.Create([1, 2, 3]) | beam.Map(lambda x: x * 2), equal_to([2, 4, 6]))
    assert not [r for r in caplog.records if "prism" in r.getMessage().lower()]


def test_multi_process_workers_get_cores_over_workers_threads_each(monkeypatch):
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    expected = str(max(1, (os.cpu_count() or 1) // 2))
    with beam.Pipeline(options=pipeline_options(
            ["--direct_num_workers", "2", "--direct_running_mode", "multi_processing"])) as p:
        threads = (p | beam.Create(range(16)) | beam.Reshuffle()
                   | beam.Map(lambda _: os.environ.get("OMP_NUM_THREADS")) | beam.Distinct())
        assert_that(threads, equal_to([expected]))
    assert not any(name in os.environ for name in THREAD_VARIABLES)  # this process's environment is restored


def test_thread_counts_the_user_set_are_kept(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    direct = pipeline_options(["--direct_num_workers", "4", "--direct_running_mode", "multi_processing"]
                              ).view_as(DirectOptions)
    with worker_threads(direct, cpus=8):
        assert os.environ["OMP_NUM_THREADS"] == "3" and os.environ["MKL_NUM_THREADS"] == "2"
    assert os.environ["OMP_NUM_THREADS"] == "3" and "MKL_NUM_THREADS" not in os.environ
    with worker_threads(pipeline_options([]).view_as(DirectOptions), cpus=8):  # one in-process worker: untouched
        assert "MKL_NUM_THREADS" not in os.environ


def spread_reshuffles(beam_args):
    """Whether Spread puts a Reshuffle in a pipeline with these Beam flags."""
    pipeline = beam.Pipeline(options=pipeline_options(beam_args))
    _ = pipeline | beam.Create([1, 2]) | "spread" >> Spread()
    return "spread/Reshuffle" in {t.unique_name for t in pipeline.to_runner_api().components.transforms.values()}


def test_spread_reshuffles_only_where_another_worker_can_take_a_share():
    assert not spread_reshuffles([])  # one embedded worker: a Reshuffle would only hold every element in memory
    assert spread_reshuffles(["--direct_num_workers", "2", "--direct_running_mode", "multi_processing"])
    assert spread_reshuffles(["--runner", "PrismRunner"])


def test_spread_passes_every_element_either_way():
    for beam_args in ([], ["--direct_num_workers", "2", "--direct_running_mode", "multi_processing"]):
        with beam.Pipeline(options=pipeline_options(beam_args)) as p:
            assert_that(p | beam.Create(range(10)) | Spread(), equal_to(list(range(10))))
