"""The one Dataflow job of every mining stage, translated offline (Beam's --dry_run: no credentials, no submit)."""
import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from picforge.options import SETUP_FILE, pipeline_options
from picforge.rundir import RunDir
from picforge.stage_jobs import build_job
from pipeline.mine import mining_steps
from pipeline.mine_stages import MineOptions
from tests.cloud.emulators import gcs_emulator
from tests.cloud.test_cloud_io import copy_to

DATAFLOW_FLAGS = ["--runner", "DataflowRunner", "--project", "picforge-offline", "--region", "us-central1",
                  "--temp_location", "gs://picforge-dataflow/tmp", "--sdk_container_image",
                  "us-central1-docker.pkg.dev/picforge-offline/picforge/worker:0.1.0", "--sdk_location", "container",
                  "--dry_run", "True"]


def dry_run(build):
    """Translate the pipeline `build` makes into a Dataflow job without submitting it; returns the job."""
    options = pipeline_options(DATAFLOW_FLAGS)
    pipeline = beam.Pipeline(options=options)
    build(pipeline)
    result = pipeline.run()
    result.wait_until_finish()
    return options, result.job


def transform_names(job):
    return {t.unique_name for t in job.proto_pipeline.components.transforms.values()}


def test_the_whole_mining_job_translates_for_dataflow(enwiki_sample, wic_zip):
    from picforge.resources import read_wic_words

    with gcs_emulator("picforge-dataflow") as root:
        copy_to(enwiki_sample, f"{root}/dumps/enwiki-sample-5pages.xml.bz2")
        run = RunDir(f"{root}/runs/sample")
        steps = mining_steps(run, f"{root}/dumps/*.bz2", str(wic_zip), read_wic_words(str(wic_zip)), MineOptions())
        options, job = dry_run(lambda pipeline: build_job(run, steps, pipeline))
        names = transform_names(job)
        stages = [stage for step in steps for stage in step.stages]
        assert stages == ["read-dump", "clean", "sentences", "phrases", "group", "pairs", "domains", "select"]
        assert {next(iter(step.stages)) for step in steps} | {f"write {stage}" for stage in stages} <= names
        assert {"phrases/spread batches", "phrases/spaCy noun chunks", "pairs/embed sentences"} <= names
        assert not any(name.startswith("read ") for name in names)  # later stages take earlier ones in memory
        assert options.view_as(beam.options.pipeline_options.SetupOptions).setup_file == SETUP_FILE
        assert job.proto.type_.name == "JOB_TYPE_BATCH"
        assert not FileSystems.match([f"{root}/runs/sample/*"])[0].metadata_list  # nothing written: not submitted
