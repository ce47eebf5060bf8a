"""What picforge runs for `--runner DirectRunner`: Beam's embedded FnApiRunner, built as Beam's DirectRunner builds
it, without first trying the Prism runner (which downloads a Go binary at run time, and ignores
--direct_num_workers/--direct_running_mode when it starts)."""
import contextlib
import os

import apache_beam as beam
from apache_beam.options.pipeline_options import DirectOptions, StandardOptions
from apache_beam.runners.runner import PipelineRunner

from picforge.options import EMBEDDED_RUNNER

# thread pools of torch (the encoder) and numpy's BLAS (spaCy), sized per worker process
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class EmbeddedRunner(PipelineRunner):
    """Beam's FnApiRunner with the pipeline options handed to its workers (as DirectRunner hands them)."""

    def run_pipeline(self, pipeline, options):
        from apache_beam.portability.api import beam_provision_api_pb2
        from apache_beam.runners.portability.fn_api_runner import fn_runner
        from apache_beam.runners.portability.portable_runner import JobServiceHandle

        encoded = JobServiceHandle.encode_pipeline_options(options.get_all_options())
        provision = fn_runner.ExtendedProvisionInfo(beam_provision_api_pb2.ProvisionInfo(pipeline_options=encoded))
        with worker_threads(options.view_as(DirectOptions)):
            return fn_runner.FnApiRunner(provision_info=provision).run_pipeline(pipeline, options)


@contextlib.contextmanager
def worker_threads(direct, cpus=None):
    """With multi-process workers, give each worker process cpus/workers threads (unless the user set them), so
    N workers do not each start a thread per core; the environment is restored afterwards."""
    cpus = cpus or os.cpu_count() or 1
    workers = direct.direct_num_workers or cpus
    if direct.direct_running_mode != "multi_processing" or workers <= 1:
        yield
        return
    added = [name for name in THREAD_VARIABLES if name not in os.environ]
    os.environ.update(dict.fromkeys(added, str(max(1, cpus // workers))))
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


def runs_embedded(options):
    """Whether `options` run a pipeline on the embedded runner (or Beam's DirectRunner): its workers are this process
    or its children."""
    return options.view_as(StandardOptions).runner in (None, "DirectRunner", EMBEDDED_RUNNER)


def one_embedded_worker(options):
    """Whether `options` run a pipeline on the embedded runner (or Beam's DirectRunner) with a single worker."""
    workers = options.view_as(DirectOptions).direct_num_workers or os.cpu_count() or 1
    return runs_embedded(options) and workers == 1


class Spread(beam.PTransform):
    """A Reshuffle, so that other workers take a share of the work that follows; nothing with a single embedded
    worker, where there is no other worker and the runner would only hold the whole PCollection in memory."""

    def expand(self, pcoll):
        if one_embedded_worker(pcoll.pipeline.options):
            return pcoll
        return pcoll | "Reshuffle" >> beam.Reshuffle()
