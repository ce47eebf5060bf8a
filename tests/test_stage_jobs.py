"""Beam jobs writing stages: the manifest only after `finalise`, bounded row groups, stale steps run as one job, no
spill folder left by a failed job."""
import tempfile

import apache_beam as beam
import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import PipelineOptions

from picforge import shuffle, stage_jobs
from picforge.rundir import MANIFEST, RunDir
from picforge.stage_jobs import Step, run_stages, run_steps
from tests.test_rundir import ROWS


def test_a_beam_stage_gets_its_manifest_only_after_finalise(tmp_path):
    run = RunDir(str(tmp_path))

    def crash():
        raise KeyboardInterrupt("killed between the Beam job and its finalisation")

    stage = {"clean": "page"}
    with pytest.raises(KeyboardInterrupt):
        run_stages(run, stage, transform=lambda: beam.Create(ROWS), pipeline_options=PipelineOptions(),
                   finalise=crash)
    assert run.read_manifest("clean") is None and run.output_files("clean")
    manifests = run_stages(run, stage, transform=lambda: beam.Create(ROWS), pipeline_options=PipelineOptions())
    assert manifests["clean"]["records"] == 2 and run.read_manifest("clean") == manifests["clean"]


def test_a_beam_stage_is_written_in_row_groups_of_bounded_size(tmp_path, monkeypatch):
    # a writer flushes a row group once it holds this many bytes (checked after each 1000-row record batch)
    monkeypatch.setattr(stage_jobs, "ROW_GROUP_BYTES", 64 * 1024)
    pages = [dict(ROWS[0], page_id=n, text="word " * 100, paragraphs=["word " * 100]) for n in range(3000)]
    run = RunDir(str(tmp_path))
    run_stages(run, {"clean": "page"}, transform=lambda: beam.Create(pages), pipeline_options=PipelineOptions())
    (path,) = run.output_files("clean")
    assert pq.ParquetFile(path).metadata.num_row_groups > 1
    assert sorted(row["page_id"] for row in run.iter_records("clean")) == list(range(3000))


def two_steps():
    """`clean` from ROWS, then `titles`: the same pages with upper-cased titles, read from `clean`."""
    return [Step({"clean": "page"}, lambda: beam.Create(ROWS)),
            Step({"titles": "page"}, retitle, {"case": "upper"}, after=("clean",))]


def retitle(case):
    """Page records with their titles in `case` ("upper" or "lower")."""
    return beam.Map(lambda row: dict(row, title=getattr(row["title"], case)()))


def test_run_steps_runs_every_stale_step_as_one_job_and_skips_them_after(tmp_path):
    run = RunDir(str(tmp_path))
    manifests = run_steps(run, two_steps(), pipeline_options=PipelineOptions())
    assert [m["job"] for m in manifests.values()] == [["clean", "titles"]] * 2
    assert all(m["cpu_seconds"] > 0 for m in manifests.values())  # the DirectRunner runs in this process
    assert sorted(row["title"] for row in run.iter_records("titles")) == ["FIRST", "SECOND"]
    assert manifests["titles"]["inputs"] == {"clean": manifests["clean"]["fingerprint"]}
    again = run_steps(run, two_steps(), pipeline_options=PipelineOptions())
    assert all(m["skipped"] for m in again.values())


def test_a_step_left_unfinished_reruns_alone_reading_its_inputs_from_the_run(tmp_path):
    run = RunDir(str(tmp_path))
    first = run_steps(run, two_steps(), pipeline_options=PipelineOptions())
    (tmp_path / "titles" / MANIFEST).unlink()
    manifests = run_steps(run, two_steps(), pipeline_options=PipelineOptions())
    assert manifests["clean"]["skipped"] and manifests["titles"]["job"] == ["titles"]
    assert manifests["titles"]["fingerprint"] == first["titles"]["fingerprint"]
    assert sorted(row["title"] for row in run.iter_records("titles")) == ["FIRST", "SECOND"]


def test_one_job_per_step_when_asked(tmp_path):
    manifests = run_steps(RunDir(str(tmp_path)), two_steps(), pipeline_options=PipelineOptions(), one_job=False)
    assert [m["job"] for m in manifests.values()] == [["clean"], ["titles"]]


def test_a_failed_job_leaves_no_spill_folder(tmp_path, monkeypatch):
    spill_dir = tmp_path / "tmp"
    spill_dir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill_dir))

    def fail_on_a_group(item):
        raise ValueError(f"a grouped key failed: {item[0]}")

    def failing():
        return beam.Create([(n % 7, n) for n in range(500)]) | shuffle.GroupByKey() | beam.Map(fail_on_a_group)

    with pytest.raises(Exception, match="a grouped key failed"):
        run_steps(RunDir(str(tmp_path / "run")), [Step({"clean": "page"}, failing)], pipeline_options=PipelineOptions())
    assert list(spill_dir.glob("picforge-shuffle-*")) == []


def test_a_steps_fingerprint_counts_its_arguments_but_not_where_or_how_fast_it_runs():
    base = stage_jobs.fingerprints(two_steps())
    lower = stage_jobs.fingerprints([two_steps()[0], Step({"titles": "page"}, retitle, {"case": "lower"},
                                                          after=("clean",))])
    assert lower["clean"] == base["clean"] and lower["titles"] != base["titles"]
    for neutral in stage_jobs.OUTPUT_NEUTRAL:
        steps = [two_steps()[0], Step({"titles": "page"}, lambda case, **_: retitle(case),
                                      {"case": "upper", neutral: "anything"}, after=("clean",))]
        assert stage_jobs.fingerprints(steps) == base


def test_data_without_an_identity_or_an_argument_that_is_not_json_is_refused():
    with pytest.raises(ValueError, match=r"titles: data \['words'\] has no identity"):
        Step({"titles": "page"}, retitle, {"case": "upper"}, data={"words": {"a"}})
    with pytest.raises(TypeError, match="titles: an argument is not a JSON value"):
        stage_jobs.fingerprints([Step({"titles": "page"}, retitle, {"case": {"upper"}})])
