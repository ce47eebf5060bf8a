"""Round-1 logic as pure functions: HIT layout, request tokens, gold split, checks and the decision rule."""
import pytest

from annotation.mturk import fees as mturk_fees, hits as mturk_hits, round1
from picforge.ledger import ACCEPTED, REJECTED
from picforge.errors import InputError

from mturk_support import gold_bank

SETTINGS = round1.Round1Settings(questions_per_hit=4, gold_per_hit=1)
ITEMS = [f"T{n}/{k}" for n in range(1, 6) for k in ("q1", "q2", "q3")]


def test_layout_is_deterministic_complete_and_mixes_gold_into_every_hit():
    hits = round1.layout_hits("b1", ITEMS, ["g1", "g2"], SETTINGS)
    assert hits == round1.layout_hits("b1", ITEMS, ["g1", "g2"], SETTINGS)
    assert hits != round1.layout_hits("b2", ITEMS, ["g1", "g2"], SETTINGS)
    placed = [s for h in hits for s in h["slots"] if not s.startswith(round1.GOLD_PREFIX)]
    assert sorted(placed) == sorted(ITEMS) and len(hits) == 5          # 15 items, 3 per HIT
    assert all(sum(s.startswith(round1.GOLD_PREFIX) for s in h["slots"]) == 1 for h in hits)
    assert len({h["token"] for h in hits}) == 5 and all(len(h["token"]) <= 64 for h in hits)
    assert {h["token"] for h in hits} == {round1.request_token("b1", h["slots"]) for h in hits}


def test_gold_split_is_disjoint_and_refuses_a_small_bank():
    bank = gold_bank()
    split = round1.split_gold(bank, round1.Round1Settings(), "b1")
    assert len(split["qualification"]) == 6 and len(split["practice"]) == 5 and len(split["checks"]) == 3
    assert len(set(split["qualification"]) | set(split["practice"]) | set(split["checks"])) == 14
    answers = {g["gold_id"]: g["answer"] for g in bank}
    for part in ("qualification", "practice", "checks"):  # each part holds both answers, about half each
        yes = sum(answers[g] for g in split[part])
        assert abs(2 * yes - len(split[part])) <= 1, part
    with pytest.raises(InputError, match="the gold bank has 9 questions this batch can use, but it needs at least 13"):
        round1.split_gold(bank[:9], round1.Round1Settings(), "b1")
    only_yes = [g for g in bank if g["answer"]] + [dict(g, answer=True) for g in bank if not g["answer"]]
    with pytest.raises(InputError, match="no question whose answer is no: a worker answering yes to everything"):
        round1.split_gold(only_yes, round1.Round1Settings(), "b1")


@pytest.mark.parametrize("votes, decision, reason", [
    ([True], ACCEPTED, "1 of 1 valid assignment(s) agree with the expert"),       # PiC: verified once
    ([False], REJECTED, "0 of 1 valid assignment(s) agree with the expert"),
    ([True, False, True], ACCEPTED, "2 of 3 valid assignment(s) agree with the expert"),
    ([True, False], REJECTED, "1 of 2 valid assignment(s) agree with the expert"),  # tie: to round 2
])
def test_decide_accepts_on_a_strict_majority_of_valid_votes(votes, decision, reason):
    assert round1.decide(votes) == (decision, reason)


def test_check_assignment_requires_every_answer_and_the_gold_answers():
    gold = {g["gold_id"]: g for g in gold_bank()}
    slots = ["T1/q1", "gold:g01", "T1/q3", "gold:g02"]          # g01 answer yes, g02 answer yes
    right = {"answer_1": "no", "answer_2": "yes", "answer_3": "yes", "answer_4": "yes"}
    assert round1.check_assignment(right, slots, gold, SETTINGS) == (
        True, "Thank you: 2 of 2 check question(s) right.")
    valid, reason = round1.check_assignment({**right, "answer_4": "no"}, slots, gold, SETTINGS)
    assert not valid and reason.startswith("1 of the 2 check question(s) with known answers were answered wrongly "
                                           "(question 4)")
    lenient = round1.Round1Settings(questions_per_hit=4, max_gold_errors=1)
    assert round1.check_assignment({**right, "answer_4": "no"}, slots, gold, lenient)[0]
    assert round1.check_assignment({k: v for k, v in right.items() if k != "answer_3"}, slots, gold, SETTINGS) == (
        False, "Unanswered question(s): 3.")


def test_answers_by_field_maps_slots_to_items_and_gold_to_none():
    slots = ["T1/q1", "gold:g01"]
    assert round1.answers_by_field({"answer_1": "Yes", "answer_2": "no", "comments": " ok ", "x": "1"}, slots) == {
        "answer_1": ("T1/q1", "yes"), "answer_2": (None, "no"), "comments": (None, "ok")}
    with pytest.raises(ValueError, match="answer_3: the HIT has only 2 questions"):
        round1.answers_by_field({"answer_3": "yes"}, slots)


def test_settings_refuse_impossible_layouts():
    with pytest.raises(InputError, match="--gold-per-hit 4 must be at least 0 and below --questions-per-hit 4"):
        round1.Round1Settings(questions_per_hit=4, gold_per_hit=4)
    with pytest.raises(InputError, match="--qualification-pass 7"):
        round1.Round1Settings(qualification_pass=7)


def test_defaults_follow_pic_appendix_j():
    """5 practice questions, a 6-question checkpoint, sets of 30 questions, $5.6 per 30 answers with fees."""
    settings = round1.Round1Settings()
    assert (settings.practice, settings.qualification_questions, settings.questions_per_hit) == (5, 6, 30)
    cost = mturk_fees.batch_cost(mturk_hits.HitTypeSettings().reward, assignments=1, hits=1)
    assert str(cost["total"]) == "5.60" and str(cost["fees"]) == "0.93"
