"""Writing an STS-B-Context stage's manifest in the run-directory format of `picforge.rundir`."""
import time

from apache_beam.io.filesystems import FileSystems

from picforge import __version__
from picforge.errors import InputError
from picforge.rundir import input_identity

PRODUCED_BY = {
    "generations": "picforge stsb-context --stsb FILE --out RUN_DIR",
    "validation": "picforge stsb-context export-validation --out RUN_DIR",
    "dataset": "picforge stsb-context ingest-validation --out RUN_DIR SHEET SHEET",
}


def finish_stage(run, stage, *, fingerprint, inputs, options, records, counters, started, **extra):
    """Write and return the stage's `_manifest.json` (last, so a half-written stage never looks complete)."""
    manifest = {
        "stage": stage,
        "fingerprint": fingerprint,
        "inputs": inputs,
        "options": options,
        "package_version": __version__,
        "records": records,
        "counters": counters,
        "seconds": round(time.time() - started, 3),
        "files": [p.rsplit("/", 1)[-1] for p in run.output_files(stage)],
        **extra,
    }
    run.write_manifest(stage, manifest)
    return manifest


def up_to_date(run, stage, fingerprint):
    """The stage's manifest when it completed with this fingerprint, else None."""
    manifest = run.read_manifest(stage)
    if manifest is not None and manifest.get("fingerprint") == fingerprint and manifest.get("complete", True):
        return manifest
    return None


def write_file(run, stage, name, data):
    """Write bytes (or UTF-8 text) as `<run>/<stage>/<name>` and return its path."""
    path = run.join(stage, name)
    with FileSystems.create(path, compression_type="uncompressed") as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def require(run, stage):
    """The manifest of a completed stage, or an InputError naming the command that produces it."""
    manifest = run.read_manifest(stage)
    if manifest is None:
        raise InputError(f"{run.stage_dir(stage)}: stage '{stage}' has not completed in this run directory; "
                         f"run `{PRODUCED_BY[stage]}` first")
    return manifest


def stage_identity(run, stage):
    """What a downstream stage depends on: the completed stage's fingerprint and the sha256 of its outputs
    (so a partial run completed later, under the same options, still counts as changed)."""
    manifest = require(run, stage)
    return {"fingerprint": manifest["fingerprint"],
            "sha256": [input_identity(path)[0].get("sha256") for path in run.output_files(stage)]}
