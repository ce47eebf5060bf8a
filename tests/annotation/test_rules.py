"""The decision rules and text helpers on hand-computed cases."""
import pytest

from annotation import rules, text
from annotation.rules import PsTiebreak, PsVote, ps_decide


def test_kappa_hand_computed():
    a1 = "YYNNYNY"
    a2 = "YNNNNYY"
    # p_o = 4/7; p_e = 4/7·3/7 + 3/7·4/7 = 24/49; kappa = (28/49 − 24/49) / (25/49) = 4/25
    assert rules.cohen_kappa(list(zip(a1, a2))) == pytest.approx(0.16)
    assert rules.cohen_kappa([("Y", "Y"), ("N", "N")]) == pytest.approx(1.0)
    assert rules.cohen_kappa([("Y", "Y"), ("N", "N"), ("Y", "N"), ("N", "Y")]) == pytest.approx(0.0)
    assert rules.cohen_kappa([("Y", "N"), ("N", "Y")]) == pytest.approx(-1.0)
    assert rules.cohen_kappa([("Y", "Y"), ("Y", "Y")]) is None     # chance agreement is 1: undefined
    assert rules.cohen_kappa([]) is None


def test_endorsement_of_type1_and_type2_questions():
    assert rules.endorses("q1", "Y", same_meaning=False)
    assert not rules.endorses("q2", "N", same_meaning=True)
    assert rules.endorses("q3", "N", same_meaning=False)
    assert not rules.endorses("q3", "Y", same_meaning=False)
    assert rules.verify2_decision("q3", True, [("v1", "N"), ("v2", "Y")]) == ("accepted", "endorsed by v2")
    assert rules.verify2_decision("q1", True, [("v1", "N")]) == ("rejected", "not endorsed by v1")


@pytest.mark.parametrize("round1, round2, expected", [
    ("accepted", None, "round1"),
    ("accepted", "rejected", "round1"),
    ("rejected", "accepted", "round2"),
    ("rejected", "rejected", "rejected"),
    ("rejected", None, "pending"),
    (None, None, "unverified"),
])
def test_final_rule_per_annotation(round1, round2, expected):
    assert rules.item_outcome(round1, round2) == expected


def test_final_rule_keeps_each_annotation_on_its_own():
    assert rules.kept_outcomes({"q1": "round1", "q2": "round1", "q3": "round1"}) == {
        "q1": "round1", "q2": "round1", "q3": "round1"}
    assert rules.kept_outcomes({"q1": "round1", "q2": "rejected", "q3": "round2"}) == {"q1": "round1", "q3": "round2"}
    assert rules.kept_outcomes({"q1": "pending", "q2": "unverified", "q3": "rejected"}) == {}
    assert rules.kept_outcomes({"q2": "round2"}) == {"q2": "round2"}


Y, N = PsVote(True), PsVote(False)


@pytest.mark.parametrize("a1, a2, a3, status, text_, by", [
    (Y, Y, None, "accepted", "huge number", ("A1", "A2")),
    (N, N, None, "rejected", "", ()),
    (Y, N, None, "tiebreak", "", ()),
    (Y, N, PsTiebreak(True), "accepted", "huge number", ("A1", "A3")),
    (Y, N, PsTiebreak(False), "rejected", "", ()),
    (N, PsVote(False, "large total"), None, "tiebreak", "", ()),
    (N, PsVote(False, "large total"), PsTiebreak(False, ("A2",)), "accepted", "large total", ("A2", "A3")),
    (PsVote(False, "Large  Total"), PsVote(False, "large total"), None, "accepted", "Large  Total", ("A1", "A2")),
    (Y, PsVote(False, "large total"), PsTiebreak(True, ("A2",)), "accepted", "huge number", ("A1", "A3")),
    (None, Y, None, "pending", "", ()),
])
def test_ps_verification_decision_tree(a1, a2, a3, status, text_, by):
    result = ps_decide("huge number", a1, a2, a3)
    assert (result.status, result.text, result.endorsed_by) == (status, text_, by)
    assert result.corrected == (status == "accepted" and text.normalize(text_) != "huge number")


def test_locate_highlight_replace():
    page = {"page_id": 1, "passage": "One. It met a cold reception. Two.", "sentence": "It met a cold reception.",
            "char_span": [9, 23]}
    span = text.locate_phrase(page, "cold reception")
    assert span == (14, 28)
    assert text.highlight(page["passage"], span) == "One. It met a **cold reception**. Two."
    assert text.replace_span("Cold reception ahead.", (0, 14), "chilly welcome") == ("Chilly welcome ahead.",
                                                                                     (0, 14))
    by_passage = dict(page, char_span=[14, 28])
    assert text.locate_phrase(by_passage, "cold reception") == (14, 28)
    with pytest.raises(ValueError, match="does not occur"):
        text.locate_phrase(page, "warm welcome")


def test_shared_words_ignore_function_words_and_case():
    assert text.shared_words("the Massive number", "a massive figure") == ["massive"]
    assert text.shared_words("state of the art", "work of fiction") == []
    assert text.yes_no(" yes ") == "Y" and text.yes_no("n") == "N" and text.yes_no("maybe") is None


def test_kappa_text_says_why_kappa_is_zero_when_a_rater_gives_one_label():
    from annotation.ps_verify import kappa_text
    pairs = [("Y", "Y")] * 10 + [("Y", "N")] * 2          # 10 of 12 agree, but A1 answered Y throughout
    text = kappa_text({"kappa": rules.cohen_kappa(pairs), "one_label": {"A1": "Y"}})
    assert text.startswith("Cohen's kappa 0.000 (A1 answered Y to every pair; kappa is 0 when a rater gives one")
    assert kappa_text({"kappa": 0.25, "one_label": {}}) == "Cohen's kappa 0.250"
    assert kappa_text({"kappa": None, "one_label": {"A1": "Y", "A2": "Y"}}).startswith("Cohen's kappa n/a")
