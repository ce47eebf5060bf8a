"""Worker quality that can't be gamed, on the real 103-page sample's triplets: simulated careful, all-yes, all-no and
random workers answer a requester-UI batch drawn from the shipped gold bank; review rejects and blocks the three
spammers, approves the careful worker, and the report says so before and after the review file is uploaded."""
import csv
import json
import os
import random
import shutil

import pytest

from annotation.mturk import round1
from picforge.ledger import ACCEPTED, ROUND_EXPERT, Ledger
from picforge.rundir import RunDir
from tests.cli_helpers import ROOT, picforge_in_child

pytestmark = pytest.mark.slow
GOLD = os.path.join(ROOT, "examples", "mturk-gold.jsonl")


def expert_annotated(mined_103, root):
    """A copy of the mined run whose ledger holds an accepted expert annotation of every selected triplet but those
    the shipped gold bank holds (the walkthrough's pilot settled them; round 1 never asks them) ({triplet_id:
    same_meaning}, alternating Y and N)."""
    run = root / "run"
    shutil.copytree(mined_103, run)
    ledger = Ledger.for_run(str(run))
    truths, settled = {}, {g["triplet_id"] for g in map(json.loads, open(GOLD, encoding="utf-8"))}
    with ledger.transaction() as tx:
        tx.add_batch("expert-ann-001", "expert", round=ROUND_EXPERT, meta={"annotator": "ann"})
        to_ask = [t for t in RunDir(str(run)).iter_records("select") if t["triplet_id"] not in settled]
        for n, triplet in enumerate(to_ask):
            truths[triplet["triplet_id"]] = same = n % 2 == 0
            [iid] = tx.add_items("expert-ann-001", [(triplet["triplet_id"], "triplet")])
            tx.record_expert_annotation({"triplet_id": triplet["triplet_id"], "annotator": "ann", "same_meaning": same,
                                         "q1": f"the {triplet['phrase']} here", "q2": f"that {triplet['phrase']}"},
                                        "expert-ann-001", triplet["phrase"])
            tx.record_decision(iid, ROUND_EXPERT, ACCEPTED, decided_by="ann")
    ledger.dispose()
    return run, truths


def exported_inputs(run, batch):
    """{row_key: Input.* cells} of the batch input CSV `mturk export` wrote (a results row echoes its HIT's row)."""
    with open(os.path.join(run, "mturk", batch, f"{batch}_input.csv"), encoding="utf-8", newline="") as fh:
        return {row["row_key"]: {f"Input.{k}": v for k, v in row.items()} for row in csv.DictReader(fh)}


def results_rows(plan, truths, worker, answer, inputs):
    """The requester site's results rows of `worker` for every HIT (echoing `inputs`, `exported_inputs`), each
    question answered by answer(truth)."""
    gold = {g["gold_id"]: g["answer"] for g in map(json.loads, open(GOLD, encoding="utf-8"))}
    rows = []
    for n, hit in enumerate(plan["hits"]):
        row = {"HITId": f"3SIMHIT{n:023d}", "HITTypeId": "3SIMTYPE", "AssignmentId": f"3{worker.upper()}{n:020d}",
               "WorkerId": worker, "AssignmentStatus": "Submitted", "SubmitTime": f"Fri May 01 10:{n:02d}:00 PDT 2026",
               **inputs[hit["token"]], "Answer.comments": ""}
        for slot_no, slot in enumerate(hit["slots"], start=1):
            if slot.startswith(round1.GOLD_PREFIX):
                truth = gold[slot[len(round1.GOLD_PREFIX):]]
            else:
                triplet_id, kind = slot.rsplit("/", 1)
                truth = truths[triplet_id] if kind == "q3" else True  # the paraphrases are right
            row[f"Answer.answer_{slot_no}"] = "yes" if answer(truth) else "no"
        rows.append(row)
    return rows


def write_results(path, rows):
    header = sorted({key for row in rows for key in row})
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)


def test_review_rejects_and_blocks_spammers_and_the_report_counts_the_verdicts(mined_103, tmp_path):
    run, truths = expert_annotated(mined_103, tmp_path)
    code, _, err = picforge_in_child("annotate", "mturk", "export", "--run", run, "--batch", "sim", "--gold", GOLD,
                            "--questions-per-hit", "10", "--assignments", "4")
    assert code == 0, err
    ledger = Ledger.for_run(str(run))
    with ledger.read() as q:
        plan = q.batch("sim")["meta"]
    ledger.dispose()
    gold = {g["gold_id"]: g["answer"] for g in map(json.loads, open(GOLD, encoding="utf-8"))}
    checks = [gold[s[len(round1.GOLD_PREFIX):]] for hit in plan["hits"] for s in hit["slots"]
              if s.startswith(round1.GOLD_PREFIX)]
    assert len(plan["hits"]) >= 10 and 0.4 <= sum(checks) / len(checks) <= 0.6  # balanced checks

    coin = random.Random(11)
    workers = {"careful": lambda truth: truth, "allyes": lambda truth: True, "allno": lambda truth: False,
               "random": lambda truth: coin.random() < 0.5}
    results = tmp_path / "Batch_1_batch_results.csv"
    inputs = exported_inputs(str(run), "sim")
    write_results(results, [row for name, answer in workers.items()
                            for row in results_rows(plan, truths, name, answer, inputs)])
    assert picforge_in_child("annotate", "mturk", "ingest", "--run", run, "--results", results)[0] == 0

    upload = tmp_path / "review.csv"
    code, out, err = picforge_in_child("annotate", "mturk", "review", "--run", run, "--batch", "sim", "--out", upload,
                                       "--block")
    assert code == 0, err
    hits = len(plan["hits"])
    assert f"wrote {upload}: {hits} to approve, {3 * hits} to reject" in out
    for spammer in ("allno", "allyes", "random"):
        assert f"block {spammer}: aws mturk create-worker-block --region us-east-1 --worker-id {spammer} --reason" in out
    assert "block careful" not in out
    assert picforge_in_child("annotate", "mturk", "review", "--run", run, "--batch", "sim", "--out", upload,
                    "--block")[1].count("no worker to block") == 1  # blocked once

    def worker_rows():
        code, report, err = picforge_in_child("annotate", "report", "--run", run)
        assert code == 0, err
        return {line.split(" | ")[0].strip("| "): line for line in report.splitlines()
                if line.startswith(("| careful", "| allyes", "| allno", "| random"))}

    expected = {"careful": f"| careful | mturk | {hits} | {hits} | 0 | ",
                **{s: f"| {s} | mturk | {hits} | 0 | {hits} | " for s in ("allyes", "allno", "random")}}
    rows = worker_rows()
    for worker, start in expected.items():
        assert rows[worker].startswith(start), rows[worker]
        assert rows[worker].endswith("| yes |") == (worker != "careful")

    # The requester site applied the file: its next download says Approved/Rejected; the report stays the same.
    reviewed = {r["AssignmentId"]: "Approved" if r["Approve"] == "x" else "Rejected"
                for r in csv.DictReader(open(upload, encoding="utf-8-sig"))}
    redownload = tmp_path / "Batch_1_batch_results (1).csv"
    write_results(redownload, [dict(row, AssignmentStatus=reviewed[row["AssignmentId"]])
                               for row in csv.DictReader(open(results, encoding="utf-8"))])
    assert picforge_in_child("annotate", "mturk", "ingest", "--run", run, "--results", redownload)[0] == 0
    assert worker_rows() == rows
