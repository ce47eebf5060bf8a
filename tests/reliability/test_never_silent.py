"""No verb is silent for more than 30 s off a terminal (as CI, nohup and Dataflow see it): `mine`, `evaluate` and
`cosimlex candidates` run on the 103-page sample as subprocesses with stderr piped, each line timestamped (the mine
into a run named with glob characters, which works like any other)."""
import subprocess
import sys
import threading
import time

import pytest

from picforge.rundir import RunDir
from tests.cli_helpers import picforge_in_child
from tests.conftest import ROOT
from tests.cosimlex.conftest import PLANTED_PAIRS, SPACY_MODEL

LONGEST_SILENCE_S = 30


def silences(argv):
    """(exit code, [(seconds without a line on stderr or stdout, the line that ended it)]) of `picforge argv`."""
    child = subprocess.Popen([sys.executable, "-m", "picforge.cli", *map(str, argv)], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stamps = [(time.monotonic(), "(started)")]
    lock = threading.Lock()

    def read(stream):
        for line in stream:
            with lock:
                stamps.append((time.monotonic(), line.rstrip()))

    readers = [threading.Thread(target=read, args=(s,)) for s in (child.stdout, child.stderr)]
    for reader in readers:
        reader.start()
    code = child.wait(timeout=3600)
    for reader in readers:
        reader.join()
    stamps.sort()
    stamps.append((time.monotonic(), "(ended)"))
    return code, [(b[0] - a[0], f"{a[1]} -> {b[1]}") for a, b in zip(stamps, stamps[1:])]


def assert_never_silent(argv):
    code, gaps = silences(argv)
    assert code == 0, gaps[-5:]
    longest = max(gaps)
    assert longest[0] <= LONGEST_SILENCE_S, f"{argv[0]}: {longest[0]:.0f} s silent between {longest[1]}"


@pytest.mark.slow
def test_mine_evaluate_and_cosimlex_candidates_are_never_silent_for_30_s(tmp_path, enwiki_sample_103, wic_zip,
                                                                         release_103, mined_103):
    run = tmp_path / "run[1]"  # and a run named with glob characters works like any other
    assert_never_silent(["mine", "--input", enwiki_sample_103, "--wic", wic_zip, "--out", run])
    expected = [t["triplet_id"] for t in RunDir(str(mined_103)).iter_records("select")]
    assert [t["triplet_id"] for t in RunDir(str(run)).iter_records("select")] == expected
    code, stdout, _ = picforge_in_child("mine", "--input", enwiki_sample_103, "--wic", wic_zip, "--out", run)
    assert code == 0 and f"{len(expected)} triplets selected" in stdout
    assert_never_silent(["release", "evaluate", "--release", release_103])
    pairs = tmp_path / "pairs.txt"
    pairs.write_text(PLANTED_PAIRS, encoding="utf-8")
    assert_never_silent(["cosimlex", "candidates", "--pairs", pairs, "--run", run, "--out",
                         tmp_path / "cosimlex", "--spacy-model", SPACY_MODEL])
