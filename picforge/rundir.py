"""Run directories: each stage's Parquet output and `_manifest.json`, over Beam FileSystems."""
import hashlib
import json
import logging
import os
import tempfile
import time

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import MetricsFilter

import schemas
from picforge import __version__
from picforge.errors import InputError

MANIFEST = "_manifest.json"
SMALL_INPUT_BYTES = 64 * 1024 * 1024
log = logging.getLogger(__name__)


def input_identity(path):
    """How an input file is recognised across runs: sha256 for small files, size and mtime for large ones."""
    meta = FileSystems.match([path])[0].metadata_list
    if not meta:
        raise InputError(f"{path}: no file matches; check the path or glob")
    files = []
    for m in sorted(meta, key=lambda m: m.path):
        entry = {"path": m.path, "bytes": m.size_in_bytes}
        if m.size_in_bytes <= SMALL_INPUT_BYTES:
            entry["sha256"] = _sha256(m.path)
        else:
            entry["mtime"] = m.last_updated_in_seconds
        files.append(entry)
    return files


def writable_folder(path, option="--out"):
    """Create the local folder `path` if needed and check it takes files; an InputError naming `option` when it is
    a file or cannot be written (remote paths are left to their file system)."""
    if "://" in path:
        return path
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError(f"{option} {path}: is a file, not a folder; pass a folder (a new one is created)")
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as err:
        raise InputError(f"{option} {path}: cannot write there ({err.strerror or err}); pass a folder you can "
                         "write to") from None
    return path


def _sha256(path):
    """The sha256 of one input file; an InputError naming it when it is a folder or cannot be read."""
    digest = hashlib.sha256()
    try:
        with FileSystems.open(path, compression_type="uncompressed") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder; pass the file inside it (or a glob such as {path.rstrip('/')}/*)") from None
    except OSError as err:
        raise InputError(f"{path}: cannot be read ({err.strerror or err}); check the path and its permissions") from None
    return digest.hexdigest()


class RunDir:
    """One run directory holding a sub-directory per stage (local path, gs:// or s3://)."""

    def __init__(self, root):
        self.root = root.rstrip("/")

    def join(self, *parts):
        return FileSystems.join(self.root, *parts)

    def stage_dir(self, stage):
        return self.join(stage)

    def manifest_path(self, stage):
        return self.join(stage, MANIFEST)

    def read_manifest(self, stage):
        """The stage's manifest, or None when the stage never completed."""
        path = self.manifest_path(stage)
        if not FileSystems.exists(path):
            return None
        with FileSystems.open(path, compression_type="uncompressed") as fh:
            return json.loads(fh.read().decode("utf-8"))

    def require(self, stage):
        """The manifest of a completed stage, or a clear error saying which command produces it."""
        manifest = self.read_manifest(stage)
        if manifest is None:
            raise InputError(
                f"{self.stage_dir(stage)}: stage '{stage}' has not completed in this run directory; "
                "run the command that produces it first (see `picforge --help`)"
            )
        return manifest

    def is_complete(self, stage, fingerprint):
        manifest = self.read_manifest(stage)
        return manifest is not None and manifest.get("fingerprint") == fingerprint

    def clear(self, stage):
        """Remove a stage's files (manifest first, so a half-cleared stage never looks complete)."""
        if FileSystems.exists(self.manifest_path(stage)):
            FileSystems.delete([self.manifest_path(stage)])
        found = FileSystems.match([self.join(stage, "*")])[0].metadata_list
        if found:
            FileSystems.delete([m.path for m in found])

    def output_prefix(self, stage):
        return self.join(stage, "part")

    def output_files(self, stage):
        found = FileSystems.match([self.join(stage, "part-*.parquet")])[0].metadata_list
        return sorted(m.path for m in found)

    def count_rows(self, stage):
        total = 0
        for path in self.output_files(stage):
            with FileSystems.open(path, compression_type="uncompressed") as fh:
                total += pq.ParquetFile(fh).metadata.num_rows
        return total

    def read_table(self, stage, columns=None):
        """All rows of a completed stage as one pyarrow Table (for small stages)."""
        tables = []
        for path in self.output_files(stage):
            with FileSystems.open(path, compression_type="uncompressed") as fh:
                tables.append(pq.read_table(fh, columns=columns))
        if not tables:
            return pa.table({})
        return pa.concat_tables(tables)

    def iter_records(self, stage, columns=None, batch_size=4096):
        """Stream a stage's rows as dicts without loading the whole stage."""
        for path in self.output_files(stage):
            with FileSystems.open(path, compression_type="uncompressed") as fh:
                for batch in pq.ParquetFile(fh).iter_batches(batch_size=batch_size, columns=columns):
                    yield from batch.to_pylist()

    def write_records(self, stage, records, schema_name):
        """Write rows (already in their final order) as one Parquet file of the stage."""
        table = pa.Table.from_pylist(list(records), schema=schemas.arrow_schema(schema_name))
        path = self.output_prefix(stage) + "-00000-of-00001.parquet"
        with FileSystems.create(path, compression_type="uncompressed") as fh:
            pq.write_table(table, fh, compression="zstd")
        return table.num_rows

    def write_manifest(self, stage, manifest):
        data = json.dumps(manifest, indent=2, sort_keys=True).encode("utf-8")
        with FileSystems.create(self.manifest_path(stage), compression_type="uncompressed") as fh:
            fh.write(data)


def fingerprint(stage, inputs, options):
    """A stable hash of what a stage's output depends on."""
    payload = json.dumps({"stage": stage, "inputs": inputs, "options": options, "version": __version__},
                         sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def upstream(run, *stages):
    """Input identities of completed upstream stages (their fingerprints)."""
    return {stage: run.require(stage)["fingerprint"] for stage in stages}


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
        )


def run_stages(run, stages, *, inputs, options, build, pipeline_options, force=False, finalise=None, derived=()):
    """Run one Beam pipeline producing `stages` ({name: schema}) unless all are already complete.

    `build(pipeline)` returns {stage name: PCollection of dicts}; `finalise(run)`, if given, completes the
    outputs after the Beam job (including the run-level files named in `derived`, removed beforehand).
    Manifests are written last, so a run killed at any point redoes the stages. Returns {stage: manifest}.
    """
    prints = {stage: fingerprint(stage, inputs, options) for stage in stages}
    if not force and all(run.is_complete(stage, prints[stage]) for stage in stages):
        log.info("skipping %s: outputs are up to date", ", ".join(stages))
        return {stage: dict(run.read_manifest(stage), skipped=True) for stage in stages}
    for stage in stages:
        run.clear(stage)
    stale = [run.join(name) for name in derived if FileSystems.exists(run.join(name))]
    if stale:
        FileSystems.delete(stale)
    started = time.time()
    pipeline = beam.Pipeline(options=pipeline_options)
    outputs = build(pipeline)
    for stage, schema_name in stages.items():
        outputs[stage] | f"write {stage}" >> WriteStage(run, stage, schema_name)
    result = pipeline.run()
    result.wait_until_finish()
    if finalise is not None:
        finalise(run)
    counters = beam_counters(result)
    manifests = {}
    for stage in stages:
        manifest = {
            "stage": stage,
            "fingerprint": prints[stage],
            "inputs": inputs,
            "options": options,
            "package_version": __version__,
            "records": run.count_rows(stage),
            "counters": {k: v for k, v in counters.items() if k.startswith(stage + "/")},
            "seconds": round(time.time() - started, 3),
            "files": [p.rsplit("/", 1)[-1] for p in run.output_files(stage)],
        }
        run.write_manifest(stage, manifest)
        manifests[stage] = manifest
    return manifests
