"""Release-test fixtures: a written run directory, a release built from it once, and the CLI entry point."""
import argparse
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import pytest  # noqa: E402

from picforge import cli  # noqa: E402
from release.cli import build  # noqa: E402
from tests.release.fixture_run import make_run  # noqa: E402


def build_args(run, out, seed=42, force=False, license_id=None, license_override=None):
    """The parsed arguments of `picforge build`."""
    return argparse.Namespace(run=str(run), out=str(out), seed=seed, force=force, license=license_id,
                              license_override=license_override)


@pytest.fixture(autouse=True)
def offline_hub(monkeypatch):
    """Keep `datasets` off the network even when another test area imported it before this conftest ran."""
    import datasets

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)


@pytest.fixture
def picforge():
    """Run `picforge ARGS…` in-process; returns the exit code."""
    return lambda *argv: cli.main([str(a) for a in argv])


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory):
    """The fixture run directory (clean, sentences, select, final_annotations)."""
    return make_run(tmp_path_factory.mktemp("run"))


@pytest.fixture(scope="session")
def release_dir(run_dir, tmp_path_factory):
    """A release built from the fixture run with seed 42 (tests must not modify it)."""
    out = tmp_path_factory.mktemp("release") / "pic"
    assert build.run(build_args(run_dir, out)) == 0
    return str(out)


@pytest.fixture(scope="session")
def encoder():
    """The bundled all-MiniLM-L6-v2 phrase encoder, on one CPU thread."""
    import torch

    from release.embed import PhraseEncoder

    torch.set_num_threads(1)
    return PhraseEncoder()
