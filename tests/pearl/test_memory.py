"""`pearl build` holds a bounded share of its input on the embedded runner: every grouping goes through
picforge.shuffle's files, and the final sort by phrase is external."""
import dataclasses

import pyarrow.parquet as pq

from companions.pearl import corpus, stage_sort
from companions.pearl.options import PearlOptions
from picforge.rundir import RunDir, parquet_bytes
from tests.groupings import in_memory_groupings
from tests.test_external_sort import pearl_rows


def test_every_grouping_goes_through_files_on_the_embedded_runner():
    assert in_memory_groupings(corpus.BuildCorpus(**dataclasses.asdict(PearlOptions()))) == []


def test_sort_in_small_chunks_or_in_one_writes_the_file_of_an_in_memory_sort(tmp_path):
    rows = pearl_rows(50)[::-1]
    in_memory = parquet_bytes(sorted(rows, key=lambda r: r["phrase"]), "pearl_phrase")
    for chunk_records in (7, 50, 51):  # runs on disk; one full chunk on disk; the whole stage in one short chunk
        run = RunDir(str(tmp_path / str(chunk_records)))
        run.write_file(corpus.STAGE, "part-00000-of-00002.parquet", parquet_bytes(rows[:20], "pearl_phrase"))
        run.write_file(corpus.STAGE, "part-00001-of-00002.parquet", parquet_bytes(rows[20:], "pearl_phrase"))
        stage_sort.sort_stage(run, corpus.STAGE, "pearl_phrase", chunk_records=chunk_records)
        [path] = run.output_files(corpus.STAGE)
        assert open(path, "rb").read() == in_memory
        assert pq.read_table(path).column("phrase").to_pylist() == sorted(r["phrase"] for r in rows)
