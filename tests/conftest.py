"""Shared fixtures: the real third-party data in ../shared/data (tests skip when it is absent)."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED_DATA = pathlib.Path(os.environ.get("PICFORGE_SHARED_DATA", ROOT.parent / "shared" / "data"))


def _shared(relative):
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"needs the shared reference data {path} (set PICFORGE_SHARED_DATA to its folder)")
    return path


@pytest.fixture(scope="session")
def enwiki_sample():
    """The real 5-page enwiki pages-articles sample (bz2)."""
    return _shared("wiki/enwiki-sample-5pages.xml.bz2")


@pytest.fixture(scope="session")
def enwiki_sample_103():
    """The real 103-page enwiki pages-articles sample (69 articles, bz2)."""
    return _shared("wiki/enwiki-sample-103pages.xml.bz2")


@pytest.fixture(scope="session")
def wic_zip():
    """The official WiC package zip."""
    return _shared("wic/WiC_dataset.zip")


@pytest.fixture(scope="session")
def stsb_file():
    """863 rows of the STS Benchmark test file (tab-separated)."""
    return _shared("stsb/sts-test-subset.csv")


@pytest.fixture(scope="session")
def mined_103(tmp_path_factory, enwiki_sample_103, wic_zip):
    """A real mining run of the shared 103-page enwiki sample, made once per test session (tests must not
    modify it; copy it first)."""
    from pipeline.mine import mine

    out = tmp_path_factory.mktemp("mined103")
    mine(str(enwiki_sample_103), str(wic_zip), str(out))
    return out
