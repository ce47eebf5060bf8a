"""CLI-step stages (survey and rating round-trips): their records, replaced whole and atomically per step."""
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

import schemas
from picforge import __version__
from picforge.errors import InputError
from picforge.rundir import fingerprint, input_identity

SELECTION = "cosimlex-selection"
FORMS = "cosimlex-rating-forms"
RATINGS = "cosimlex-ratings"
FINAL = "cosimlex-final"
EXPORTS = "cosimlex-exports"


def stage_records(run, stage):
    """All records of a stage, also when a crash came between its data and its manifest ([] when absent)."""
    return list(run.iter_records(stage))


def required_records(run, stage, produced_by):
    """The records of a completed stage, or a clear error naming the command that produces it."""
    if run.read_manifest(stage) is None:
        raise InputError(f"{run.stage_dir(stage)}: stage '{stage}' has not completed; run "
                         f"`picforge cosimlex {produced_by}` with this --out first")
    return stage_records(run, stage)


def check_records(schema_name, records, where):
    """Raise a clear error when a record does not match its schema (a bug, or an edited file)."""
    for record in records:
        problems = schemas.errors(schema_name, record)
        if problems:
            raise InputError(f"{where}: record {record.get('pair_id', '')!r} breaks schema {schema_name}: "
                             f"{problems[0]}; fix the input named there and run the step again")


def replace_stage(run, stage, schema_name, records, inputs, options, report=None):
    """Write `records` as the stage's only Parquet file (renamed into place), then its manifest
    (with `report`, when given)."""
    records = list(records)
    check_records(schema_name, records, run.stage_dir(stage))
    final = run.output_prefix(stage) + "-00000-of-00001.parquet"
    staging = final + ".tmp"
    table = pa.Table.from_pylist(records, schema=schemas.arrow_schema(schema_name))
    with FileSystems.create(staging, compression_type="uncompressed") as fh:
        pq.write_table(table, fh, compression="zstd")
    if FileSystems.exists(run.manifest_path(stage)):
        FileSystems.delete([run.manifest_path(stage)])
    FileSystems.rename([staging], [final])
    manifest = {
        "stage": stage,
        "fingerprint": fingerprint(stage, inputs, options),
        "inputs": inputs,
        "options": options,
        "package_version": __version__,
        "records": len(records),
        "files": [final.rsplit("/", 1)[-1]],
    }
    if report is not None:
        manifest["report"] = report
    run.write_manifest(stage, manifest)
    return manifest


def identity(path, option):
    """input_identity of a file given on the command line, as a clear error when it is missing."""
    try:
        return input_identity(path)
    except FileNotFoundError:
        raise InputError(f"{option} {path}: no such file; check the path") from None
