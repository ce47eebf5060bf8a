"""A stable sort that holds a bounded number of records: sorted runs of a chunk each, in files on local disk, merged
with heapq.merge."""
import heapq
import itertools
import os
import pickle
import tempfile

CHUNK_RECORDS = 20_000  # records sorted in memory at once


def chunks(records, size):
    """Lists of up to `size` consecutive records."""
    iterator = iter(records)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


def write_run(records, path):
    """Write records one pickle after another; returns `path`."""
    with open(path, "wb") as fh:
        for record in records:
            pickle.dump(record, fh, protocol=4)
    return path


def read_run(path):
    """The records of a file written by write_run, one at a time."""
    with open(path, "rb") as fh:
        while True:
            try:
                yield pickle.load(fh)
            except EOFError:
                return


def sorted_externally(records, key, chunk_records=CHUNK_RECORDS):
    """`records` in the order of sorted(records, key=key), holding about `chunk_records` records and one per run at
    once; input shorter than one chunk is sorted in memory, else the runs' files are removed when the generator
    finishes or is closed."""
    each_chunk = chunks(records, chunk_records)
    first = next(each_chunk, [])
    if len(first) < chunk_records:  # the whole input: no run on disk
        yield from sorted(first, key=key)
        return
    with tempfile.TemporaryDirectory(prefix="picforge-sort-") as folder:
        runs = [write_run(sorted(chunk, key=key), os.path.join(folder, f"run-{number:06d}.pkl"))
                for number, chunk in enumerate(itertools.chain([first], each_chunk))]
        yield from heapq.merge(*(read_run(path) for path in runs), key=key)
