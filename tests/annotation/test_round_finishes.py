"""A round that always finishes (issue 42, items 1-4, 6): plans that can judge, held work with an end, nothing
stranded, decisions that stand, results files checked as a whole; through the CLI on a real ledger."""
import csv
import json

from annotation import ledger as L
from annotation import mturk_rehearsal, round1
from annotation.ledger import Ledger
from picforge.rundir import RunDir

from mturk_support import TRIPLETS

COPIES = 24   # 72 annotations: 216 questions, 9 HITs of 30 at the default settings (PiC's page)


def big_run(root, copies=COPIES):
    """A run whose `select` stage holds `copies` renamed copies of mturk_support's three triplets, each accepted by an
    expert who answered "different meaning" (q3 = N)."""
    run_dir = str(root / "run")
    records = []
    for n in range(copies):
        for record in TRIPLETS:
            records.append({**record, "triplet_id": f"{record['triplet_id']}c{n:02d}"})
    RunDir(run_dir).write_stage("select", records, "triplet", inputs={}, options={})
    ledger = Ledger.for_run(run_dir)
    with ledger.transaction() as tx:
        tx.add_batch("expert-ann-001", "expert", round=L.ROUND_EXPERT, meta={"annotator": "ann"})
        for record in records:
            [iid] = tx.add_items("expert-ann-001", [(record["triplet_id"], "triplet")])
            tx.record_expert_annotation({"triplet_id": record["triplet_id"], "annotator": "ann", "q1": "huge thing",
                                         "q2": "other thing", "same_meaning": False}, "expert-ann-001",
                                        record["phrase"])
            tx.record_decision(iid, L.ROUND_EXPERT, L.ACCEPTED, decided_by="ann")
    ledger.dispose()
    return run_dir


def big_gold(path, count=40):
    """A bank of `count` verified questions (both kinds, both answers) on the run's own passages, none of them a
    question of the run (other paraphrases; the two passages in the other order)."""
    bank = []
    for n in range(count):
        record = TRIPLETS[n % len(TRIPLETS)]
        first, second = record["page1"]["passage"], record["page2"]["passage"]
        if n % 2:
            bank.append({"gold_id": f"g{n:03d}", "kind": "paraphrase", "phrase": record["phrase"],
                         "passage1": first if n % 3 else second, "paraphrase": f"version {n}", "answer": n % 4 == 1})
        else:
            bank.append({"gold_id": f"g{n:03d}", "kind": "same_meaning", "phrase": record["phrase"],
                         "passage1": second, "passage2": first, "answer": n % 4 == 2})
    path.write_text("".join(json.dumps(r) + "\n" for r in bank), encoding="utf-8")
    return str(path), {r["gold_id"]: r["answer"] for r in bank}


def plan_of(run_dir, batch):
    ledger = Ledger.for_run(run_dir)
    try:
        with ledger.read() as q:
            return q.batch(batch)["meta"]
    finally:
        ledger.dispose()


def honest(slot, gold):
    """An honest worker's answer: the gold's known answer, yes to the experts' paraphrases, no to q3 (as they said)."""
    if slot.startswith(round1.GOLD_PREFIX):
        return gold[slot[len(round1.GOLD_PREFIX):]]
    return not slot.endswith("/q3")


def all_yes(slot, gold):
    return True


def results_file(path, run_dir, batch, work, gold, status="Submitted"):
    """The requester site's results download for `work` = [(hit number, worker, answer function)], built from the
    batch's rehearsal file (every Input.* column echoed as exported)."""
    plan = plan_of(run_dir, batch)
    columns, blank = mturk_rehearsal.results_rows(run_dir, batch, plan)
    per_hit = len(blank) // len(plan["hits"])
    rows = []
    for number, worker, answer in work:
        row = dict(blank[number * per_hit])
        row.update({"HITId": f"3{batch.upper()}HIT{number:03d}", "AssignmentId": f"3{batch.upper()}{worker}{number:03d}",
                    "WorkerId": worker, "AssignmentStatus": status,
                    "SubmitTime": f"Fri May 01 10:{number:02d}:00 PDT 2026",
                    "AutoApprovalTime": "Mon May 04 10:00:00 PDT 2026"})
        for slot_no, slot in enumerate(plan["hits"][number]["slots"], start=1):
            row[f"Answer.answer_{slot_no}"] = "yes" if answer(slot, gold) else "no"
        rows.append(row)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


# -- 1. plans that can judge ---------------------------------------------------------------------------------------

def test_default_plan_judges_two_honest_workers_on_a_nine_hit_batch(tmp_path, capsys):
    import picforge.cli
    run_dir = big_run(tmp_path)
    gold_path, gold = big_gold(tmp_path / "gold.jsonl")
    assert picforge.cli.main(["annotate", "mturk", "export", "--run", run_dir, "--batch", "b1", "--gold",
                              gold_path]) == 0
    out = capsys.readouterr().out
    plan = plan_of(run_dir, "b1")
    hits = len(plan["hits"])
    assert hits == 9 and plan["settings"]["gold_per_hit"] == 4
    assert (f"judging: a worker is judged after 4 distinct gold checks, i.e. 1 HIT(s) at 4 per HIT (their record "
            f"spans every batch of the run); these 9 HIT(s) x 1 assignment(s) can judge up to 9 worker(s)") in out
    assert out.index("judging:") < out.index("wrote ")
    work = [(n, "HONEST1" if n < 5 else "HONEST2", honest) for n in range(hits)]
    results = results_file(tmp_path / "Batch_1_batch_results.csv", run_dir, "b1", work, gold)
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, results]) == 0
    assert picforge.cli.main(["annotate", "mturk", "review", "--run", run_dir, "--batch", "b1", "--out",
                              str(tmp_path / "review.csv")]) == 0
    out = capsys.readouterr().out
    assert f"{hits} to approve, 0 to reject, 0 held" in out
    assert f"round 1: {len(plan['items'])} item(s) accepted, 0 rejected (go to round 2), 0 waiting" in out


def test_a_plan_that_can_judge_nobody_is_refused_before_anything_is_written(tmp_path, capsys):
    import picforge.cli
    run_dir = big_run(tmp_path, copies=1)        # 9 questions
    gold_path, _ = big_gold(tmp_path / "gold.jsonl")
    export = ["annotate", "mturk", "export", "--run", run_dir, "--batch", "b1", "--gold", gold_path,
              "--questions-per-hit", "4", "--gold-per-hit", "1", "--min-worker-gold", "4"]
    assert picforge.cli.main(export) == 2
    err = capsys.readouterr().err
    assert ("judged after 4 distinct gold checks, i.e. 4 HIT(s) at 1 per HIT" in err and "these 3 HIT(s) x 1 "
            "assignment(s) can judge up to 0 worker(s): nobody could be judged" in err)
    assert "use --gold-per-hit 2 or --min-worker-gold 3 or --questions-per-hit 3" in err
    assert plan_of_missing(run_dir, "b1") and not (tmp_path / "run" / "mturk").exists()
    assert picforge.cli.main(export[:-4] + ["--gold-per-hit", "2", "--min-worker-gold", "4"]) == 0
    assert "can judge up to 2 worker(s)" in capsys.readouterr().out


def plan_of_missing(run_dir, batch):
    ledger = Ledger.for_run(run_dir)
    try:
        with ledger.read() as q:
            return q.batch(batch) is None
    finally:
        ledger.dispose()


def test_a_worker_held_in_one_batch_is_judged_once_their_run_wide_record_suffices(tmp_path, capsys):
    import picforge.cli
    run_dir = big_run(tmp_path, copies=2)        # 18 questions
    gold_path, gold = big_gold(tmp_path / "gold.jsonl")
    export = ["annotate", "mturk", "export", "--run", run_dir, "--gold", gold_path, "--questions-per-hit", "4",
              "--gold-per-hit", "1", "--min-worker-gold", "3", "--limit", "3"]
    assert picforge.cli.main(export + ["--batch", "b1"]) == 0
    assert picforge.cli.main(export + ["--batch", "b2"]) == 0
    first = results_file(tmp_path / "Batch_1_batch_results.csv", run_dir, "b1", [(0, "W1", honest)], gold)
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, first]) == 0
    review = ["annotate", "mturk", "review", "--run", run_dir, "--out", str(tmp_path / "review.csv")]
    assert picforge.cli.main(review + ["--batch", "b1"]) == 0
    assert "0 to approve, 0 to reject, 1 held" in capsys.readouterr().out
    second = results_file(tmp_path / "Batch_2_batch_results.csv", run_dir, "b2", [(0, "W1", honest), (1, "W1", honest)],
                          gold)
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, second]) == 0
    assert picforge.cli.main(review + ["--batch", "b1"]) == 0
    assert "1 to approve, 0 to reject, 0 held" in capsys.readouterr().out


# -- 4. decided is decided -----------------------------------------------------------------------------------------

def dissenter(slot, gold):
    """Right on every check, against the experts on every real question."""
    return honest(slot, gold) if slot.startswith(round1.GOLD_PREFIX) else not honest(slot, gold)


def small_batch(tmp_path, *options):
    import picforge.cli
    run_dir = big_run(tmp_path, copies=1)        # 9 questions: 3 HITs of 3 questions and 1 check
    gold_path, gold = big_gold(tmp_path / "gold.jsonl")
    assert picforge.cli.main(["annotate", "mturk", "export", "--run", run_dir, "--batch", "b1", "--gold", gold_path,
                              "--questions-per-hit", "4", "--gold-per-hit", "1", "--min-worker-gold", "3",
                              *options]) == 0
    return run_dir, gold


def decisions(run_dir):
    ledger = Ledger.for_run(run_dir)
    try:
        with ledger.read() as q:
            return q.decision_map(L.ROUND_MTURK)
    finally:
        ledger.dispose()


def test_a_hit_takes_no_more_than_its_max_assignments(tmp_path, capsys):
    import picforge.cli
    run_dir, gold = small_batch(tmp_path)
    results = results_file(tmp_path / "Batch_1_batch_results.csv", run_dir, "b1",
                           [(n, "W1", honest) for n in range(3)] + [(1, "W2", honest)], gold)
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, results]) == 2
    assert (f"{results}: row 5, column AssignmentId: HIT 3B1HIT001 already has its 1 assignment(s) (3B1W1001), its "
            "MaxAssignments") in capsys.readouterr().err
    ledger = Ledger.for_run(run_dir)
    with ledger.read() as q:
        assert q.assignments() == []     # the file is one transaction: nothing of it is kept
    ledger.dispose()


def test_a_late_assignment_is_recorded_but_changes_no_decision_unless_redecided(tmp_path, capsys):
    import getpass

    import picforge.cli
    run_dir, gold = small_batch(tmp_path, "--assignments", "2")
    review = ["annotate", "mturk", "review", "--run", run_dir, "--batch", "b1", "--out", str(tmp_path / "r.csv")]
    first = results_file(tmp_path / "Batch_1_batch_results.csv", run_dir, "b1", [(n, "W1", honest) for n in range(3)],
                         gold)
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, first]) == 0
    assert picforge.cli.main(review + ["--final"]) == 0   # after expire: decided on one assignment a HIT
    assert "round 1: 9 item(s) accepted, 0 rejected" in capsys.readouterr().out
    before = decisions(run_dir)
    late = results_file(tmp_path / "Batch_1_later.csv", run_dir, "b1", [(n, "W2", dissenter) for n in range(3)], gold)
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, late]) == 0
    for _ in range(2):   # re-running changes nothing
        assert picforge.cli.main(review) == 0
        out = capsys.readouterr().out
        assert "round 1: 9 item(s) accepted, 0 rejected" in out
        assert "3 late assignment(s) arrived after their items were decided: recorded, but they change no decision" in out
        assert decisions(run_dir) == before
    assert picforge.cli.main(review + ["--redecide"]) == 0
    assert "round 1: 0 item(s) accepted, 9 rejected" in capsys.readouterr().out
    after = decisions(run_dir)
    assert {d["decision"] for d in after.values()} == {L.REJECTED}
    redecided = [d["detail"]["redecided"] for d in after.values()]
    assert {(r["by"], r["previous"]) for r in redecided} == {(getpass.getuser(), L.ACCEPTED)}
    assert all(r["at"] for r in redecided)
    assert picforge.cli.main(review) == 0
    assert "late assignment" not in capsys.readouterr().out and decisions(run_dir) == after
