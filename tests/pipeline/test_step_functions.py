"""The pure functions behind Steps 3–6 (group_phrase, candidate_pairs, rejection_reason), without Beam."""
from pipeline.stages.group import MAX_CONTEXTS_KEPT, group_phrase
from pipeline.stages.pairs import candidate_pairs
from pipeline.stages.select import rejection_reason, texts_in_order, wanted_value

WIC = frozenset({"figure", "bank", "run"})


def occurrences(*sentence_ids, kind="NOUN_CHUNK"):
    return [{"sentence_id": sid, "kind": kind} for sid in sentence_ids]


def test_group_phrase_needs_two_distinct_sentences():
    assert group_phrase("massive figure", occurrences("1:0"), WIC, seed=0) == ("single-context", None)
    # two occurrences in one sentence are still one context
    assert group_phrase("massive figure", occurrences("1:0", "1:0"), WIC, seed=0) == ("single-context", None)


def test_group_phrase_needs_a_whole_wic_word():
    assert group_phrase("massive statue", occurrences("1:0", "2:3"), WIC, seed=0) == ("no-wic-word", None)
    assert group_phrase("figurehead", occurrences("1:0", "2:3"), WIC, seed=0) == ("no-wic-word", None)


def test_group_phrase_keeps_contexts_kinds_and_the_matched_words():
    occs = occurrences("2:3", "1:0", "2:3") + occurrences("7:1", kind="PROPN")
    reason, record = group_phrase("the river bank run", occs, WIC, seed=0)
    assert reason == "kept"
    assert record == {"phrase": "the river bank run", "wic_words": ["bank", "run"], "kinds": ["NOUN_CHUNK", "PROPN"],
                      "contexts": ["1:0", "2:3", "7:1"], "n_contexts": 3}


def test_group_phrase_caps_contexts_with_a_seeded_sample():
    many = occurrences(*(f"{page}:0" for page in range(MAX_CONTEXTS_KEPT + 50)))
    _, first = group_phrase("bank", many, WIC, seed=1)
    _, again = group_phrase("bank", list(reversed(many)), WIC, seed=1)
    _, other = group_phrase("bank", many, WIC, seed=2)
    assert len(first["contexts"]) == MAX_CONTEXTS_KEPT and first["n_contexts"] == MAX_CONTEXTS_KEPT + 50
    assert first["contexts"] == sorted(first["contexts"]) and first == again
    assert other["contexts"] != first["contexts"]


def context(sentence_id, n_words, text=None):
    return {"sentence_id": sentence_id, "page_id": int(sentence_id.split(":")[0]), "n_words": n_words,
            "text": text or f"sentence {sentence_id} with {n_words} words"}


def test_candidate_pairs_keep_different_pages_of_similar_length():
    contexts = [context("1:0", 10), context("1:4", 11), context("2:0", 12), context("3:2", 14), context("10:1", 9)]
    sampled, pairs = candidate_pairs("bank", contexts, seed=0)
    assert [c["sentence_id"] for c in sampled] == ["1:0", "1:4", "2:0", "3:2", "10:1"]  # numeric page order
    # same page (1:0, 1:4) never pairs; lengths may differ by at most 3 words
    assert pairs == [("1:0", "2:0"), ("1:0", "10:1"), ("1:4", "2:0"), ("1:4", "3:2"), ("1:4", "10:1"),
                     ("2:0", "3:2"), ("2:0", "10:1")]


def test_candidate_pairs_drop_short_long_and_repeated_sentences():
    contexts = [context("1:0", 4), context("2:0", 26), context("3:0", 8, "The Bank closed."),
                context("4:0", 8, "the bank closed."), context("5:0", 25), context("6:0", 5)]
    sampled, pairs = candidate_pairs("bank", contexts, seed=0)
    assert [c["sentence_id"] for c in sampled] == ["3:0", "4:0", "5:0", "6:0"]  # 5–25 words only
    assert pairs == [("3:0", "6:0"), ("4:0", "6:0")]  # same text in another case is not a pair


def test_candidate_pairs_sample_at_most_max_contexts_with_the_seed():
    contexts = [context(f"{page}:0", 10) for page in range(1, 41)]
    sampled, pairs = candidate_pairs("bank", contexts, seed=0, max_contexts=32)
    again, _ = candidate_pairs("bank", list(reversed(contexts)), seed=0, max_contexts=32)
    other, _ = candidate_pairs("bank", contexts, seed=5, max_contexts=32)
    assert len(sampled) == 32 and len(pairs) == 32 * 31 // 2
    assert sampled == again and sampled != other


def pair(phrase="massive figure", broken1="", broken2=""):
    """A pair after AttachPassages: why each side has no clean passage ('' when it has one)."""
    return {"phrase": phrase, "sentence_id1": "1:0", "sentence_id2": "2:0", "broken1": broken1, "broken2": broken2}


def test_rejection_reason_names_each_step6_filter():
    assert rejection_reason(pair(), ["NOUN_CHUNK"]) == ""
    assert rejection_reason(pair(), ["PROPN"]) == "proper-noun"
    assert rejection_reason(pair(), ["NOUN_CHUNK", "PROPN"]) == ""  # also a noun chunk
    assert rejection_reason(pair("massive\nfigure"), ["NOUN_CHUNK"]) == "newline"
    assert rejection_reason(pair(broken2="broken-sentence"), ["NOUN_CHUNK"]) == "broken-sentence"
    assert rejection_reason(pair(broken1="broken-passage"), ["NOUN_CHUNK"]) == "broken-passage"
    assert rejection_reason(pair("x\ny", broken1="broken-sentence"), ["PROPN"]) == "proper-noun"  # first wins


def test_select_keeps_the_rows_of_wanted_keys_only():
    assert list(wanted_value((7, {"wanted": [None, None], "rows": [(2, "b"), (0, "a")]}), texts_in_order)) == [
        (7, ["a", "b"])]
    assert list(wanted_value((8, {"wanted": [], "rows": [(0, "a")]}), texts_in_order)) == []
    assert list(wanted_value((9, {"wanted": [None], "rows": []}), min)) == []
