"""Pure construction and checking functions of the release, on hand-made inputs."""
import random
from collections import Counter

import pytest

from release import build, checks
from release.configs import features
from release.inputs import Anchor, locate

SENTENCES = tuple(f"Sentence number {i} talks about the weather." for i in range(20))


def anchor_at(index, sentences=SENTENCES, phrase="the weather"):
    start = sentences[index].index(phrase)
    return Anchor(1, " ".join(sentences), sentences, index, start, start + len(phrase))


@pytest.mark.parametrize("index", [0, 3, 10, 19])
def test_random_window_has_eleven_sentences_around_the_anchor(index):
    for seed in range(20):
        start, end = build.random_window(anchor_at(index), 11, random.Random(seed))
        assert end - start == 11 and start <= index < end and 0 <= start and end <= len(SENTENCES)


def test_random_window_of_a_short_page_is_the_whole_page():
    short = SENTENCES[:4]
    assert build.random_window(anchor_at(2, short), 11, random.Random(0)) == (0, 4)


def test_join_window_points_at_the_phrase():
    anchor = anchor_at(7)
    text, start = build.join_window(anchor, 3, 14)
    assert text[start:start + len("the weather")] == "the weather"
    assert text.count("Sentence number") == 11 and text.startswith("Sentence number 3 ")


def test_exclusive_window_keeps_the_phrase_once():
    sentences = ("The river bank flooded.", "Fish swam.", "Birds sang.", "A river bank again.") + SENTENCES[:10]
    anchor = anchor_at(0, sentences, "river bank")
    start, end = build.exclusive_window(anchor, 11, random.Random(1))
    window = " ".join(sentences[start:end])
    assert (start, end) == (0, 3) and checks.count_phrase(window, "river bank") == 1


def test_exclusive_window_is_none_when_the_sentence_repeats_the_phrase():
    sentences = ("The river bank met another river bank.",) + SENTENCES[:5]
    assert build.exclusive_window(anchor_at(0, sentences, "river bank"), 11, random.Random(0)) is None


def test_sentence_offsets_follow_the_page_in_order():
    text = "Same line.\n\nOther.  Same line."
    assert build.sentence_offsets(text, ["Same line.", "Other.", "Same line."]) == [0, 12, 20]
    with pytest.raises(ValueError, match="sentence 1"):
        build.sentence_offsets(text, ["Same line.", "Missing."])


def test_ps_record_replaces_the_phrase_in_place():
    record = build.ps_record("He saw a massive figure there.", 9, 23, "giant statue", 0)
    assert record == {"phrase1": "massive figure", "phrase2": "giant statue",
                      "sentence1": "He saw a massive figure there.", "sentence2": "He saw a giant statue there.",
                      "label": 0, "idx": 0}


def test_locate_checks_the_span_and_prefers_the_sentence_inside_the_passage():
    page = {"page_id": 9, "text": "A. B x y. C. B x y. D."}
    sentences = [{"text": t} for t in ("A.", "B x y.", "C.", "B x y.", "D.")]
    side = {"sentence": "B x y.", "char_span": [2, 5], "passage": "C. B x y. D."}
    assert locate(side, "x y", page, sentences).index == 3
    with pytest.raises(ValueError, match="not at char_span"):
        locate(dict(side, char_span=[0, 3]), "x y", page, sentences)
    with pytest.raises(ValueError, match="not among the 5 sentences"):
        locate(dict(side, sentence="Q x y.", char_span=[2, 5]), "x y", page, sentences)


def example(tid, label=None, key=None):
    record = {"label": label} if label is not None else {}
    return build.Example(key or f"{tid}:{label}", tid, record)


def test_triplet_splits_follow_the_ratios_and_give_every_split_a_triplet():
    mapping = build.triplet_splits([f"t{i:02d}" for i in range(50)], seed=3)
    assert Counter(mapping.values()) == {"train": 35, "validation": 5, "test": 10}
    assert build.triplet_splits([f"t{i:02d}" for i in range(50)], seed=3) == mapping
    assert build.triplet_splits([f"t{i:02d}" for i in range(50)], seed=4) != mapping
    # 4 triplets: 70/10/20 rounds to 3/0/1, but every split gets one when there are three or more.
    assert Counter(build.triplet_splits(["a", "b", "c", "d"], seed=0).values()) == {
        "train": 2, "validation": 1, "test": 1}
    assert set(build.triplet_splits(["a", "b"], seed=0).values()) == {"train"}


def test_stratified_splits_cut_the_ps_triplets_70_10_20_among_themselves():
    ps = {f"p{i:02d}": "PS" for i in range(10)}
    everyone = [f"t{i:02d}" for i in range(40)] + list(ps)
    mapping = build.stratified_splits(everyone, ps, seed=3)
    assert Counter(mapping[tid] for tid in ps) == {"train": 7, "validation": 1, "test": 2}
    assert Counter(mapping[f"t{i:02d}"] for i in range(40)) == {"train": 28, "validation": 4, "test": 8}
    assert build.stratified_splits(everyone, ps, seed=3) == mapping


def test_balance_classes_samples_the_larger_class_down():
    examples = [example(f"p{i}", 1) for i in range(7)] + [example(f"n{i}", 0) for i in range(3)]
    kept, sampled_out = build.balance_classes(examples, seed=0)
    assert [e.record["label"] for e in kept].count(1) == 3 and len(kept) == 6
    assert len(sampled_out) == 4 and {e.record["label"] for e in sampled_out} == {1}
    assert build.balance_classes(examples, seed=0) == (kept, sampled_out)


GOOD_PR = {"id": "t7-2", "title": "Old Mill", "context": "Go to the old mill now.",
           "query": "ancient factory", "answers": {"text": ["old mill"], "answer_start": [10]},
           "url": "https://en.wikipedia.org/wiki?curid=7", "revision_id": "123"}


def test_a_good_record_passes_every_check():
    assert checks.problems("PR-pass", GOOD_PR) == []


@pytest.mark.parametrize("change, expected", [
    ({"query": ""}, "query: '' should be non-empty"),
    ({"id": 7}, "id: 7 is not of type 'string'"),
    ({"answers": {"text": ["old mill"], "answer_start": [9]}}, "answer_start 9 indexes ' old mil'"),
    ({"answers": {"text": ["old mill"], "answer_start": [10, 3]}}, "1 texts but 2 answer_start values"),
    ({"context": "Go to the old mill {{citation needed}} now."}, "markup residue '{{'"),
    ({"context": "Go to the old mill<ref>x</ref> now."}, "markup residue '<ref>'"),
    ({"context": "Go to the old mill &amp; now."}, "markup residue '&amp;'"),
    ({"context": "== History ==\nGo to the old mill now."}, "markup residue '== History =='"),
])
def test_bad_records_are_refused_with_the_reason(change, expected):
    found = checks.problems("PR-pass", dict(GOOD_PR, **change))
    assert any(expected in reason for reason in found), found


def test_psd_needs_the_phrase_exactly_twice():
    twice = dict(GOOD_PR, context="Go to the old mill now.\n\nThe Old Mill burned.")
    thrice = dict(twice, context=twice["context"] + " An old mill again.")
    assert checks.problems("PSD", twice) == []
    assert checks.problems("PSD", thrice) == ["context: the phrase occurs 3 times, PSD needs exactly 2"]


def test_ps_checks_label_and_markup():
    record = build.ps_record("He saw a massive figure there.", 9, 23, "giant statue", 1)
    assert checks.problems("PS", record) == []
    assert checks.problems("PS", dict(record, label=2)) == ["label: 2 is not one of [0, 1]"]
    assert checks.problems("PS", dict(record, phrase2="[[giant statue]]")) == ["phrase2: markup residue '[['"]


def test_features_match_the_public_pic_release():
    ps, pr = features("PS"), features("PR-pass")
    assert list(ps) == ["phrase1", "phrase2", "sentence1", "sentence2", "label", "idx"]
    assert ps["label"].names == ["negative", "positive"] and ps["idx"].dtype == "int32"
    assert list(pr)[:5] == ["id", "title", "context", "query", "answers"]  # PiC's fields, then the page's own
    assert list(pr)[5:] == ["url", "revision_id"]
    assert str(pr.arrow_schema.field("answers").type) == \
        "struct<text: list<item: string>, answer_start: list<item: int32>>"


def test_the_card_names_the_precision_the_run_was_mined_in(tmp_path):
    import dataclasses
    from picforge.rundir import RunDir
    from pipeline.mine_stages import MineOptions
    from release.provenance import run_provenance
    run = RunDir(str(tmp_path / "run"))
    for precision in ("fp32", "bf16"):
        options = {**dataclasses.asdict(MineOptions()), "encoder": "MODEL", "pooling": "cls", "precision": precision}
        run.write_stage("pairs", [], None, inputs={}, options=options)
        rows, _ = run_provenance(run.root)
        assert dict(rows)["sentence and category encoder"] == f"MODEL, pooling: cls, precision: {precision}"
