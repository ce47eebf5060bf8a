"""Run directories: each stage's Parquet output and `_manifest.json`, over Beam FileSystems."""
import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystem import BeamIOError
from apache_beam.io.filesystems import FileSystems

from picforge import __version__, runlock, schemas
from picforge.errors import InputError
from picforge.external_sort import chunks
from picforge.files import STAGING_PREFIX, open_input, remove_leftovers, write_atomically
from picforge.paths import glob_escape
from picforge.redact import redact_stored
from picforge.stage_registry import producing_command

MANIFEST = "_manifest.json"
SMALL_INPUT_BYTES = 64 * 1024 * 1024
PARQUET_FILE = "part-00000-of-00001.parquet"
ARROW_BATCH_ROWS = 10_000  # rows turned into Arrow at once by parquet_bytes
# What picforge writes in any stage folder: Parquet part files, staging files and Beam's temporary folders.
OWN_FILE_PREFIXES = ("beam-temp-", STAGING_PREFIX)
OWN_PART_FILE = re.compile(r"^part-\d{5}-of-\d{5}\.parquet$")
log = logging.getLogger(__name__)


def input_identity(path, option=None):
    """How an input file is recognised across runs: sha256 for small files, size and mtime for large ones.

    A missing file is an InputError naming `option` (the command-line flag that gave the path) when given.
    """
    try:
        meta = FileSystems.match([path])[0].metadata_list
    except (OSError, BeamIOError):
        meta = []
    if not meta:
        raise InputError(f"{option + ' ' if option else ''}{path}: no file matches; check the path or glob")
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
    """Create the local folder `path` if needed and check it takes files (in a verb, the run is then marked and
    locked, picforge.runlock); an InputError naming `option` when it is a file or cannot be written (remote paths
    are left to their file system)."""
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
    if runlock.in_verb():
        take_run(path, runlock.in_verb())  # the verb's run: marked and locked from its creation
    return glob_free_alias(path)


def take_run(root, verb):
    """Lock the local run `root` for `verb` (picforge.runlock); when newly locked, delete what a killed process left
    in its stage folders (no one else writes the run). True when this call took the lock."""
    if not runlock.acquire(root, verb):
        return False
    for stage in sorted(os.listdir(root)):
        if os.path.isdir(os.path.join(root, stage)):
            remove_leftovers(os.path.join(root, stage), OWN_FILE_PREFIXES)
    return True


def glob_free_alias(path):
    """`path`, or for a local folder whose name holds glob characters ('run[1]') a symbolic link to it without
    them: Beam's file sinks match their own output paths as globs."""
    if glob_escape(path) == path:
        return path
    target = os.path.realpath(path)
    alias = os.path.join(tempfile.gettempdir(), "picforge-aliases", hashlib.sha1(target.encode()).hexdigest()[:16])
    os.makedirs(os.path.dirname(alias), exist_ok=True)
    if os.path.realpath(alias) != target:
        staging = f"{alias}.{os.getpid()}"
        os.symlink(target, staging)
        os.replace(staging, alias)
    return alias


def _sha256(path):
    """The sha256 of one input file; an InputError naming it when it is a folder or cannot be read."""
    digest = hashlib.sha256()
    try:
        with open_input(path) as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder; pass the file inside it (or a glob such as {path.rstrip('/')}/*)") from None
    except OSError as err:
        raise InputError(f"{path}: cannot be read ({err.strerror or err}); check the path and its permissions") from None
    return digest.hexdigest()


class RunDir:
    """One run directory holding a sub-directory per stage (local path, gs:// or s3://): the one stage store.

    A stage is complete when its `_manifest.json` exists; the manifest is written last, atomically, after the
    stage's outputs are final, so a crash at any point leaves a stage that is redone, never one that looks done.
    """

    def __init__(self, root):
        self.root = root.rstrip("/")

    def join(self, *parts):
        return FileSystems.join(self.root, *parts)

    def location(self):
        """Where the run is, as another run records its source: an absolute local path, or the URL."""
        return self.root if "://" in self.root else os.path.abspath(self.root)

    @contextlib.contextmanager
    def locked(self, verb):
        """Hold the run's lock (picforge.runlock, its marker too) while `verb` writes it: a second process writing
        the same local run is refused at once. Remote runs are not locked."""
        if "://" in self.root:
            yield
            return
        taken = take_run(self.root, runlock.in_verb() or verb)
        try:
            yield
        finally:
            if taken and not runlock.in_verb():  # in a verb, the run stays locked until the verb ends
                runlock.release(self.root)

    def pattern(self, *parts):
        """A FileSystems.match pattern under the run: the run's own path taken literally, `parts` as globs."""
        return FileSystems.join(glob_escape(self.root), *parts)

    def stage_dir(self, stage):
        return self.join(stage)

    def manifest_path(self, stage):
        return self.join(stage, MANIFEST)

    def read_manifest(self, stage):
        """The stage's manifest, or None when the stage never completed or its manifest is damaged (logged)."""
        path = self.manifest_path(stage)
        if not FileSystems.exists(path):
            return None
        with open_input(path) as fh:
            data = fh.read()
        try:
            manifest = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            manifest = err
        if not isinstance(manifest, dict) or "fingerprint" not in manifest:
            log.warning("%s: damaged manifest (%s); stage %s will be redone", path,
                        manifest if isinstance(manifest, Exception) else "not a stage manifest", stage)
            return None
        return manifest

    def require(self, stage):
        """The manifest of a completed stage, or an InputError naming the command that produces it."""
        manifest = self.read_manifest(stage)
        if manifest is None:
            command = producing_command(stage, "the command that produces it (see `picforge --help`)")
            raise InputError(f"{self.stage_dir(stage)}: stage '{stage}' has not completed in {self.root}: "
                             f"run `{command.format(run=self.root)}` first")
        return manifest

    def require_records(self, stage):
        """The records of a completed stage, as a list (an InputError naming the command that makes it if not)."""
        self.require(stage)
        return list(self.iter_records(stage))

    def up_to_date(self, stage, fingerprint):
        """The stage's manifest when it completed with this fingerprint (and is not marked incomplete), else None."""
        manifest = self.read_manifest(stage)
        if manifest is not None and manifest["fingerprint"] == fingerprint and manifest.get("complete", True):
            return manifest
        return None

    def stage_identity(self, stage):
        """What a downstream stage depends on: the completed stage's fingerprint and the sha256 of its Parquet
        files (so a partial run completed later, under the same options, still counts as changed)."""
        manifest = self.require(stage)
        self.count_rows(stage)  # reads every Parquet footer: a damaged file is named here, not deep in a job
        return {"fingerprint": manifest["fingerprint"],
                "sha256": [input_identity(glob_escape(path))[0].get("sha256") for path in self.output_files(stage)]}

    def stage_files(self, stage):
        """Paths of every file in the stage folder."""
        return sorted(m.path for m in FileSystems.match([self.pattern(stage, "*")])[0].metadata_list)

    def clear(self, stage, expected=()):
        """Remove a stage's files, manifest first. The folder may hold only files picforge writes there (the
        files its manifest lists, Parquet part files, staging files, and names starting with the `expected`
        names of the step about to write it): anything else is refused before anything is deleted."""
        found = self.stage_files(stage)
        manifest = self.read_manifest(stage) if self.manifest_path(stage) in found else None
        listed = {MANIFEST, *(manifest or {}).get("files", ())}
        foreign = [name for name in (p.rsplit("/", 1)[-1] for p in found)
                   if name not in listed and not OWN_PART_FILE.match(name)
                   and not name.startswith((*OWN_FILE_PREFIXES, *expected))]
        if foreign:
            raise InputError(f"{self.stage_dir(stage)}: holds files picforge did not write "
                             f"({', '.join(foreign[:5])}{', …' if len(foreign) > 5 else ''}); is {self.root} a "
                             "picforge run directory? choose another --out, or move those files away")
        if self.manifest_path(stage) in found:
            FileSystems.delete([self.manifest_path(stage)])
            found.remove(self.manifest_path(stage))
        if found:
            FileSystems.delete(found)

    def output_prefix(self, stage):
        return self.join(stage, "part")

    def output_files(self, stage):
        found = FileSystems.match([self.pattern(stage, "part-*.parquet")])[0].metadata_list
        return sorted(m.path for m in found)

    @contextlib.contextmanager
    def _reading(self, stage, path):
        """Turns a damaged Parquet file of a stage into an InputError naming the file and the command that redoes it."""
        try:
            yield
        except (pa.ArrowInvalid, pa.ArrowIOError, OSError) as err:
            command = producing_command(stage, "the command that produces it")
            raise InputError(f"{path}: not a readable Parquet file ({err}); stage '{stage}' of {self.root} is "
                             f"damaged: redo it with `{command.format(run=self.root)} --force`") from None

    def count_rows(self, stage):
        total = 0
        for path in self.output_files(stage):
            with open_input(path) as fh, self._reading(stage, path):
                total += pq.ParquetFile(fh).metadata.num_rows
        return total

    def read_table(self, stage, columns=None):
        """All rows of a completed stage as one pyarrow Table (for small stages)."""
        tables = []
        for path in self.output_files(stage):
            with open_input(path) as fh, self._reading(stage, path):
                tables.append(pq.read_table(fh, columns=columns))
        if not tables:
            return pa.table({})
        return pa.concat_tables(tables)

    def iter_records(self, stage, columns=None, batch_size=4096):
        """Stream a stage's rows as dicts without loading the whole stage."""
        for path in self.output_files(stage):
            with open_input(path) as fh, self._reading(stage, path):
                for batch in pq.ParquetFile(fh).iter_batches(batch_size=batch_size, columns=columns):
                    yield from batch.to_pylist()

    def write_stage(self, stage, rows, schema, *, inputs, options, counters=None, started=None, files=None,
                    **extra):
        """Write a stage outside Beam and return its manifest: `rows` checked against `schema` and written as one
        Parquet file (none when `schema` is None), and `files` ({name: bytes or text}), each through a staging
        name renamed into place; then the manifest with `extra` fields (they override the defaults), last and
        atomically."""
        started = time.time() if started is None else started
        outputs = dict(files or {})
        if schema is not None:
            rows = list(rows)
            for number, row in enumerate(rows):
                problems = schemas.errors(schema, row)
                if problems:
                    raise InputError(f"{self.stage_dir(stage)}: record {number} breaks schema {schema}: "
                                     f"{problems[0]}; fix the input named there and run the step again")
            outputs = {PARQUET_FILE: parquet_bytes(rows, schema), **outputs}
        with self.locked(f"picforge (writing {stage})"):
            self.clear(stage, expected=outputs)
            for name, data in outputs.items():
                self.write_file(stage, name, data)
            return self.finish_stage(stage, fingerprint(stage, inputs, options), inputs=inputs, options=options,
                                     counters=counters or {}, started=started,
                                     files=[name for name in outputs if name != PARQUET_FILE], **extra)

    def rewrite_rows(self, stage, rows, schema):
        """Replace the Parquet files of a stage being written (before its manifest) with one file of `rows`."""
        shards = [path for path in self.output_files(stage) if not path.endswith(PARQUET_FILE)]
        self.write_file(stage, PARQUET_FILE, parquet_bytes(rows, schema))
        if shards:
            FileSystems.delete(shards)

    def finish_stage(self, stage, stage_print, *, inputs, options, counters, started, files=(), **extra):
        """Write and return the manifest of a stage whose outputs are final (the Parquet files and `files`)."""
        manifest = {
            "stage": stage,
            "fingerprint": stage_print,
            "inputs": inputs,
            "options": options,
            "package_version": __version__,
            "records": self.count_rows(stage),
            "counters": counters,
            "seconds": round(time.time() - started, 3),
            "files": [p.rsplit("/", 1)[-1] for p in self.output_files(stage)] + list(files),
            **extra,
        }
        manifest = redact_stored(manifest)  # an option's URL credential or token is stored as ***
        write_atomically(self.manifest_path(stage), json.dumps(manifest, indent=2, sort_keys=True))
        return manifest

    def write_file(self, stage, name, data):
        """Write bytes (or UTF-8 text) as `<run>/<stage>/<name>` through a staging name; returns its path."""
        path = self.join(stage, name)
        write_atomically(path, data)
        return path


def parquet_bytes(rows, schema, batch_rows=ARROW_BATCH_ROWS):
    """Rows as the bytes of one zstd Parquet file with the arrow form of `schema`; the rows are turned into Arrow
    `batch_rows` at a time, so no more than that many are held as Python objects."""
    arrow_schema = schemas.arrow_schema(schema)
    batches = [pa.RecordBatch.from_pylist(chunk, schema=arrow_schema) for chunk in chunks(rows, batch_rows)]
    buffer = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_batches(batches, schema=arrow_schema).combine_chunks(), buffer, compression="zstd")
    return buffer.getvalue().to_pybytes()


def fingerprint(stage, inputs, options):
    """A stable hash of what a stage's output depends on."""
    payload = json.dumps({"stage": stage, "inputs": inputs, "options": options, "version": __version__},
                         sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def upstream(run, *stages):
    """Input identities of completed upstream stages (their fingerprints)."""
    return {stage: run.require(stage)["fingerprint"] for stage in stages}
