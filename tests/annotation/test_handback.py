"""Work handed back and steps re-run: cancelling a batch nobody worked on, and the final stage's
fingerprint of a copied run."""
import shutil

from annotation.ledger import ACCEPTED, CANCELLED, ROUND_EXPERT, ROUND_MTURK
from pipeline.rundir import RunDir
from tests.annotation.conftest import read_csv, write_csv
from tests.annotation.test_expert import export, filled

ALICE = "expert-alice-001"


def ingest(annotate, run_dir, *sheets):
    return annotate("ingest", "expert", "--run", run_dir, "--no-grammar", *sheets)


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
