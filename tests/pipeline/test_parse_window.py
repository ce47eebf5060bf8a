"""spaCy runs only on sentences in the pairs word window; the triplets are those of a run that parses all."""
import shutil

import pytest

from pipeline.mine import MineOptions, mine
from pipeline.rundir import RunDir
from pipeline.stages.phrases import in_pair_window

PARSED = "2 sentences parsed by spaCy (in the pairs word window)"
SCORES = ("semantic_score", "domain_score")
# RunInference batches differ from run to run, and so does padding: two full runs of the same code give scores
# that differ in the 6th decimal (seen on this sample); everything else must match exactly.
SCORE_JITTER = 1e-5


def without_scores(triplet):
    return {k: v for k, v in triplet.items() if k not in SCORES}


def test_pair_window_bounds_are_inclusive():
    assert [in_pair_window(n, (5, 25)) for n in (4, 5, 25, 26)] == [False, True, True, False]
    assert in_pair_window(400, None)


def test_window_cut_keeps_the_triplets_of_the_full_parse_on_the_real_sample(tmp_path, enwiki_sample_103, wic_zip):
    full_out, cut_out = str(tmp_path / "full"), str(tmp_path / "cut")
    full = mine(str(enwiki_sample_103), str(wic_zip), full_out, MineOptions(parse_all_sentences=True))
    shutil.copytree(full_out, cut_out)  # read-dump, clean and sentences are reused; phrases onwards rerun
    cut = mine(str(enwiki_sample_103), str(wic_zip), cut_out, MineOptions())
    full_counts, cut_counts = ({row["step"]: row["count"] for row in funnel} for funnel in (full, cut))

    in_window = sum(1 for s in RunDir(cut_out).iter_records("sentences") if 5 <= s["n_words"] <= 25)
    assert full_counts[PARSED] == full_counts["2 sentences"] == cut_counts["2 sentences"]
    assert cut_counts[PARSED] == in_window < full_counts["2 sentences"]
    assert RunDir(cut_out).read_manifest("phrases")["fingerprint"] != RunDir(full_out).read_manifest("phrases")["fingerprint"]

    full_triplets = list(RunDir(full_out).iter_records("select"))
    assert full_triplets, "the 103-page sample yields triplets"
    cut_triplets = list(RunDir(cut_out).iter_records("select"))
    assert [without_scores(t) for t in cut_triplets] == [without_scores(t) for t in full_triplets]
    for cut_triplet, full_triplet in zip(cut_triplets, full_triplets):
        for score in SCORES:
            assert cut_triplet[score] == pytest.approx(full_triplet[score], abs=SCORE_JITTER)
