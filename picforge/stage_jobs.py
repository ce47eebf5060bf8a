"""Beam jobs that write stages into a run directory: steps planned against the store, run as one job or one per
step, each stage's manifest written after the job (and its `finalise`) succeeds."""
import dataclasses
import errno
import glob
import json
import os
import resource
import time
from typing import Callable

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import MetricsFilter

from picforge import progress, schemas, shuffle
from picforge.embedded_runner import runs_embedded
from picforge.errors import InputError
from picforge.rundir import fingerprint
from picforge.stages import options_for, output_options

# Arrow bytes a stage writer buffers before it writes a row group (Beam's default is 64 MiB): each writer holds up to
# this much, and the next stage's reader turns one row group at a time into Python dicts.
ROW_GROUP_BYTES = 8 * 1024 * 1024


def beam_counters(result):
    """Committed (or attempted) Beam counters of a finished pipeline as {"namespace/name": value}."""
    counters = {}
    try:
        query = result.metrics().query(MetricsFilter())
    except (NotImplementedError, AttributeError):
        return counters
    for counter in query["counters"]:
        key = f"{counter.key.metric.namespace}/{counter.key.metric.name}"
        try:
            value = counter.committed
        except Exception:  # some runners only report attempted values
            value = None
        if value is None:
            value = counter.attempted
        counters[key] = counters.get(key, 0) + (value or 0)
    return dict(sorted(counters.items()))


class WriteStage(beam.PTransform):
    """Write a PCollection of dicts as the Parquet output of a stage."""

    def __init__(self, run, stage, schema_name, num_shards=0):
        super().__init__()
        self.prefix = run.output_prefix(stage)
        self.schema_name = schema_name
        self.num_shards = num_shards

    def expand(self, records):
        return records | beam.io.WriteToParquet(
            self.prefix,
            schemas.arrow_schema(self.schema_name),
            file_name_suffix=".parquet",
            num_shards=self.num_shards,
            codec="zstd",
            row_group_buffer_size=ROW_GROUP_BYTES,
        )


def read_stage(pipeline, run, stage):
    """A completed stage's records as a PCollection (empty when the stage wrote no rows)."""
    if not run.output_files(stage):
        return pipeline | f"no {stage} rows" >> beam.Create([])
    return pipeline | f"read {stage}" >> beam.io.ReadFromParquet(run.pattern(stage, "part-*.parquet"))


# Transform arguments that decide where or how fast a stage runs, never which records it writes: fingerprints leave
# them out, so a run resumed on another machine, device or batch size keeps its stages. spaCy and the encoders give
# each text the same result in any batch, up to float rounding (the tolerance already accepted between two CPUs);
# the categories cache and the contact sent to the MediaWiki API change where answers are kept, not the answers.
OUTPUT_NEUTRAL = frozenset({"device", "batch_size", "encode_batch_size", "categories_cache_dir", "categories_contact"})


def encoder_precision(device):
    """The precision of a stage's `device` argument (a device spec; fp32 when the stage has none)."""
    from picforge.encoders import split_device

    return split_device(device)[1] if isinstance(device, str) else "fp32"


@dataclasses.dataclass
class Step:
    """Stages one transform makes ({name: schema}): `transform(*sides, **arguments, **data)` over the first `after`
    stage (sides: the others; the pipeline when none) or over `reads(job)` (a PCollection or (main, *sides)).
    Fingerprinted by `arguments` less OUTPUT_NEUTRAL, `data` by its identity in `inputs`, and the `after` stages.
    `finalise()` runs after the Beam job, before the manifests; `derived` names run-level files it writes."""

    stages: dict
    transform: Callable
    arguments: dict = dataclasses.field(default_factory=dict)
    data: dict = dataclasses.field(default_factory=dict)
    after: tuple = ()
    inputs: dict = dataclasses.field(default_factory=dict)
    reads: Callable | None = None
    finalise: Callable | None = None
    derived: tuple = ()

    def __post_init__(self):
        unidentified = sorted(set(self.data) - set(self.inputs))
        if unidentified:
            raise ValueError(f"{', '.join(self.stages)}: data {unidentified} has no identity in `inputs`")

    @property
    def options(self):
        """The fingerprint's options: the transform's arguments less those that cannot change what it writes."""
        options = {name: value for name, value in self.arguments.items() if name not in OUTPUT_NEUTRAL}
        precision = encoder_precision(self.arguments.get("device"))
        if precision != "fp32":  # bf16 changes the scores: recorded, and a build in another precision is redone
            options["precision"] = precision
        try:
            json.dumps(options)
        except TypeError as err:
            raise TypeError(f"{', '.join(self.stages)}: an argument is not a JSON value ({err}); pass data as `data` "
                            "with its identity in `inputs`") from None
        return options

    def build(self, job):
        """{stage: PCollection} of this step, added to the job's pipeline."""
        found = self.reads(job) if self.reads else tuple(job.read(stage) for stage in self.after) or job.pipeline
        main, *sides = found if isinstance(found, tuple) else (found,)
        made = main | next(iter(self.stages)) >> self.transform(*sides, **self.arguments, **self.data)
        return made if isinstance(made, dict) else {next(iter(self.stages)): made}


@dataclasses.dataclass
class DeclaredStep:
    """A Stage declaration (picforge.stages) planned into a run: its Options instance (`given`), its sources
    ({name: (data, identity)}; identity None: a source not given, left out of the inputs) and the upstream stages
    it reads from other runs (`elsewhere`: {stage: RunDir}); run_steps runs it like a Step, its fingerprint derived
    from the declaration."""

    declared: type
    given: object
    sources: dict
    run: object
    elsewhere: dict = dataclasses.field(default_factory=dict)

    @property
    def stages(self):
        return self.declared.outputs()

    @property
    def after(self):
        return tuple(stage for stage in self.declared.upstream if stage not in self.elsewhere)

    @property
    def inputs(self):
        return dict({name: identity for name, (_, identity) in self.sources.items() if identity is not None},
                    **{stage: other.require(stage)["fingerprint"] for stage, other in self.elsewhere.items()
                       if other is not None})

    @property
    def options(self):
        return output_options(self.given)

    derived = property(lambda self: self.declared.derived)

    def finalise(self):
        self.declared().finalise(self.run)

    def build(self, job):
        """{stage: PCollection} of this stage (and those it also writes), added to the job's pipeline."""
        inputs = {stage: job.read(stage) for stage in self.after}
        inputs.update({stage: read_stage(job.pipeline, other, stage) for stage, other in self.elsewhere.items()
                       if other is not None})
        inputs.update({name: data for name, (data, _) in self.sources.items()}, pipeline=job.pipeline)
        made = self.declared().expand(inputs, self.given)
        return made if isinstance(made, dict) else {self.declared.name: made}


def declared_steps(run, declarations, given, sources, elsewhere=None):
    """DeclaredSteps of `declarations` in order, each with its Options filled from `given` (an options object
    holding every field they declare), the `sources` ({name: (data, identity)}) it names (a source not given: no
    data, no identity) and the upstream stages it reads from other runs (`elsewhere`: {stage: RunDir}, or None
    for an upstream stage this run does without, e.g. a corpus read from files instead); an upstream stage that
    no earlier declaration makes and `elsewhere` does not name is a completed stage of `run` (a verb before)."""
    made = set()
    steps = []
    for stage in declarations:
        reads = {name: elsewhere[name] if elsewhere and name in elsewhere else run
                 for name in stage.upstream if name not in made or elsewhere and name in elsewhere}
        steps.append(DeclaredStep(stage, options_for(stage, given),
                                  {name: sources.get(name, (None, None)) for name in stage.sources}, run, reads))
        made.update(stage.outputs())
    return steps


class StageJob:
    """One Beam pipeline being built: `read(stage)` is a stage made earlier in this job, else its files."""

    def __init__(self, run, pipeline):
        self.run, self.pipeline = run, pipeline
        self.made, self._read = {}, {}

    def read(self, stage):
        if stage in self.made:
            return self.made[stage]
        if stage not in self._read:
            self._read[stage] = read_stage(self.pipeline, self.run, stage)
        return self._read[stage]


def run_steps(run, steps, *, pipeline_options, force=False, one_job=True):
    """Run the steps whose stages are not all up to date, in order: as one Beam job (`one_job`), so worker
    start-up and model loads are paid once and stages pass records in memory, or one job per step, each
    reading its inputs from the run (resumable stage by stage). Returns {stage: manifest} in step order."""
    prints, planned, manifests = fingerprints(steps), [], {}
    with run.locked("picforge (running stages)"):
        for step in steps:
            if not force and all(run.up_to_date(stage, prints[stage]) for stage in step.stages):
                progress.log.info("%s: up to date, skipped", ", ".join(step.stages))
                manifests.update({stage: dict(run.read_manifest(stage), skipped=True) for stage in step.stages})
            else:
                planned.append((step, step_inputs(step, prints)))
        for job in [planned] if one_job and planned else [[item] for item in planned]:
            manifests.update(_run_job(run, job, prints, pipeline_options))
    return {stage: manifests[stage] for step in steps for stage in step.stages}


def step_inputs(step, prints):
    """What a step's fingerprint counts as inputs: its own `inputs` and the fingerprints (`prints`) of its `after`."""
    return dict(step.inputs, **{stage: prints[stage] for stage in step.after})


def fingerprints(steps):
    """{stage: fingerprint} of every stage of `steps`, in order, without reading or running anything."""
    prints = {}
    for step in steps:
        inputs = step_inputs(step, prints)
        prints.update({stage: fingerprint(stage, inputs, step.options) for stage in step.stages})
    return prints


def _run_job(run, planned, prints, pipeline_options):
    """One Beam pipeline making every stage of `planned` ([(step, inputs)]); manifests are written last."""
    stages = {stage: schema for step, _ in planned for stage, schema in step.stages.items()}
    for stage in stages:
        run.clear(stage)
    stale = [run.join(name) for step, _ in planned for name in step.derived if FileSystems.exists(run.join(name))]
    if stale:
        FileSystems.delete(stale)
    started, cpu_started = time.time(), cpu_seconds()
    progress.stage_started(stages)
    pipeline = beam.Pipeline(options=pipeline_options)
    build_job(run, [step for step, _ in planned], pipeline)
    try:
        result = pipeline.run()
        result.wait_until_finish()
    except Exception as err:
        _drop_beam_temp(run, stages)
        if _disk_full(err):
            raise InputError(f"{run.root}: no space left on the device while writing {', '.join(stages)}; free "
                             "space and run the same command again (stages completed before are kept)") from err
        raise
    finally:
        shuffle.remove_spill_folders(pipeline)
    counters = beam_counters(result)
    job_cpu = cpu_seconds() - cpu_started if runs_embedded(pipeline_options) else None
    manifests = {}
    for step, inputs in planned:
        if step.finalise is not None:
            step.finalise()
        for stage in step.stages:
            manifests[stage] = run.finish_stage(
                stage, prints[stage], inputs=inputs, options=step.options, started=started,
                counters={k: v for k, v in counters.items() if k.startswith(stage + "/")},
                job=list(stages), cpu_seconds=None if job_cpu is None else round(job_cpu, 3),
                runner=runner_name(pipeline_options))
    progress.stage_finished(manifests)
    return manifests


def runner_name(pipeline_options):
    """The Beam runner a job ran on, as named in its options (DirectRunner when none is)."""
    from apache_beam.options.pipeline_options import StandardOptions

    runner = pipeline_options.view_as(StandardOptions).runner or "DirectRunner"
    return runner if isinstance(runner, str) else type(runner).__name__


def _drop_beam_temp(run, stages):
    """Delete what Beam's file sinks leave in the stages' folders (`beam-temp-*`) when a job fails."""
    for stage in stages:
        if "://" in run.root:  # object stores hold no folders: the objects under the prefix
            found = [m.path for m in FileSystems.match([run.pattern(stage, "beam-temp-*", "*")])[0].metadata_list]
        else:
            found = glob.glob(os.path.join(glob.escape(run.stage_dir(stage)), "beam-temp-*"))
        if found:
            FileSystems.delete(found)


def _disk_full(err):
    """Whether a failed job's error (or one it wraps, even as text) is ENOSPC."""
    while err is not None:
        if isinstance(err, OSError) and err.errno == errno.ENOSPC or os.strerror(errno.ENOSPC) in str(err):
            return True
        err = err.__cause__ or err.__context__
    return False


def build_job(run, steps, pipeline):
    """Add `steps` to `pipeline` as one job: each stage written to the run, and handed in memory to later steps."""
    job = StageJob(run, pipeline)
    for step in steps:
        outputs = step.build(job)
        for stage, schema_name in step.stages.items():
            job.made[stage] = outputs[stage]
            outputs[stage] | f"write {stage}" >> WriteStage(run, stage, schema_name)


def cpu_seconds():
    """CPU seconds of this process and of its finished child processes (Beam's multi-process workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_stages(run, stages, *, transform, arguments=None, data=None, inputs=None, reads=None, pipeline_options,
               force=False, finalise=None, derived=()):
    """Run one Beam pipeline producing `stages` ({name: schema}) unless all are already complete: `transform` built
    with `arguments` and `data` (see Step) applied to `reads(pipeline)`, or to the pipeline itself.

    `finalise()`, when given, runs after the pipeline and before the manifests are written (last); `derived` names
    the run-level files it writes, removed before the stages rerun so none outlives the stage it came from.
    Returns {stage: manifest}.
    """
    step = Step(stages, transform, arguments or {}, data or {}, inputs=inputs or {},
                reads=reads and (lambda job: reads(job.pipeline)), finalise=finalise, derived=derived)
    return run_steps(run, [step], pipeline_options=pipeline_options, force=force)
