"""Ledger: natural keys make every write idempotent; a transaction is all-or-nothing."""
import pytest

from annotation import ledger as L


@pytest.fixture
def ledger(tmp_path):
    led = L.Ledger.for_run(str(tmp_path / "run"))
    yield led
    led.dispose()


def _import_round1(led, assignment_ids):
    """Write what an MTurk poll would: batch, items, assignments, answers, decisions."""
    with led.transaction() as tx:
        tx.add_batch("mturk-1", "mturk", round=L.ROUND_MTURK, meta={"reward": "0.50"})
        ids = tx.add_items("mturk-1", [("T1", "q1"), ("T1", "q2"), ("T1", "q3")])
        tx.add_hit("HIT1", "mturk-1", ids, request_token="tok-1")
        for aid in assignment_ids:
            tx.record_assignment(aid, "mturk-1", f"W-{aid}", "Submitted", hit_id="HIT1")
            tx.record_answers(aid, {f"{iid}.agree": (iid, "yes") for iid in ids})
        for iid in ids:
            tx.record_decision(iid, L.ROUND_MTURK, L.ACCEPTED, reason="2 of 3 agree", decided_by="review")


def test_default_ledger_is_sqlite_file_in_run_dir(tmp_path):
    led = L.Ledger.for_run(str(tmp_path / "run"))
    assert led.url == "sqlite:///" + str(tmp_path / "run" / "ledger.sqlite")
    assert (tmp_path / "run" / "ledger.sqlite").exists()
    led.dispose()


def test_reimport_and_overlap_change_nothing(ledger):
    _import_round1(ledger, ["A1", "A2"])
    with ledger.read() as q:
        first = q.dump(with_times=True)
    _import_round1(ledger, ["A1", "A2"])          # the same poll again
    with ledger.read() as q:
        assert q.dump(with_times=True) == first
    _import_round1(ledger, ["A2", "A3"])          # an overlapping poll: only A3 is new
    with ledger.read() as q:
        assert [a["assignment_id"] for a in q.assignments()] == ["A1", "A2", "A3"]
        assert len(q.answers()) == 9
        assert len(q.items()) == 3 and len(q.items(batch_id="mturk-1")) == 3
        assert len(q.decisions(round=L.ROUND_MTURK)) == 3


def test_status_update_and_decision_change_are_recorded(ledger):
    _import_round1(ledger, ["A1"])
    with ledger.transaction() as tx:
        assert tx.record_assignment("A1", "mturk-1", "W-A1", "Approved", hit_id="HIT1") is True
        assert tx.record_decision("T1/q1", L.ROUND_MTURK, L.ACCEPTED, "2 of 3 agree", "review") is False
        assert tx.record_decision("T1/q1", L.ROUND_MTURK, L.REJECTED, "1 of 3 agree", "review") is True
        assert tx.update_batch("mturk-1", status="reviewed", meta={"hits": 1}) is True
        assert tx.update_batch("mturk-1", status="reviewed", meta={"hits": 1}) is False
    with ledger.read() as q:
        assert q.assignments()[0]["status"] == "Approved"
        assert q.decision_map(L.ROUND_MTURK)["T1/q1"]["decision"] == L.REJECTED
        assert q.batch("mturk-1")["meta"] == {"reward": "0.50", "hits": 1}
        assert q.hit_items("HIT1") == ["T1/q1", "T1/q2", "T1/q3"]


def test_failed_transaction_leaves_ledger_unchanged(ledger):
    _import_round1(ledger, ["A1"])
    with ledger.read() as q:
        before = q.dump(with_times=True)
    with pytest.raises(RuntimeError):
        with ledger.transaction() as tx:
            tx.record_assignment("A9", "mturk-1", "W9", "Submitted")
            tx.record_answers("A9", {"T1/q1.agree": ("T1/q1", "no")})
            raise RuntimeError("crash half-way")
    with ledger.read() as q:
        assert q.dump(with_times=True) == before


def test_answers_replace_only_when_asked(ledger):
    _import_round1(ledger, ["A1"])
    with ledger.transaction() as tx:
        assert tx.record_answers("A1", {"T1/q1.agree": ("T1/q1", "no")}) == 0
        assert tx.record_answers("A1", {"T1/q1.agree": ("T1/q1", "no")}, replace=True) == 1
    with ledger.read() as q:
        assert {a["field"]: a["value"] for a in q.answers("A1")}["T1/q1.agree"] == "no"


def test_item_ids_and_kinds():
    assert L.item_id("T7", "q3") == "T7/q3"
    with pytest.raises(ValueError, match="unknown item kind"):
        L.item_id("T7", "q4")
