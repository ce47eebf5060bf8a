"""The Dataflow job of the first mining stages, translated offline (Beam's --dry_run: no credentials, no submit)."""
import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from picforge.options import SETUP_FILE, pipeline_options
from picforge.rundir import RunDir, WriteStage
from pipeline.mine import read_and_clean
from pipeline.stages.phrases import ExtractPhrases
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


def test_read_clean_and_phrases_jobs_translate_for_dataflow(enwiki_sample, wic_zip):
    from picforge.resources import read_wic_words

    with gcs_emulator("picforge-dataflow") as root:
        copy_to(enwiki_sample, f"{root}/dumps/enwiki-sample-5pages.xml.bz2")
        run = RunDir(f"{root}/runs/sample")

        def first_job(pipeline):
            outputs = read_and_clean(pipeline, f"{root}/dumps/*.bz2")
            for stage, schema in (("read-dump", "article"), ("clean", "page")):
                outputs[stage] | f"write {stage}" >> WriteStage(run, stage, schema)

        options, job = dry_run(first_job)
        names = transform_names(job)
        assert {"read-dump", "clean", "write read-dump", "write clean"} <= names
        assert options.view_as(beam.options.pipeline_options.SetupOptions).setup_file == SETUP_FILE
        assert job.proto.type_.name == "JOB_TYPE_BATCH"

        def phrases_job(pipeline):
            sentences = pipeline | "read sentences" >> beam.io.ReadFromParquet(
                f"{root}/runs/sample/sentences/*.parquet", validate=False)  # the sentences job never ran
            phrases = sentences | "phrases" >> ExtractPhrases(word_window=(5, 25), wic_words=read_wic_words(str(wic_zip)))
            phrases | "write phrases" >> WriteStage(run, "phrases", "occurrence")

        names = transform_names(dry_run(phrases_job)[1])
        assert {"phrases/keep pair window", "phrases/spaCy noun chunks", "write phrases"} <= names
        assert not FileSystems.match([f"{root}/runs/sample/*"])[0].metadata_list  # nothing written: not submitted
