"""GroupByKey and CoGroupByKey that Beam's embedded runner does through files on local disk, so its memory stays flat
as the input grows; on every other runner they are Beam's own.

The embedded runner (FnApiRunner) keeps the whole input of a GroupByKey in memory until the grouping step runs. Here
each input is written, as it is made, to hash partitions of files on local disk; only the file names cross to the
grouping step, which then reads one partition at a time. Same contract as Beam's: keys are grouped by their encoded
bytes, and a key's values come in no promised order (here: ordered by their encoded bytes, keys too)."""
import os
import pickle
import shutil
import struct
import tempfile
import uuid
import weakref
import zlib

import apache_beam as beam
from apache_beam.transforms.window import GlobalWindows

from picforge.embedded_runner import runs_embedded

PARTITIONS = 64  # a grouping step holds about 1/64 of its input at once
FLUSH_BYTES = 1024 * 1024  # encoded records a writer buffers (per bundle) before appending them to the files
HEADER = struct.Struct("<HII")  # input index, key bytes, value bytes
_SPILL_ROOTS = weakref.WeakKeyDictionary()  # pipeline → the spill folders its groupings write


def encode(value):
    """A value's bytes in the spill files (equal keys give equal bytes: they are grouped on these)."""
    return pickle.dumps(value, protocol=4)


def partition_of(key_bytes, partitions=PARTITIONS):
    """The partition of an encoded key, the same in every process."""
    return zlib.crc32(key_bytes) % partitions


def record_bytes(input_index, key_bytes, value_bytes):
    """One record of a spill file."""
    return HEADER.pack(input_index, len(key_bytes), len(value_bytes)) + key_bytes + value_bytes


def records_of(data):
    """(input index, key bytes, value bytes) of the records in the bytes of spill files."""
    offset, view = 0, memoryview(data)
    while offset < len(data):
        input_index, key_length, value_length = HEADER.unpack_from(data, offset)
        offset += HEADER.size
        key_end = offset + key_length
        yield input_index, bytes(view[offset:key_end]), bytes(view[key_end:key_end + value_length])
        offset = key_end + value_length


def grouped_records(records, inputs):
    """(key, [values of each of `inputs` inputs]) for records (input index, key bytes, value bytes), keys and values
    in the order of their bytes."""
    groups = {}
    for input_index, key_bytes, value_bytes in records:
        groups.setdefault(key_bytes, [[] for _ in range(inputs)])[input_index].append(value_bytes)
    for key_bytes in sorted(groups):
        yield pickle.loads(key_bytes), [[pickle.loads(v) for v in sorted(values)] for values in groups[key_bytes]]


class _SpillToPartitions(beam.DoFn):
    """(key, value) → appended to the partition files under `root`; yields (partition, path) of each file written."""

    def __init__(self, root, input_index):
        self.root, self.input_index = root, input_index

    def start_bundle(self):
        self.bundle, self.buffers, self.buffered, self.written = uuid.uuid4().hex, {}, 0, set()

    def process(self, element):
        key, value = element
        key_bytes = encode(key)
        record = record_bytes(self.input_index, key_bytes, encode(value))
        self.buffers.setdefault(partition_of(key_bytes), []).append(record)
        self.buffered += len(record)
        if self.buffered >= FLUSH_BYTES:
            self.flush()

    def flush(self):
        for partition, records in self.buffers.items():
            folder = os.path.join(self.root, f"p{partition:03d}")
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"{self.bundle}-{self.input_index}.bin")
            with open(path, "ab") as spill:
                spill.write(b"".join(records))
            self.written.add((partition, path))
        self.buffers, self.buffered = {}, 0

    def finish_bundle(self):
        self.flush()
        for partition_path in sorted(self.written):
            yield GlobalWindows.windowed_value(partition_path)


class _GroupPartition(beam.DoFn):
    """(partition, [paths]) → (key, {tag: [values]}) for every key of the partition; its files are removed."""

    def __init__(self, root, tags):
        self.root, self.tags = root, tags

    def process(self, partition_paths):
        _, paths = partition_paths
        chunks = []
        for path in sorted(paths):
            with open(path, "rb") as spill:
                chunks.append(spill.read())
            os.remove(path)
        remove_empty_folders(os.path.dirname(paths[0]), self.root)
        for key, values in grouped_records(records_of(b"".join(chunks)), len(self.tags)):
            yield key, dict(zip(self.tags, values))


def remove_empty_folders(*folders):
    """Remove each folder that is empty (another partition may still be using the root)."""
    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError:
            return


def remove_spill_folders(pipeline):
    """Delete what the groupings of `pipeline` left on disk (all of it when the job failed part way)."""
    for root in _SPILL_ROOTS.pop(pipeline, []):
        shutil.rmtree(root, ignore_errors=True)


class CoGroupByKey(beam.PTransform):
    """{tag: PCollection of (key, value)} → (key, {tag: [values]}), as Beam's CoGroupByKey."""

    def expand(self, inputs):
        tags = tuple(inputs)
        pipeline = inputs[tags[0]].pipeline
        if not runs_embedded(pipeline.options):
            return inputs | "CoGroupByKey" >> beam.CoGroupByKey()
        root = os.path.join(tempfile.gettempdir(), f"picforge-shuffle-{uuid.uuid4().hex}")
        _SPILL_ROOTS.setdefault(pipeline, []).append(root)
        files = [inputs[tag] | f"spill {tag}" >> beam.ParDo(_SpillToPartitions(root, index))
                 for index, tag in enumerate(tags)]
        return (
            files
            | "all files" >> beam.Flatten(pipeline=pipeline)
            | "files by partition" >> beam.GroupByKey()
            | "group partition" >> beam.ParDo(_GroupPartition(root, tags))
        )


class GroupByKey(beam.PTransform):
    """(key, value) → (key, [values]), as Beam's GroupByKey."""

    def expand(self, pairs):
        if not runs_embedded(pairs.pipeline.options):
            return pairs | "GroupByKey" >> beam.GroupByKey()
        return ({"values": pairs}
                | "group" >> CoGroupByKey()
                | "values" >> beam.MapTuple(lambda key, grouped: (key, grouped["values"])))
