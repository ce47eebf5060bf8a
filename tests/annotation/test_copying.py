"""Copying between workers (issue 42 item 5): a worker who copies another's answers, errors included, is reported for
review by `mturk review` and `annotate report`; careful workers who agree on the truth are not."""
import csv

from annotation.mturk import copying, round1
from tests.reliability.test_worker_quality import exported_inputs, write_results

from mturk_support import gold_bank, make_run, write_gold


def test_the_rule_reports_shared_errors_beyond_what_accuracy_explains():
    reference = {f"q{n}": True for n in range(12)}
    careful = {k: True for k in reference}
    slipping = {**careful, "q3": False, "q7": False}                    # 2 slips in 12
    other_slips = {**careful, "q1": False, "q9": False}                 # 2 slips elsewhere
    found = copying.copy_suspects({"A": careful, "B": dict(careful), "S": slipping, "C": dict(slipping),
                                   "O": other_slips}, reference)
    assert [s.workers for s in found] == [("C", "S")]                   # the careful pair agrees on the truth only
    assert (found[0].shared, found[0].agreed, found[0].same_errors) == (12, 12, 2)
    few = {k: v for k, v in list(slipping.items())[:copying.MIN_SHARED - 1]}
    assert not copying.copy_suspects({"S": few, "C": dict(few)}, reference)   # too few shared questions to judge


def test_review_and_report_name_a_copier(tmp_path, annotate, ledger_url, capsys):
    run, ledger = make_run(tmp_path, ledger_url)
    gold = write_gold(tmp_path / "gold.jsonl")
    assert annotate("mturk", "export", "--run", run, "--batch", "m1", "--gold", gold, "--questions-per-hit", "4",
                    "--assignments", "2", "--min-worker-gold", "3") == 0
    with ledger.read() as q:
        plan = q.batch("m1")["meta"]
    bank = {g["gold_id"]: g["answer"] for g in gold_bank()}
    inputs = exported_inputs(run, "m1")
    slips = {slot for hit in plan["hits"] for slot in hit["slots"] if slot.endswith("/q1")}   # 3 slips of 9 items
    rows = []
    for n, hit in enumerate(plan["hits"]):
        answers = {}
        for number, slot in enumerate(hit["slots"], start=1):
            if slot.startswith(round1.GOLD_PREFIX):
                yes = bank[slot[len(round1.GOLD_PREFIX):]]
            else:
                yes = not slot.endswith("/q3") and slot not in slips       # the experts said Q3 = N
            answers[f"Answer.answer_{number}"] = "yes" if yes else "no"
        for worker in ("WSLIP", "WCOPY"):                                   # the copier hands in the same answers
            rows.append({"HITId": f"3MAN{n}", "HITTypeId": "TYPE", "AssignmentId": f"A{n}{worker}", "WorkerId": worker,
                         "AssignmentStatus": "Submitted", "SubmitTime": "Fri May 01 10:09:00 PDT 2026",
                         **inputs[hit["token"]], "Answer.comments": "", **answers})
    results = tmp_path / "Batch_1_batch_results.csv"
    write_results(results, rows)
    assert annotate("mturk", "ingest", "--run", run, "--results", str(results)) == 0
    capsys.readouterr()
    assert annotate("mturk", "review", "--run", run, "--batch", "m1", "--out", str(tmp_path / "review.csv")) == 0
    out = capsys.readouterr().out
    assert "copying? workers WCOPY and WSLIP agree on 12 of 12 shared questions" in out
    assert "3 of them the same answer against the known or expert answer" in out
    with ledger.transaction() as tx:   # make_run's expert batches, named as `export expert` names them
        for batch in tx.batches(kind="expert"):
            tx.update_batch(batch["batch_id"], meta={"annotator": batch["batch_id"].split("-")[1]})
    assert annotate("report", "--run", run) == 0
    report = capsys.readouterr().out
    assert "Copying reported for review" in report and "workers WCOPY and WSLIP" in report
    with open(tmp_path / "review.csv", encoding="utf-8", newline="") as fh:
        assert {r["WorkerId"] for r in csv.DictReader(fh)} == {"WSLIP", "WCOPY"}
    ledger.dispose()
