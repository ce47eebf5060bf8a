"""Gold that is truth (issue 42 item 5): `annotate mturk gold` answers only from settled items (round-2 verifiers
unanimous, a previous run's release), a batch never shows gold of a triplet it verifies nor a paraphrase with two
phrases, and a worker who never reads the passages fails the checks."""
import json
import os

import pytest

from annotation.mturk import gold as G
from picforge import ledger as L
from annotation.mturk import round1
from annotation.mturk.hit_pages import PARAPHRASE
from annotation.rules import verify2_decision
from picforge.errors import InputError
from tests.annotation.conftest import triplet_records

from mturk_support import ANNOTATIONS, gold_bank, make_run

# Settled paraphrases of a previous run's release (other pages than make_run's): phrase -> (page 1, page 2).
RELEASED = {"cold reception": ("chilly welcome", "frosty entrance hall"), "massive figure": ("huge total", "giant statue"),
            "sharp turn": ("abrupt bend", "sudden shift"), "light touch": ("gentle hand", "soft approach"),
            "rough draft": ("first version", "preliminary text"), "deep cut": ("serious wound", "obscure track")}


def write_release(folder):
    """A previous run's release folder: PR-pass examples (id, title, context, query, answers) of RELEASED."""
    rows = []
    for triplet in triplet_records():
        for side, paraphrase in zip(("page1", "page2"), RELEASED[triplet["phrase"]]):
            context = triplet[side]["passage"]
            start = context.lower().index(triplet["phrase"])
            rows.append({"id": f"{triplet['triplet_id']}-{side[-1]}", "title": triplet[side]["title"],
                         "context": context, "query": paraphrase,
                         "answers": {"text": [context[start:start + len(triplet["phrase"])]], "answer_start": [start]}})
    os.makedirs(folder / "PR-pass")
    (folder / "PR-pass" / "train.json").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(folder)


def read_bank(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def record_round2(ledger, votes):
    """Round-2 decisions of {item_id: [(verifier, Y/N)]} as `ingest verify2` records them, on items round 1 rejected
    (round 1 never asks them again)."""
    annotations = {a["triplet_id"]: a for a in ANNOTATIONS}
    with ledger.transaction() as tx:
        tx.add_batch("verify2-vera-001", "verify2", round=L.ROUND_VERIFY2)
        for iid, item_votes in votes.items():
            tid, kind = iid.rsplit("/", 1)
            tx.add_items("verify2-vera-001", [(tid, kind)])
            tx.record_decision(iid, L.ROUND_MTURK, L.REJECTED, reason="not endorsed by a worker", decided_by="review")
            decision, reason = verify2_decision(kind, annotations[tid]["same_meaning"], item_votes)
            tx.record_decision(iid, L.ROUND_VERIFY2, decision, reason=reason, decided_by="ingest verify2",
                               detail={"votes": item_votes})


def test_mturk_gold_refuses_without_settled_answers_and_never_uses_unverified_ones(tmp_path, annotate, ledger_url, capsys):
    run, ledger = make_run(tmp_path, ledger_url)
    out = tmp_path / "gold.jsonl"
    assert annotate("mturk", "gold", "--run", run, "--out", str(out)) != 0
    err = capsys.readouterr().err
    assert "no settled answer" in err and "--from-release" in err and not out.exists()
    # Round 2: T1/q1 endorsed by both verifiers, T3/q2 by neither, T2/q3 split (not settled).
    record_round2(ledger, {"T1/q1": [("vera", "Y"), ("vic", "Y")], "T3/q2": [("vera", "N"), ("vic", "N")],
                           "T2/q3": [("vera", "Y"), ("vic", "N")]})
    assert annotate("mturk", "gold", "--run", run, "--out", str(out)) == 0
    bank = {r["gold_id"]: r for r in read_bank(out)}
    assert set(bank) == {"T1-q1", "T3-q2"}                  # nothing from T2, nothing from unverified answers
    assert (bank["T1-q1"]["paraphrase"], bank["T1-q1"]["answer"]) == ("huge statue", True)
    assert (bank["T3-q2"]["paraphrase"], bank["T3-q2"]["answer"]) == ("chilled crate", False)
    assert all(r["source"].startswith(G.ROUND2_UNANIMOUS) for r in bank.values())
    ledger.dispose()


def test_a_release_gives_settled_yes_answers_and_constructed_nos_that_show_each_paraphrase_once(tmp_path):
    records = G.with_constructed_nos(G.release_settled(write_release(tmp_path / "release")))
    answers = [r["answer"] for r in records]
    assert answers.count(True) == answers.count(False) == 4   # 12 released paraphrases: 4 kept, 4 constructed nos
    paraphrases = [r["paraphrase"].lower() for r in records]
    assert len(set(paraphrases)) == len(paraphrases)
    shown = [(r["phrase"].lower(), r["passage1"]) for r in records]
    assert len(set(shown)) == len(shown)                     # no phrase-in-passage shown twice either
    for record in records:
        assert round1.gold_question(record)                  # each is a question a HIT can show
        if not record["answer"]:                             # a released paraphrase of another phrase
            donor = next(p for p, pair in RELEASED.items() if record["paraphrase"] in pair)
            assert donor != record["phrase"] and record["source"].startswith("constructed")


def test_a_batch_never_shows_gold_of_its_own_triplets_nor_a_paraphrase_with_two_phrases(tmp_path, annotate, ledger_url):
    run, ledger = make_run(tmp_path, ledger_url)
    own = G.paraphrase_record("T1-q1", "T1", "massive figure", "Visitors described a massive figure.",
                              "huge statue", True, "a previous run's release")
    reused = G.paraphrase_record("X9-q1", "X9", "open field", "The cavalry charged across the open field.",
                                 "unsolved crime", False, "constructed")   # T3's q1, shown with another phrase
    bank = gold_bank() + [own, reused]
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in bank), encoding="utf-8")
    assert annotate("mturk", "export", "--run", run, "--batch", "m1", "--gold", str(path),
                    "--questions-per-hit", "4", "--min-worker-gold", "3") == 0
    with ledger.read() as q:
        plan = q.batch("m1")["meta"]
    ledger.dispose()
    used = set(plan["qualification"]) | set(plan["practice"]) | set(plan["checks"])
    assert used == set(plan["gold"]) and not {"T1-q1", "X9-q1"} & used
    triplets = {iid.rsplit("/", 1)[0] for iid in plan["items"]}
    assert not {g.get("triplet_id") for g in plan["gold"].values()} & triplets
    assert not set(plan["practice"]) & set(plan["items"])
    usable, left_out = G.gold_for_batch(bank, {a["triplet_id"]: {**a, "phrase": p} for a, p in
                                              zip(ANNOTATIONS, ("massive figure", "open field", "cold case"))})
    assert left_out == {"from a triplet this batch verifies": 1,
                        "its paraphrase is shown with another phrase in the batch": 1}
    assert len(usable) == len(gold_bank())


def never_reader(question, shown):
    """A worker who reads no passage: no when the paraphrase is shown with another phrase in the batch, else yes."""
    if question.kind == PARAPHRASE:
        return len(shown[question.paraphrase.lower()]) < 2
    return True


def test_a_worker_who_never_reads_fails_the_checks_of_a_settled_bank(tmp_path, annotate, ledger_url):
    run, ledger = make_run(tmp_path, ledger_url)
    gold = tmp_path / "gold.jsonl"
    record_round2(ledger, {"T1/q1": [("vera", "Y")], "T3/q2": [("vera", "N")], "T2/q3": [("vera", "N")]})
    assert annotate("mturk", "gold", "--run", run, "--from-release", write_release(tmp_path / "rel"),
                    "--out", str(gold)) == 0
    # The settled round-2 items are of this batch's triplets, so the batch leaves them out.
    assert annotate("mturk", "export", "--run", run, "--batch", "m1", "--gold", str(gold),
                    "--questions-per-hit", "4", "--practice", "0", "--qualification-pass", "1") != 0
    extra = tmp_path / "gold2.jsonl"
    extra.write_text(gold.read_text(encoding="utf-8") + "".join(json.dumps(r) + "\n" for r in gold_bank()),
                     encoding="utf-8")
    assert annotate("mturk", "export", "--run", run, "--batch", "m2", "--gold", str(extra),
                    "--questions-per-hit", "3", "--min-worker-gold", "3") == 0
    with ledger.read() as q:
        plan = q.batch("m2")["meta"]
    ledger.dispose()
    pages = round1.hit_pages_of(run, plan)
    shown_questions = [q for page in pages.values() for q in page] + [
        round1.gold_question(plan["gold"][g]) for g in plan["practice"] + plan["qualification"]]
    shown = {}
    for question in shown_questions:
        if question.kind == PARAPHRASE:
            shown.setdefault(question.paraphrase.lower(), set()).add(question.phrase.lower())
    right = scored = 0
    for hit in plan["hits"]:
        for slot, question in zip(hit["slots"], pages[hit["token"]]):
            if slot.startswith(round1.GOLD_PREFIX):
                scored += 1
                right += never_reader(question, shown) == plan["gold"][slot[len(round1.GOLD_PREFIX):]]["answer"]
    assert scored >= 3 and right < 0.8 * scored   # below --min-worker-gold-accuracy: the record fails review


def test_a_bank_too_small_for_a_batch_names_where_settled_questions_come_from_with_the_users_ledger():
    at = "--run RUN --ledger postgresql://db/pic"
    with pytest.raises(InputError) as refused:
        round1.split_gold(gold_bank()[:2], round1.Round1Settings(), "b1", at=at)
    assert (f"a pilot (`picforge annotate export verify2 {at} --verifiers V1,V2 --pilot N`), then "
            f"`picforge annotate mturk gold {at} --out GOLD.jsonl`, with `--from-release RELEASE`") in str(refused.value)


def test_an_open_pilot_is_read_in_before_round_1_is_offered(tmp_path, annotate, ledger_url, capsys):
    run, ledger = make_run(tmp_path, ledger_url)
    assert annotate("export", "verify2", "--run", run, "--verifiers", "vera,vic", "--pilot", "1") == 0
    hints = [line for line in capsys.readouterr().out.splitlines() if line.startswith("next: ")]
    steps = [" ".join(line.split()[1:5]) for line in hints]
    # The pilot's answers are the gold bank round 1 needs: reading them in comes first, and round 1 says it waits.
    assert steps.index("picforge annotate ingest verify2") < steps.index("picforge annotate mturk create")
    assert steps.count("picforge annotate ingest verify2") == 1
    assert "builds the bank from the pilot once its sheets are read in" in next(h for h in hints if "mturk create" in h)
    ledger.dispose()
