"""Hard negatives: edit similarity (rapidfuzz), windows of large blocks, and the choice of lexically close,
semantically far phrases."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from companions.pearl import negatives
from companions.pearl.splits import split_of

TEXT = st.text(alphabet="abc xyz", max_size=12)


@given(TEXT, TEXT)
def test_edit_similarity_is_symmetric_and_bounded(a, b):
    similarity = negatives.edit_similarity(a, b)
    assert similarity == negatives.edit_similarity(b, a) and 0.0 <= similarity <= 1.0
    assert (similarity == 1.0) == (a.lower() == b.lower())


def test_known_similarities_and_keys():
    assert negatives.edit_similarity("kitten", "sitting") == 1 - 3 / 7
    assert negatives.edit_similarity("New York", "new york") == 1.0
    assert negatives.blocking_keys("the history of the New York Times") == ["history", "new", "times", "york"]


def test_bins_are_labelled_by_their_lower_edge():
    assert [negatives.bucket(v) for v in (0.5, 0.59, 0.6, -0.05, 1.0, 0.3)] == ["0.5", "0.5", "0.6", "-0.1", "1.0",
                                                                             "0.3"]


def unit(*values):
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_candidates_are_close_in_form_and_far_in_meaning():
    window = [("The New York Times", True), ("New York Post", False), ("The New York Times Company", True),
              ("York", True), ("the new york times", False)]
    found = {}
    for phrase, (similarity, other) in negatives.look_alike_candidates(window, min_edit_similarity=0.5):
        assert similarity == round(negatives.edit_similarity(phrase, other), 6) >= 0.5
        found.setdefault(phrase, []).append(other)
    assert "New York Post" in found["The New York Times"] and "New York Post" not in found  # only anchors ask
    assert "York" not in found["The New York Times"]                    # too far in form
    assert "the new york times" not in found["The New York Times"]      # the same phrase in another casing
    vectors = {"New York Post": unit(0.2, 1, 0), "The New York Times Company": unit(1, 0.1, 0)}
    candidates = [(similarity, other, vectors[other]) for similarity, other in negatives.within_budget(
        [(s, o) for s, o in [(negatives.edit_similarity("The New York Times", o), o) for o in vectors]], 5)]
    kept = negatives.low_cosine(unit(1, 0, 0), candidates, max_cosine=0.6)
    assert [other for *_, other in kept] == ["New York Post"]           # "... Company", cosine 0.99, is a paraphrase


def test_the_budget_keeps_the_most_alike_distinct_candidates():
    found = [(0.5, "b"), (0.9, "c"), (0.7, "b"), (0.9, "a"), (0.6, "d")]
    assert negatives.within_budget(found, 3) == [(0.9, "a"), (0.9, "c"), (0.7, "b")]
    assert negatives.within_budget(found, 1) == [(0.9, "a")] and negatives.within_budget([], 4) == []


@given(st.lists(st.text(alphabet="ab", min_size=1, max_size=8), unique=True, max_size=40),
       st.integers(min_value=2, max_value=9))
def test_windows_meet_every_pair_of_neighbours_in_length_order(phrases, size):
    members = [(p, None) for p in phrases]
    windows = negatives.block_windows(members, size)
    assert all(len(window) <= size for window in windows)
    ordered = sorted(phrases, key=lambda p: (len(p), p))
    met = {(a[0], b[0]) for window in windows for a in window for b in window}
    reach = max(1, size // 2)
    assert all((ordered[i], ordered[j]) in met for i in range(len(ordered))
               for j in range(i, min(len(ordered), i + reach + 1)))
    assert sum(len(w) for w in windows) <= max(len(phrases), len(phrases) * size // reach + size)  # linear in n


def test_pick_hard_negatives_lowest_cosine_distinct_k():
    found = [(0.5, 0.6, "b"), (0.1, 0.7, "c"), (0.3, 0.8, "b"), (0.1, 0.5, "a"), (0.2, 0.9, "d")]
    assert negatives.pick_hard_negatives(found, 2) == [(0.1, 0.5, "a"), (0.1, 0.7, "c")]
    assert [n for *_, n in negatives.pick_hard_negatives(found, 10)] == ["a", "c", "d", "b"]
    assert negatives.pick_hard_negatives([], 2) == []


def test_split_ignores_case_and_follows_the_ratios():
    assert split_of("New York", 0) == split_of("new york", 0)
    phrases = [f"phrase {i}" for i in range(3000)]
    shares = [sum(split_of(p, 3, (0.5, 0.25, 0.25)) == s for p in phrases) / 3000 for s in ("train", "validation", "test")]
    assert abs(shares[0] - 0.5) < 0.05 and abs(shares[1] - 0.25) < 0.05
    assert {split_of(p, 0, (0, 0, 1)) for p in phrases} == {"test"}


def test_encoded_candidates_are_those_sharing_the_fewest_words():
    budget = [(0.9, "the war years"), (0.8, "the wet year"), (0.7, "the wars"), (0.6, "The War, year")]
    # shares of words: 1/4 "the wars", 2/4 "the war years" and "the wet year" (the more alike first), 3/3 last
    assert negatives.fewest_shared_words("the war year", budget, 2) == [(0.7, "the wars"), (0.9, "the war years")]
    assert negatives.fewest_shared_words("the war year", budget, 9)[2:] == [(0.8, "the wet year"), (0.6, "The War, year")]


def test_a_rare_phrase_is_no_negative_where_its_case_folded_text_is_another_splits_phrase():
    members = [("the war", "test"), ("The War", None), ("the wars", None), ("a war", "train"), ("war years", "train")]
    assert negatives.split_members(members, "train") == [("the wars", False), ("a war", True), ("war years", True)]
    assert negatives.split_members(members, "test") == [("the war", True), ("The War", False), ("the wars", False)]
