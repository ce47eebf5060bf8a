"""Hard negatives: lexical overlap measures and the choice of lexically close, semantically far phrases."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from companions.pearl import negatives

TEXT = st.text(alphabet="abc xyz", max_size=12)


@given(TEXT, TEXT)
def test_edit_distance_is_a_symmetric_bounded_distance(a, b):
    d = negatives.edit_distance(a, b)
    assert d == negatives.edit_distance(b, a) and abs(len(a) - len(b)) <= d <= max(len(a), len(b))
    assert (d == 0) == (a == b)


@given(TEXT, TEXT, TEXT)
def test_edit_distance_triangle_inequality(a, b, c):
    assert negatives.edit_distance(a, c) <= negatives.edit_distance(a, b) + negatives.edit_distance(b, c)


def test_known_distances_and_overlaps():
    assert negatives.edit_distance("kitten", "sitting") == 3
    assert negatives.token_jaccard("The New York Times", "New York Post") == 2 / 5
    assert negatives.lexical_overlap("New York", "new york") == 1.0
    assert negatives.blocking_keys("the history of the New York Times") == ["history", "new", "times", "york"]


def unit(*values):
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_candidates_are_close_in_form_and_far_in_meaning():
    block = [("The New York Times", unit(1, 0, 0)), ("New York Post", unit(0.2, 1, 0)),
             ("The New York Times Company", unit(1, 0.1, 0)), ("York", unit(0, 0, 1)),
             ("the new york times", unit(0, 0, 1))]
    found = dict()
    for phrase, (cosine, other) in negatives.hard_negative_candidates(block, min_overlap=0.5, max_cosine=0.6):
        found.setdefault(phrase, []).append((cosine, other))
    times = [other for _, other in found["The New York Times"]]
    assert "New York Post" in times                       # overlap 0.5 (edit similarity), cosine 0.2
    assert "The New York Times Company" not in times      # cosine 0.99: a paraphrase, not a negative
    assert "York" not in times                            # overlap too low
    assert "the new york times" not in times              # the same phrase in another casing


def test_pick_hard_negatives_lowest_cosine_distinct_k():
    found = [(0.5, "b"), (0.1, "c"), (0.3, "b"), (0.1, "a"), (0.2, "d")]
    assert negatives.pick_hard_negatives(found, 2) == ["a", "c"]
    assert negatives.pick_hard_negatives(found, 10) == ["a", "c", "d", "b"]
    assert negatives.pick_hard_negatives([], 2) == []
