"""Shared fixtures: the reference data. What ships in examples/data (the enwiki samples, the WiC zip) is read
from there; the rest of the real third-party data, which the project cannot ship, from ../shared/data (tests that
need it skip, naming the file)."""
import collections
import os
import pathlib

import pytest

from picforge.cli import register_area_stages

register_area_stages()  # tests that call the library see every area's stages, as the CLI does
ROOT = pathlib.Path(__file__).resolve().parent.parent
SHIPPED_DATA = ROOT / "examples" / "data"
SHARED_DATA = pathlib.Path(os.environ.get("PICFORGE_SHARED_DATA", ROOT.parent / "shared" / "data"))


# The reference files that ship in examples/data (relative path under the shared data: file name there).
SHIPPED = {"wiki/enwiki-sample-103pages.xml.bz2": "enwiki-sample-103pages.xml.bz2",
           "wiki/enwiki-sample-5pages.xml.bz2": "enwiki-sample-5pages.xml.bz2",
           "wic/WiC_dataset.zip": "WiC_dataset.zip"}


def _shared(relative):
    """The path of a reference file: the copy in examples/data when it ships, else `relative` under the shared data
    (a skip naming it, and why the project lacks it, when it is absent)."""
    if relative in SHIPPED:
        return SHIPPED_DATA / SHIPPED[relative]
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"needs {path}, third-party data the project does not ship (set PICFORGE_SHARED_DATA to the "
                    "folder that holds it)")
    return path


def shared_file_fixture(name, relative, what):
    """A session fixture `name` (described by `what`): the path of the reference file `relative` (see _shared)."""
    def fixture():
        return _shared(relative)

    fixture.__doc__ = what
    return pytest.fixture(scope="session", name=name)(fixture)


enwiki_sample = shared_file_fixture("enwiki_sample", "wiki/enwiki-sample-5pages.xml.bz2",
                                    "The real 5-page enwiki pages-articles sample (bz2).")
enwiki_sample_103 = shared_file_fixture("enwiki_sample_103", "wiki/enwiki-sample-103pages.xml.bz2",
                                        "The real 103-page enwiki pages-articles sample (69 articles, bz2).")
wic_zip = shared_file_fixture("wic_zip", "wic/WiC_dataset.zip", "The official WiC package zip.")
stsb_file = shared_file_fixture("stsb_file", "stsb/sts-test-subset.csv",
                                "863 rows of the STS Benchmark test file (tab-separated).")


def pytest_terminal_summary(terminalreporter):
    """End the run with how many tests skipped, by reason (e.g. data the project cannot ship, a missing server)."""
    reasons = collections.Counter()
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reasons[reason.removeprefix("Skipped: ")] += 1
    if reasons:
        terminalreporter.write_sep("-", f"{sum(reasons.values())} skipped, by reason")
        for reason, count in reasons.most_common():
            terminalreporter.write_line(f"{count:5d}  {reason}")


@pytest.fixture(scope="session")
def mined_103(tmp_path_factory, enwiki_sample_103, wic_zip):
    """A real mining run of the shared 103-page enwiki sample, made once per test session (tests must not
    modify it; copy it first)."""
    from pipeline.mine import mine

    out = tmp_path_factory.mktemp("mined103")
    mine(str(enwiki_sample_103), str(wic_zip), str(out))
    return out


@pytest.fixture(scope="session")
def annotated_103(mined_103, tmp_path_factory):
    """A copy of the mined 103-page run whose selected triplets all carry final annotations (simple paraphrases
    made from the phrase, every verdict kept), as `picforge build` reads them."""
    import hashlib
    import json
    import shutil

    from picforge.rundir import RunDir

    root = tmp_path_factory.mktemp("annotated103") / "run"
    shutil.copytree(mined_103, root)
    run = RunDir(str(root))
    annotations = [{"triplet_id": t["triplet_id"], "phrase": t["phrase"], "annotator": "A1",
                    "q1": f"the {t['phrase']} here", "q2": f"that {t['phrase']} there", "same_meaning": False,
                    "q1_rule": "round1", "q2_rule": "round1", "q3_rule": "round1", "ps_q1": True,
                    "ps_q1_phrase": f"the {t['phrase']} here", "ps_q2": True,
                    "ps_q2_phrase": f"that {t['phrase']} there"} for t in run.iter_records("select")]
    run.write_stage("final_annotations", annotations, "final_annotation", options={},
                    inputs={"records_sha256": hashlib.sha256(json.dumps(annotations).encode()).hexdigest()})
    return root


@pytest.fixture(scope="session")
def release_103(annotated_103, tmp_path_factory):
    """The PiC release `picforge build` makes of `annotated_103` (tests must not modify it)."""
    from picforge import cli

    out = tmp_path_factory.mktemp("release103") / "rel"
    assert cli.main(["build", "--run", str(annotated_103), "--out", str(out)]) == 0
    return out
