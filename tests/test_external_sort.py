"""picforge.external_sort: the order of sorted() from runs on disk, a chunk at a time, no file left behind; and
parquet_bytes, which turns rows into Arrow a batch at a time, gives the bytes of the whole list written at once."""
import os
import random
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq

from picforge import external_sort, schemas
from picforge.rundir import parquet_bytes


def test_sorted_externally_is_sorted_and_stable_across_runs(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    rng = random.Random(0)
    records = [{"phrase": rng.choice("abcdefg"), "n": n, "nested": [{"x": n}]} for n in range(1000)]
    merged = list(external_sort.sorted_externally(records, lambda r: r["phrase"], chunk_records=7))
    assert merged == sorted(records, key=lambda r: r["phrase"])
    assert os.listdir(tmp_path) == []


def test_each_chunk_is_written_before_the_next_is_read(monkeypatch):
    drawn, drawn_at_each_write = [], []
    write_run = external_sort.write_run

    def noting_write_run(records, path):
        drawn_at_each_write.append(len(drawn))
        return write_run(records, path)

    def source():
        for n in range(10, 0, -1):
            drawn.append(n)
            yield n

    monkeypatch.setattr(external_sort, "write_run", noting_write_run)
    assert list(external_sort.sorted_externally(source(), lambda n: n, chunk_records=3)) == list(range(1, 11))
    assert drawn_at_each_write == [3, 6, 9, 10]


def test_input_shorter_than_a_chunk_is_sorted_in_memory(monkeypatch):
    def no_write_run(records, path):
        raise AssertionError("a run written to disk")

    monkeypatch.setattr(external_sort, "write_run", no_write_run)
    records = [(n % 3, n) for n in range(10, 0, -1)]
    assert list(external_sort.sorted_externally(records, lambda r: r[0], chunk_records=11)) == sorted(
        records, key=lambda r: r[0])


def test_nothing_in_nothing_out():
    assert list(external_sort.sorted_externally([], lambda record: record)) == []


def pearl_rows(n):
    """`n` records of the pearl_phrase schema, of varying nested lengths."""
    return [{"phrase": f"phrase {i}", "lexical_type": "NP", "entity_type": "OTHER", "label": "NP-OTHER", "count": i + 2,
             "augmentations": [{"kind": "char-swap", "text": f"phrsae {i}"}] * (i % 3),
             "hard_negatives": [f"phrase {i + 1}"] * (i % 2)} for i in range(n)]


def test_parquet_bytes_in_batches_are_the_bytes_of_one_table_written_at_once():
    rows = pearl_rows(2500)
    whole = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(rows, schema=schemas.arrow_schema("pearl_phrase")), whole, compression="zstd")
    assert parquet_bytes(iter(rows), "pearl_phrase", batch_rows=333) == whole.getvalue().to_pybytes()
    assert pq.read_table(pa.BufferReader(parquet_bytes([], "pearl_phrase"))).num_rows == 0
