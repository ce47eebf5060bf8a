"""Work handed back and steps re-run: reassigning an expert's blank or unfixed rows, cancelling a batch
nobody worked on, a blank sheet ingested, and the final stage's fingerprint of a copied run."""
import shutil

from picforge.ledger import ACCEPTED, CANCELLED, ROUND_EXPERT, ROUND_MTURK
from picforge.rundir import RunDir
from tests.annotation.conftest import read_csv, write_csv
from tests.annotation.test_expert import export, filled

ALICE = "expert-alice-001"


def ingest(annotate, run_dir, *sheets):
    return annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", *sheets)


def test_blank_and_unfixed_rows_are_reassigned_to_someone_else(annotate, run_dir, ledger, tmp_path, capsys):
    out = export(annotate, run_dir)      # alice: 00001-00003, bob: 00004-00006
    first = write_csv(tmp_path / "alice.csv", filled(f"{out}/{ALICE}.csv", **{
        "00002": ("", "", ""),                                  # left blank, as the guidelines allow
        "00003": ("", "sudden change", "N")}))                  # rejected: Q1 empty, never fixed
    assert ingest(annotate, run_dir, first) == 0
    capsys.readouterr()

    assert annotate("reassign", "--run", run_dir, "--batch", ALICE, "--rows", "00001") == 2
    assert "--rows 00001: its row in batch 'expert-alice-001' was accepted" in capsys.readouterr().err
    assert annotate("reassign", "--run", run_dir, "--batch", ALICE) == 0
    assert "2 row(s) released for another annotator: 00002, 00003" in capsys.readouterr().out
    with ledger.read() as q:
        once = q.dump(with_times=True)
        assert [(r["item_id"], r["reason"]) for r in q.releases(ALICE)] == [
            ("00002/triplet", "reassigned (left blank)"),
            ("00003/triplet", "reassigned (not fixed: Q1 is empty; write a paraphrase of the phrase)")]
    assert annotate("reassign", "--run", run_dir, "--batch", ALICE) == 0      # again: nothing changes
    assert "no blank or unfixed row left to release; nothing to do" in capsys.readouterr().out
    with ledger.read() as q:
        assert q.dump(with_times=True) == once

    # The next export hands both rows to carol, never back to alice.
    export(annotate, run_dir, names="alice,carol", per=3)
    assert [r["triplet_id"] for r in read_csv(f"{out}/expert-carol-001.csv")] == ["00002", "00003"]
    with ledger.read() as q:
        assert [b["batch_id"] for b in q.batches(kind="expert")] == [ALICE, "expert-bob-001", "expert-carol-001"]

    # alice's late correction of a released row is skipped; carol's answers are the ones recorded.
    late = write_csv(tmp_path / "alice-late.csv", filled(f"{out}/{ALICE}.csv"))
    carol = write_csv(tmp_path / "carol.csv", filled(f"{out}/expert-carol-001.csv"))
    capsys.readouterr()
    assert ingest(annotate, run_dir, late, carol) == 0
    printed = capsys.readouterr().out
    assert "alice: 3 rows, 1 accepted, 0 to fix, 0 with checks, 0 blank, 2 reassigned to someone else" in printed
    assert "carol: 2 rows, 2 accepted" in printed
    with ledger.read() as q:
        annotations = {a["triplet_id"]: (a["annotator"], a["q1"]) for a in q.expert_annotations()}
    assert annotations == {"00001": ("alice", "unenthusiastic response"), "00002": ("carol", "huge number"),
                           "00003": ("carol", "abrupt bend")}
    # The report credits each row to the expert whose answer stands: alice's reassigned rows are carol's.
    assert annotate("report", "--run", run_dir) == 0
    report = capsys.readouterr().out
    assert "| alice | expert | 1 | 0 | 0 | 6 | 1 | 0 |  |" in report
    assert "| carol | expert | 1 | 0 | 0 | 6 | 2 | 0 |  |" in report


def test_reassign_takes_only_expert_batches(annotate, run_dir, ledger, capsys):
    with ledger.transaction() as tx:
        tx.add_batch("m1", "mturk-manual", round=ROUND_MTURK)
    assert annotate("reassign", "--run", run_dir, "--batch", "m1") == 2
    assert "batch 'm1' is a mturk-manual batch; reassign takes rows of expert and second-round batches" in capsys.readouterr().err
    assert annotate("reassign", "--run", run_dir, "--batch", "nope") == 2
    assert "no batch 'nope' in the ledger" in capsys.readouterr().err


def test_an_expert_batch_never_returned_is_cancelled_and_its_sheet_refused(annotate, run_dir, ledger, tmp_path,
                                                                          capsys):
    out = export(annotate, run_dir)
    bob = write_csv(tmp_path / "bob.csv", filled(f"{out}/expert-bob-001.csv"))
    assert ingest(annotate, run_dir, bob) == 0
    capsys.readouterr()
    assert annotate("cancel-batch", "--run", run_dir, "--batch", "expert-bob-001") == 2
    assert "has 1 assignment(s) or returned sheet(s) recorded, so it cannot be cancelled" in capsys.readouterr().err

    assert annotate("cancel-batch", "--run", run_dir, "--batch", ALICE) == 0
    assert f"batch {ALICE}: cancelled; 3 item(s) released" in capsys.readouterr().out
    assert annotate("cancel-batch", "--run", run_dir, "--batch", ALICE) == 0
    assert "already cancelled; nothing to do" in capsys.readouterr().out
    with ledger.read() as q:
        assert q.batch(ALICE)["status"] == CANCELLED and len(q.releases(ALICE)) == 3
    late = write_csv(tmp_path / "alice.csv", filled(f"{out}/{ALICE}.csv"))
    assert ingest(annotate, run_dir, late) == 2
    assert f"alice.csv: row 2, column batch_id: batch {ALICE} was cancelled" in capsys.readouterr().err
    export(annotate, run_dir, names="dan", per=5)
    assert [r["triplet_id"] for r in read_csv(f"{out}/expert-dan-001.csv")] == ["00001", "00002", "00003"]


def test_a_blank_sheet_leaves_the_fixlist_as_it_was(annotate, run_dir, tmp_path, capsys):
    out = export(annotate, run_dir)
    sheet = write_csv(tmp_path / "alice.csv", filled(f"{out}/{ALICE}.csv", **{"00003": ("", "sudden change", "N")}))
    assert ingest(annotate, run_dir, sheet) == 0
    fixlist = f"{out}/fixlists/fixes-alice.csv"
    before = read_csv(fixlist)
    assert [(f["triplet_id"], f["column"]) for f in before] == [("00003", "Q1")]
    capsys.readouterr()
    assert ingest(annotate, run_dir, f"{out}/{ALICE}.csv") == 0          # the exported sheet, still blank
    assert "alice: no answered row: nothing recorded, fix-list left as it was" in capsys.readouterr().out
    assert read_csv(fixlist) == before


def _accept_round1(ledger):
    """Round-1 acceptance of every item of the accepted expert annotations (as `mturk review` records it)."""
    with ledger.transaction() as tx:
        tx.add_batch("mturk-1", "mturk", round=ROUND_MTURK)
        triplets = [d["triplet_id"] for d in tx.decisions(round=ROUND_EXPERT, decision=ACCEPTED)]
        for iid in tx.add_items("mturk-1", [(t, k) for t in triplets for k in ("q1", "q2", "q3")]):
            tx.record_decision(iid, ROUND_MTURK, ACCEPTED, decided_by="review")


def test_final_stage_fingerprints_the_ledger_content_not_its_path(annotate, run_dir, ledger, ledger_url, tmp_path,
                                                                  capsys):
    out = export(annotate, run_dir)
    assert ingest(annotate, run_dir, write_csv(tmp_path / "a.csv", filled(f"{out}/{ALICE}.csv"))) == 0
    _accept_round1(ledger)
    assert annotate("export", "final", "--run", run_dir) == 0
    original = RunDir(run_dir).read_manifest("final_annotations")
    assert original["records"] == 3
    copy = str(tmp_path / "copied-run")
    shutil.copytree(run_dir, copy)              # the SQLite ledger travels with it; PostgreSQL stays shared
    capsys.readouterr()
    assert annotate("export", "final", "--run", copy) == 0
    assert "3 records up to date" in capsys.readouterr().out
    assert RunDir(copy).read_manifest("final_annotations")["fingerprint"] == original["fingerprint"]
    # One more accepted annotation changes the ledger's content, so the stage is written again.
    assert ingest(annotate, run_dir, write_csv(tmp_path / "b.csv", filled(f"{out}/expert-bob-001.csv"))) == 0
    _accept_round1(ledger)
    assert annotate("export", "final", "--run", run_dir) == 0
    assert "6 records written" in capsys.readouterr().out
