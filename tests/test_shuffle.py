"""picforge.shuffle: GroupByKey and CoGroupByKey through files on the embedded runner, Beam's own elsewhere; the same
groups either way, and no file left behind."""
import os
import tempfile

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from picforge import shuffle
from picforge.options import pipeline_options


def test_records_read_back_as_written():
    written = [(0, b"k1", b"v1"), (1, b"", b"v2" * 1000), (0, b"k1", b"")]
    data = b"".join(shuffle.record_bytes(*record) for record in written)
    assert list(shuffle.records_of(data)) == written


def test_grouped_records_by_key_bytes_each_input_apart_in_byte_order():
    enc = shuffle.encode
    records = [(0, enc("b"), enc(2)), (1, enc("a"), enc("x")), (0, enc("b"), enc(1)), (0, enc("a"), enc(3))]
    assert list(shuffle.grouped_records(records, 2)) == [("a", [[3], ["x"]]), ("b", [[1, 2], []])]


def test_a_key_has_one_partition_in_range():
    key = shuffle.encode(("phrase", "12:3"))
    assert shuffle.partition_of(key) == shuffle.partition_of(shuffle.encode(("phrase", "12:3")))
    assert {shuffle.partition_of(shuffle.encode(n)) for n in range(1000)} == set(range(shuffle.PARTITIONS))


def expected_rows(pages, texts):
    """(key, sorted xs, sorted texts) of every key of either input."""
    keys = {k for k, _ in pages} | {k for k, _ in texts}
    return [(k, sorted(v for kk, v in pages if kk == k), sorted(v for kk, v in texts if kk == k)) for k in keys]


def test_cogroup_on_the_embedded_runner_leaves_no_file(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    pages = [(n % 97, n) for n in range(3000)] + [(("a", 1), -1)]
    texts = [(n, f"text {n}") for n in range(0, 200, 3)] + [(("a", 1), "tuple key")]
    with beam.Pipeline(options=pipeline_options([])) as p:
        joined = ({"x": p | "pages" >> beam.Create(pages), "text": p | "texts" >> beam.Create(texts)}
                  | shuffle.CoGroupByKey()
                  | beam.MapTuple(lambda key, grouped: (key, sorted(grouped["x"]), sorted(grouped["text"]))))
        assert_that(joined, equal_to(expected_rows(pages, texts)))
    assert os.listdir(tmp_path) == []


def test_group_by_key_on_the_embedded_runner():
    with beam.Pipeline(options=pipeline_options([])) as p:
        grouped = (p | beam.Create([("a", 2), ("b", 1), ("a", 1)]) | shuffle.GroupByKey()
                   | beam.MapTuple(lambda key, values: (key, sorted(values))))
        assert_that(grouped, equal_to([("a", [1, 2]), ("b", [1])]))


def transform_names(beam_args, grouping):
    pipeline = beam.Pipeline(options=pipeline_options(beam_args))
    _ = pipeline | beam.Create([(1, 2)]) | "grouping" >> grouping
    return {t.unique_name for t in pipeline.to_runner_api().components.transforms.values()}


def test_files_only_on_the_embedded_runner():
    assert "grouping/group/spill values" in transform_names([], shuffle.GroupByKey())
    assert "grouping/GroupByKey" in transform_names(["--runner", "PrismRunner"], shuffle.GroupByKey())
