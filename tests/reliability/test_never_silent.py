"""No verb is silent for more than 30 s off a terminal (as CI, nohup and Dataflow see it): `mine` (the `mined_103`
fixture, built by a child `picforge mine` with its output piped, into a run named with glob characters), `evaluate`
and `cosimlex candidates` on the 103-page sample, each line timestamped."""
import shutil

import pytest

from picforge.rundir import RunDir
from tests.cli_helpers import picforge_in_child, silences
from tests.conftest import silences_of
from tests.cosimlex.conftest import PLANTED_PAIRS, SPACY_MODEL

LONGEST_SILENCE_S = 30


def assert_quiet(verb, gaps):
    longest = max(gaps)
    assert longest[0] <= LONGEST_SILENCE_S, f"{verb}: {longest[0]:.0f} s silent between {longest[1]}"


def assert_never_silent(argv):
    code, gaps = silences(argv)
    assert code == 0, gaps[-5:]
    assert_quiet(argv[0], gaps)


@pytest.mark.slow
def test_mine_evaluate_and_cosimlex_candidates_are_never_silent_for_30_s(tmp_path, enwiki_sample_103, wic_zip,
                                                                         release_103, mined_103):
    assert "[" in mined_103.name  # a run named with glob characters works like any other
    gaps = silences_of(mined_103)
    assert_quiet("mine", gaps)
    assert any("triplets selected" in line for _, line in gaps)
    run = tmp_path / "run[1]"
    shutil.copytree(mined_103, run)
    selected = sum(1 for _ in RunDir(str(run)).iter_records("select"))
    code, stdout, _ = picforge_in_child("mine", "--input", enwiki_sample_103, "--wic", wic_zip, "--out", run)
    assert code == 0 and f"{selected} triplets selected" in stdout
    assert_never_silent(["release", "evaluate", "--release", release_103])
    pairs = tmp_path / "pairs.txt"
    pairs.write_text(PLANTED_PAIRS, encoding="utf-8")
    assert_never_silent(["cosimlex", "candidates", "--pairs", pairs, "--run", run, "--out",
                         tmp_path / "cosimlex", "--spacy-model", SPACY_MODEL])
