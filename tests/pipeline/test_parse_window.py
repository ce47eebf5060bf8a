"""spaCy runs only on sentences in the pairs word window; the triplets are those of a run that parses all."""
import shutil

import pytest

from pipeline.mine import MineOptions, mine
from picforge.rundir import RunDir
from pipeline.stages.phrases import holds_wic_run, in_pair_window, load_spacy, may_hold_wic_phrase, phrase_words

PARSED = "2 sentences parsed by spaCy (pair word window, WiC word)"
SCORES = ("semantic_score", "domain_score")
# RunInference batches differ from run to run, and so does padding: two full runs of the same code give scores
# that differ in the 6th decimal (seen on this sample); everything else must match exactly.
SCORE_JITTER = 1e-5


def without_scores(triplet):
    return {k: v for k, v in triplet.items() if k not in SCORES}


def test_pair_window_bounds_are_inclusive():
    assert [in_pair_window(n, (5, 25)) for n in (4, 5, 25, 26)] == [False, True, True, False]
    assert in_pair_window(400, None)


def test_phrase_words_include_run_pieces_split_by_a_token_start():
    nlp = load_spacy()
    doc = nlp.make_doc("A 10km walk along the U.S. coast.")
    assert [t.text for t in doc][:3] == ["A", "10", "km"]
    words = phrase_words(doc.text, [t.idx for t in doc])
    assert {"10km", "10", "km", "walk", "u", "s", "coast"} <= words and "0km" not in words
    assert may_hold_wic_phrase(doc, {"km"}) and not may_hold_wic_phrase(doc, {"bank"})
    assert phrase_words("\u0130stanbul harbour", [0, 9]) is None  # lower() lengthens the text: parse it


@pytest.mark.parametrize("text, wic", [
    ("A 10km walk along the coast.", {"km"}),  # only a piece of a run: the tokens decide
    ("A 10km walk along the coast.", {"walk"}),  # a whole run: no need to read the tokens
    ("A 10km walk along the coast.", {"bank"}),
    ("\u0130stanbul harbour at dusk.", {"bank"}),  # lower() lengthens the text: parse it
])
def test_the_text_shortcut_decides_as_the_tokens_do(text, wic):
    doc = load_spacy().make_doc(text)
    assert may_hold_wic_phrase(doc, wic, text) == may_hold_wic_phrase(doc, wic)
    assert holds_wic_run(text, wic) <= may_hold_wic_phrase(doc, wic)  # the shortcut never passes what tokens refuse


def test_window_cut_keeps_the_triplets_of_the_full_parse_on_the_real_sample(tmp_path, enwiki_sample_103, wic_zip,
                                                                          mined_103):
    full_out, cut_out = str(tmp_path / "full"), str(tmp_path / "cut")
    shutil.copytree(mined_103, cut_out)  # the default options: every stage is up to date, the call reads the funnel
    cut = mine(str(enwiki_sample_103), str(wic_zip), cut_out, MineOptions())
    shutil.copytree(mined_103, full_out)  # read-dump, clean and sentences are reused; phrases onwards rerun
    full = mine(str(enwiki_sample_103), str(wic_zip), full_out, MineOptions(parse_all_sentences=True))
    full_counts, cut_counts = ({row["step"]: row["count"] for row in funnel} for funnel in (full, cut))

    outside = sum(1 for s in RunDir(cut_out).iter_records("sentences") if not 5 <= s["n_words"] <= 25)
    counters = RunDir(cut_out).read_manifest("phrases")["counters"]
    assert full_counts[PARSED] == full_counts["2 sentences"] == cut_counts["2 sentences"]
    assert counters["phrases/sentences-outside-window"] == outside
    assert counters["phrases/sentences-without-wic-word"] > 0
    assert cut_counts[PARSED] + outside + counters["phrases/sentences-without-wic-word"] == full_counts["2 sentences"]
    assert RunDir(cut_out).read_manifest("phrases")["fingerprint"] != RunDir(full_out).read_manifest("phrases")["fingerprint"]

    full_triplets = list(RunDir(full_out).iter_records("select"))
    assert full_triplets, "the 103-page sample yields triplets"
    cut_triplets = list(RunDir(cut_out).iter_records("select"))
    assert [without_scores(t) for t in cut_triplets] == [without_scores(t) for t in full_triplets]
    for cut_triplet, full_triplet in zip(cut_triplets, full_triplets):
        for score in SCORES:
            assert cut_triplet[score] == pytest.approx(full_triplet[score], abs=SCORE_JITTER)
