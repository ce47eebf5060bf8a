"""Shared fixtures: the reference data. What ships in examples/data (the enwiki samples, the WiC zip) is read
from there; the rest of the real third-party data, which the project cannot ship, from ../shared/data (tests that
need it skip, naming the file)."""
import collections
import gc
import json
import os
import pathlib
import shutil

import filelock
import pytest

from picforge.cli import register_area_stages

register_area_stages()  # tests that call the library see every area's stages, as the CLI does
ROOT = pathlib.Path(__file__).resolve().parent.parent
SHIPPED_DATA = ROOT / "examples" / "data"
SHARED_DATA = pathlib.Path(os.environ.get("PICFORGE_SHARED_DATA", ROOT.parent / "shared" / "data"))


# allocations between two collections of the youngest generation (CPython's default: 700)
YOUNG_COLLECTION_THRESHOLD = 10_000
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


@pytest.hookimpl(trylast=True)
def pytest_collection_finish():
    """Leave what collection loaded (Beam, torch, the test items: objects as old as the worker) out of the collector's
    full passes, and collect the young generation 14x less often: full passes cost 10-15 % of the suite's CPU. Once,
    here: an object frozen that dies later in a reference cycle is never freed (picforge/long_lived.py). Not with
    $PICFORGE_TESTS_COLLECTOR_DEFAULTS set (bench/suite_costs.py --baseline)."""
    if os.environ.get("PICFORGE_TESTS_COLLECTOR_DEFAULTS"):
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])


def built_once(tmp_path_factory, name, build):
    """The folder `name` that build(folder) fills once per test run. Under pytest-xdist the first worker to ask
    builds it in the run's shared temporary folder and the others wait on a file lock, then read the same folder."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    folder = tmp_path_factory.getbasetemp().parent / name  # the folder all workers of this run share
    built = folder.with_name(f"{name}.built")
    with filelock.FileLock(folder.with_name(f"{name}.lock")):
        if not built.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a worker that failed building left
            folder.mkdir()
            build(folder)
            built.touch()
    return folder


# The fixtures built once per run (see built_once), as chains each built in order by one worker.
BUILD_CHAINS = (("mined_103", "annotated_103", "release_103", "pearl_103"), ("wiki_run", "groups_run"))
# The fixtures that run a whole pipeline (mine end to end, a companion's build): the tests using one are slow
# (`make test-quick` leaves them out); a fixture declared with `pipeline_fixture` joins them.
PIPELINE_FIXTURES = set(sum(BUILD_CHAINS, ()))


def pipeline_fixture(**options):
    """pytest.fixture(**options) for a fixture that runs a whole pipeline: every test reading it is marked slow."""
    def declare(function):
        PIPELINE_FIXTURES.add(options.get("name", function.__name__))
        return pytest.fixture(**options)(function)

    return declare


def pytest_itemcollected(item):
    """Mark slow each test that reads a pipeline fixture (before `-m "not slow"` deselects)."""
    if PIPELINE_FIXTURES & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.slow)


@pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixture scope
def pytest_collection_modifyitems(items):
    """Under pytest-xdist, each worker's first tests are the first users of one chain of BUILD_CHAINS, and the other
    tests reading a chain come last, those reading the end of a chain last of all: each chain is built while the other
    workers run the tests that need none, and the tests reading it find it built instead of waiting."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2:
        return
    # pytest-xdist 3.8's load scheduler first sends each worker this many consecutive tests, in order
    chunk = max(len(items) // workers // 4, 2)
    heads, moved = [[] for _ in range(workers)], set()
    for number, chain in enumerate(BUILD_CHAINS):
        for name in chain:
            first = next((item for item in items if name in getattr(item, "fixturenames", ())), None)
            if first is not None and first.nodeid not in moved:
                heads[number % workers].append(first)
                moved.add(first.nodeid)
    ready = {name: place for chain in BUILD_CHAINS for place, name in enumerate(chain, start=1)}  # later: built later
    rest = sorted((item for item in items if item.nodeid not in moved),
                  key=lambda item: max((ready.get(name, 0) for name in getattr(item, "fixturenames", ())), default=0))
    items[:] = []
    for head in heads:
        items.extend(head)
        take = max(chunk - len(head), 0)
        items.extend(rest[:take])
        rest = rest[take:]
    items.extend(rest)


@pytest.fixture(scope="session")
def mined_103(tmp_path_factory, enwiki_sample_103, wic_zip):
    """A real mining run of the shared 103-page enwiki sample, made once per test run by `picforge mine` in a child
    process with its output piped (as CI sees it), into a folder named with glob characters, which works like any
    other; how long the command went without a line is in `silences_of(run)`. Tests must not modify it; copy it
    first."""
    from tests.cli_helpers import silences

    def build(out):
        code, gaps = silences(["mine", "--input", enwiki_sample_103, "--wic", wic_zip, "--out", out])
        assert code == 0, gaps[-5:]
        silences_file(out).write_text(json.dumps(gaps), encoding="utf-8")

    return built_once(tmp_path_factory, "mined[103]", build)


def silences_file(run):
    """Where a fixture built by a child `picforge` keeps its (seconds without a line, the line that ended it)."""
    return run.with_name(f"{run.name}.silences.json")


def silences_of(run):
    """[(seconds without a line on stdout or stderr, the line that ended them)] of the command that built `run`."""
    return [tuple(gap) for gap in json.loads(silences_file(run).read_text(encoding="utf-8"))]


@pytest.fixture(scope="session")
def annotated_103(mined_103, tmp_path_factory):
    """A copy of the mined 103-page run whose selected triplets all carry final annotations (simple paraphrases
    made from the phrase, every verdict kept), as `picforge build` reads them."""
    return built_once(tmp_path_factory, "annotated103", lambda folder: annotate_all(mined_103, folder / "run")) / "run"


def annotate_all(mined, root):
    """Copy the run `mined` to `root` and give each selected triplet final annotations."""
    import hashlib
    import json

    from picforge.rundir import RunDir

    shutil.copytree(mined, root)
    run = RunDir(str(root))
    annotations = [{"triplet_id": t["triplet_id"], "phrase": t["phrase"], "annotator": "A1",
                    "q1": f"the {t['phrase']} here", "q2": f"that {t['phrase']} there", "same_meaning": False,
                    "q1_rule": "round1", "q2_rule": "round1", "q3_rule": "round1", "ps_q1": True,
                    "ps_q1_phrase": f"the {t['phrase']} here", "ps_q2": True,
                    "ps_q2_phrase": f"that {t['phrase']} there"} for t in run.iter_records("select")]
    run.write_stage("final_annotations", annotations, "final_annotation", options={},
                    inputs={"records_sha256": hashlib.sha256(json.dumps(annotations).encode()).hexdigest()})


@pytest.fixture(scope="session")
def release_103(annotated_103, tmp_path_factory):
    """The PiC release `picforge build` makes of `annotated_103` (tests must not modify it)."""
    from picforge import cli

    def build(folder):
        assert cli.main(["build", "--run", str(annotated_103), "--out", str(folder / "rel")]) == 0

    return built_once(tmp_path_factory, "release103", build) / "rel"
