"""`picforge mine` and `picforge release publish` on gs:// and s3:// against local emulators of the real wire protocols."""
import hashlib
import json

import pytest
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from picforge.cli import main
from pipeline.mine import FUNNEL_JSON, mine
from picforge.release_writer import read_manifest
from picforge.rundir import RunDir
from tests.cloud.emulators import gcs_emulator, s3_server
from tests.conftest import pipeline_fixture

STAGES = ("read-dump", "clean", "sentences", "phrases", "group", "pairs", "domains", "select")


def copy_to(local_path, url):
    with open(local_path, "rb") as source, FileSystems.create(url, compression_type="uncompressed") as target:
        target.write(source.read())


def read_url(url):
    with FileSystems.open(url, compression_type="uncompressed") as fh:
        return fh.read()


def stage_rows(run, stage):
    return sorted(run.iter_records(stage), key=lambda r: json.dumps(r, sort_keys=True))


@pipeline_fixture(scope="module")
def local_run(tmp_path_factory, enwiki_sample, wic_zip):
    """The 5-page sample mined into a local run directory, to compare the cloud runs with."""
    out = str(tmp_path_factory.mktemp("local") / "run")
    return mine(str(enwiki_sample), str(wic_zip), out), RunDir(out)


def mine_remote_and_read_back(root, beam_args, local_run, enwiki_sample, wic_zip):
    FileSystems.set_options(PipelineOptions(beam_args))
    copy_to(enwiki_sample, f"{root}/dumps/enwiki-sample-5pages.xml.bz2")
    copy_to(wic_zip, f"{root}/wic/WiC_dataset.zip")
    out = f"{root}/runs/sample"
    funnel = mine(f"{root}/dumps/*.bz2", f"{root}/wic/WiC_dataset.zip", out, beam_args=beam_args)
    local_funnel, local = local_run
    assert funnel == local_funnel and funnel[0]["count"] == 5

    run = RunDir(out)  # a finished run read back from the bucket
    assert json.loads(read_url(f"{out}/{FUNNEL_JSON}")) == funnel
    for stage in ("sentences", "group", "select"):
        assert run.require(stage)["records"] == local.read_manifest(stage)["records"]
        assert stage_rows(run, stage) == stage_rows(local, stage)
    seconds = {stage: run.read_manifest(stage)["seconds"] for stage in STAGES}
    assert mine(f"{root}/dumps/*.bz2", f"{root}/wic/WiC_dataset.zip", out, beam_args=beam_args) == funnel
    assert {stage: run.read_manifest(stage)["seconds"] for stage in STAGES} == seconds  # every stage skipped


def assert_published(release_dir, dest):
    assert main(["release", "publish", "--release", release_dir, "--to", dest, "--live"]) == 0
    for relative, meta in read_manifest(release_dir)["files"].items():
        assert hashlib.sha256(read_url(f"{dest}/{relative}")).hexdigest() == meta["sha256"]
    assert json.loads(read_url(f"{dest}/MANIFEST.json")) == read_manifest(release_dir)


@pytest.fixture(scope="module")
def release_dir(tmp_path_factory):
    """A release built by `picforge build` from the release tests' fixture run."""
    from release.cli import build
    from tests.release.conftest import build_args
    from tests.release.fixture_run import make_run

    run = make_run(tmp_path_factory.mktemp("run"))
    out = tmp_path_factory.mktemp("release") / "pic"
    assert build.run(build_args(run, out)) == 0
    return str(out)


def test_mine_from_and_to_gcs_then_read_back(local_run, enwiki_sample, wic_zip):
    with gcs_emulator("picforge-mine") as root:
        mine_remote_and_read_back(root, [], local_run, enwiki_sample, wic_zip)


def test_mine_from_and_to_s3_then_read_back(local_run, enwiki_sample, wic_zip):
    with s3_server("picforge-mine") as (root, beam_args):
        mine_remote_and_read_back(root, beam_args, local_run, enwiki_sample, wic_zip)


def test_publish_to_gcs(release_dir):
    with gcs_emulator("picforge-release") as root:
        assert_published(release_dir, f"{root}/pic/v1")


def test_publish_to_a_gcs_folder_named_with_glob_characters(release_dir):
    with gcs_emulator("picforge-release") as root:
        assert_published(release_dir, f"{root}/pic[1]/v1")
        assert [m.path for m in FileSystems.match([f"{root}/**"])[0].metadata_list if ".partial-" in m.path] == []


def test_publish_to_s3(release_dir):
    with s3_server("picforge-release") as (root, beam_args):
        FileSystems.set_options(PipelineOptions(beam_args))
        assert_published(release_dir, f"{root}/pic/v1")
