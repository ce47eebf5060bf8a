"""Post-processing and the task metrics on cases computed by hand."""
import math

import pytest
from scipy import stats

from companions.cosimlex.metrics import score_predictions, uncentered_pearson
from companions.cosimlex.postprocess import (agreement_with_others, calibrate, context_statistics, engaged,
                                           engagement_check, postprocess)
from picforge.errors import InputError


LETTERS = str.maketrans("0123456789#|", "abcdefghijkl")


def rated(worker, item, value, words=None):
    """A rating record; by default the page-1 words are two different real words unique to worker and item."""
    pair_id, _, context_no = item.partition("#")
    words = words or (f"tea{(worker + item).translate(LETTERS)}", "cup")
    return {"worker_id": worker, "item_id": item, "pair_id": pair_id, "context_no": int(context_no),
            "rating": value, "value": float(value), "inspired1": words[0], "inspired2": words[1], "status": "ok"}


def test_agreement_with_the_mean_of_the_others():
    table = {"w1": [0, 2, 4, 6], "w2": [1, 2, 5, 6], "w3": [0, 3, 4, 5], "w4": [6, 4, 2, 0]}
    ratings = [rated(w, f"p{i}#1", v) for w, values in table.items() for i, v in enumerate(values)]
    scores = agreement_with_others(ratings)
    assert scores["w1"] == pytest.approx(3 / math.sqrt(10))  # ranks 1,2,3,4 vs 1,2,3.5,3.5
    assert scores["w2"] == pytest.approx(1.0) and scores["w3"] == pytest.approx(1.0)
    assert scores["w4"] == pytest.approx(-1.0)
    assert agreement_with_others(ratings[:2] + [rated("w9", "p0#1", 3)]) == {"w1": None, "w9": None}


def test_calibration_shifts_each_annotator_to_the_common_mean_and_clips():
    ratings = [rated("w1", "x#1", 6), rated("w2", "x#1", 6), rated("w2", "y#1", 0), rated("w3", "y#1", 6)]
    got = {(r["worker_id"], r["item_id"]): r["value"] for r in calibrate(ratings)}
    assert got == {("w1", "x#1"): 6.0, ("w2", "x#1"): 6.0, ("w2", "y#1"): 1.5, ("w3", "y#1"): 3.0}


@pytest.mark.parametrize("words, expected", [
    (("tea", "table"), True), (("Rock-n-roll", "čovjek"), True), (("tea", "Tea"), False), (("", "tea"), False),
    (("123", "tea"), False), (("x", "tea"), False), (("tea?", "cup"), False)])
def test_page_one_words_show_engagement(words, expected):
    assert engaged(*words) is expected


def test_engagement_check_drops_responses_or_whole_annotators():
    good = [rated("a", f"p{i}#1", 3, (f"tea{'xyzw'[i]}", "cup")) for i in range(4)]
    copier = [rated("b", f"p{i}#1", 3, ("same", "words")) for i in range(3)] + [rated("b", "p3#1", 3, ("sun", "sea"))]
    one_bad = [rated("c", f"p{i}#1", 3, (f"sky{'xyzw'[i]}", "cloud")) for i in range(4)] + [
        rated("c", "p4#1", 3, ("42", ""))]
    kept, dropped_workers, dropped_responses = engagement_check(good + copier + one_bad, 0.25)
    assert dropped_workers == ["b"] and dropped_responses == 5
    assert sorted((r["worker_id"], r["item_id"]) for r in kept) == sorted(
        [("a", f"p{i}#1") for i in range(4)] + [("c", f"p{i}#1") for i in range(4)])


def test_context_statistics_by_hand():
    assert context_statistics([1, 2, 3], [4, 5, 6]) == pytest.approx((2.0, 5.0, 1.0, 1.0, 0.1))


def selection(pair_no, pair_id):
    word1, word2 = pair_id.split("|")
    places = {"word1_start": 0, "word1_end": len(word1), "word2_start": len(word1) + 5,
              "word2_end": len(word1) + 5 + len(word2)}
    return {"pair_id": pair_id, "pair_no": pair_no, "word1": word1, "word2": word2,
            "context1": {"text": f"{word1} and {word2}, first.", **places},
            "context2": {"text": f"{word1} and {word2}, second.", **places}}


def test_postprocess_end_to_end_by_hand():
    form_a = {"a1": (1, 3, 5), "a2": (1, 3, 5), "a3": (2, 3, 4), "a4": (5, 3, 1)}  # P#1, Q#2, R#1
    form_b = {"b1": (2, 4, 6), "b2": (2, 4, 6), "b3": (3, 4, 5), "b4": (2, 4, 6)}  # P#2, Q#1, R#2
    ratings = [rated(w, item, v) for w, values in form_a.items()
               for item, v in zip(("P|p#1", "Q|q#2", "R|r#1"), values)]
    ratings += [rated(w, item, v, ("12", "x") if w == "b4" else None)
                for w, values in form_b.items() for item, v in zip(("P|p#2", "Q|q#1", "R|r#2"), values)]
    ratings += [rated("a1", "S|s#1", 3), dict(rated("b1", "S|s#2", 4), status="repeat-pair")]
    selections = [selection(0, "P|p"), selection(1, "Q|q"), selection(2, "R|r"), selection(3, "S|s")]
    rows, report = postprocess(ratings, selections, min_correlation=0.2, max_disengaged=0.25, min_ratings=2,
                               scale_max=10)
    k = 10 / 6
    sd = math.sqrt(1 / 3) * k
    expected = [("P", 4 / 3 * k, 7 / 3 * k, sd, sd), ("Q", 4 * k, 3 * k, 0.0, 0.0), ("R", 14 / 3 * k, 17 / 3 * k, sd, sd)]
    assert [r["word1"] for r in rows] == ["P", "Q", "R"]
    for row, (word1, sim1, sim2, sd1, sd2) in zip(rows, expected):
        assert (row["sim1"], row["sim2"], row["sd1"], row["sd2"]) == pytest.approx((sim1, sim2, sd1, sd2))
        assert row["context1"] == f"{word1} and {word1.lower()}, first."
        assert (row["word1_context1"], row["word2_context2"]) == (word1, word1.lower())
        assert (row["context2_word2_start"], row["context2_word2_end"]) == (6, 7)
    p_expected = stats.mannwhitneyu([1 * k, 1 * k, 2 * k], [2 * k, 2 * k, 3 * k]).pvalue
    assert rows[0]["p_value"] == pytest.approx(p_expected)
    assert report["annotators_disengaged"] == ["b4"] and report["annotators_low_correlation"] == ["a4"]
    assert report["ratings_used"] == 19 and report["pairs"] == 3 and report["pairs_left_out"] == ["S|s"]
    assert report["inter_rater_agreement"] == pytest.approx(1.0)


def test_uncentered_pearson_by_hand():
    assert uncentered_pearson([1, 2], [2, 4]) == pytest.approx(1.0)
    assert uncentered_pearson([1, -1], [1, 1]) == pytest.approx(0.0)
    assert uncentered_pearson([1, 0], [1, 1]) == pytest.approx(1 / math.sqrt(2))
    assert uncentered_pearson([1, 1], [2, 3]) == pytest.approx(5 / math.sqrt(2 * 13))  # means are not removed
    assert uncentered_pearson([0, 0], [1, 2]) == 0.0


GOLD = [{"word1": "a", "word2": "b", "sim1": 1, "sim2": 3}, {"word1": "c", "word2": "d", "sim1": 5, "sim2": 4},
        {"word1": "e", "word2": "f", "sim1": 2, "sim2": 2}]


def test_score_predictions_subtasks_by_hand():
    predictions = {("a", "b"): {"sim1": .2, "sim2": .6}, ("c", "d"): {"sim1": .5, "sim2": .4},
                   ("e", "f"): {"sim1": .3, "sim2": .3}}
    result = score_predictions(GOLD, predictions)
    assert result["subtask1"] == pytest.approx(0.9 / math.sqrt(0.85))
    assert result["subtask2"] == pytest.approx(14 / 17)
    flat = {key: {"sim1": 0.5, "sim2": 0.5} for key in predictions}  # a context-independent model
    assert score_predictions(GOLD, flat) == {"pairs": 3, "subtask1": 0.0, "subtask2": 0.0}
    changes = {key: {"change": p["sim2"] - p["sim1"]} for key, p in predictions.items()}
    assert score_predictions(GOLD, changes) == {"pairs": 3, "subtask1": pytest.approx(0.9 / math.sqrt(0.85)), "subtask2": None}
    with pytest.raises(InputError, match="no prediction for 1 gold pair"):
        score_predictions(GOLD, {k: v for k, v in predictions.items() if k != ("e", "f")})
