"""`pearl-phrases` sorted by phrase once its Beam job has written it, so equal inputs give byte-equal files."""
from picforge.external_sort import CHUNK_RECORDS, sorted_externally


def sort_stage(run, stage, schema, chunk_records=CHUNK_RECORDS):
    """Rewrite a stage's Parquet output as one file sorted by phrase, so equal inputs give byte-equal files; sorted
    in runs of `chunk_records` on local disk, so the stage's rows are never all Python objects at once."""
    run.rewrite_rows(stage, sorted_externally(run.iter_records(stage), phrase_of, chunk_records), schema)


def phrase_of(record):
    """The sort key of a pearl-phrases record."""
    return record["phrase"]
