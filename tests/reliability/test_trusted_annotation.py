"""Issue 37, classes 6-8, through `picforge` as a subprocess on runs of the real 103-page sample: gold questions no
worker can tell apart, reviewed history that no later file rewrites, and sheet text kept exactly as typed."""
import csv
import json
import random
import re

import pytest

from annotation.mturk import round1
from annotation.mturk.gold import length_separation, question_words
from picforge.ledger import Ledger
from tests.cli_helpers import picforge_in_child
from tests.reliability.test_bounds_and_exits import exported_expert_sheet
from tests.reliability.test_worker_quality import expert_annotated, exported_inputs, write_results

pytestmark = pytest.mark.slow


def _plan(run, batch):
    ledger = Ledger.for_run(str(run))
    try:
        with ledger.read() as q:
            return q.batch(batch)["meta"]
    finally:
        ledger.dispose()


def _one_sentence(record):
    """A gold record cut to the sentence holding its phrase: the shape of the bank picforge used to ship."""
    def sentence(passage):
        return next(s for s in re.split(r"(?<=[.!?])\s+", passage) if record["phrase"].lower() in s.lower())
    short = dict(record, passage1=sentence(record["passage1"]))
    if record.get("passage2"):
        short["passage2"] = sentence(record["passage2"])
    return short


def _answers(plan, gold, truths, hit, answer):
    """Answer fields of one HIT: each question answered by answer(truth)."""
    fields = {}
    for slot_no, slot in enumerate(hit["slots"], start=1):
        if slot.startswith(round1.GOLD_PREFIX):
            truth = gold[slot[len(round1.GOLD_PREFIX):]]
        else:
            triplet_id, kind = slot.rsplit("/", 1)
            truth = truths[triplet_id] if kind == "q3" else True
        fields[f"Answer.answer_{slot_no}"] = "yes" if answer(truth) else "no"
    return fields


def test_gold_built_from_the_run_blends_in_and_random_workers_are_never_approved(mined_103, release_103, tmp_path):
    run, truths = expert_annotated(mined_103, tmp_path)
    bank = tmp_path / "gold.jsonl"   # settled answers: a previous run's release (its batches take other triplets)
    code, out, err = picforge_in_child("annotate", "mturk", "gold", "--run", run, "--from-release", release_103,
                                       "--out", bank)
    assert code == 0, err
    records = [json.loads(line) for line in bank.read_text(encoding="utf-8").splitlines()]
    assert {r["answer"] for r in records} == {True, False} and f"{len(records)} gold questions" in out

    # A bank of one-sentence passages (what examples/ held before) is refused, naming the separation.
    short = tmp_path / "short.jsonl"
    short.write_text("".join(json.dumps(_one_sentence(r)) + "\n" for r in records), encoding="utf-8")
    code, _, err = picforge_in_child("annotate", "mturk", "export", "--run", run, "--batch", "short", "--gold", short,
                                     "--questions-per-hit", "10", "--limit", "20")
    assert code == 2 and "balanced accuracy 1.00" in err, err
    ledger = Ledger.for_run(str(run))
    with ledger.read() as q:
        assert q.batch("short") is None
    ledger.dispose()

    code, _, err = picforge_in_child("annotate", "mturk", "export", "--run", run, "--batch", "sim", "--gold", bank,
                                     "--questions-per-hit", "10", "--assignments", "3", "--limit", "20")
    assert code == 0, err
    plan = _plan(run, "sim")
    pages = round1.hit_pages_of(str(run), plan)
    real = [question_words(q) for hit in plan["hits"] for slot, q in zip(hit["slots"], pages[hit["token"]])
            if not slot.startswith(round1.GOLD_PREFIX)]
    shown = [question_words(round1.gold_question(g)) for g in plan["gold"].values()]
    assert length_separation(shown, real) <= 0.65

    # One random worker per HIT, each doing 2 HITs (one gold check a HIT); a careful worker does every HIT.
    gold = {g["gold_id"]: g["answer"] for g in records}
    hits, coin, rows, inputs = plan["hits"], random.Random(7), [], exported_inputs(str(run), "sim")
    doing = {f"rand{w:02d}": [hits[(2 * w) % len(hits)], hits[(2 * w + 1) % len(hits)]] for w in range(len(hits))}
    doing["careful"] = hits
    for worker, done in doing.items():
        answer = (lambda truth: truth) if worker == "careful" else (lambda truth: coin.random() < 0.5)
        for n, hit in enumerate(done):
            rows.append({"HITId": f"3H{hits.index(hit):024d}", "AssignmentId": f"3{worker.upper()}{n:018d}",
                         "WorkerId": worker, "AssignmentStatus": "Submitted", "HITTypeId": "3SIMTYPE",
                         "SubmitTime": f"Fri May 01 10:{n:02d}:00 PDT 2026", **inputs[hit["token"]],
                         "AutoApprovalTime": "Mon May 04 10:00:00 PDT 2099",   # far off: held work stays held
                         "Answer.comments": "", **_answers(plan, gold, truths, hit, answer)})
    results = tmp_path / "Batch_1_batch_results.csv"
    write_results(results, rows)
    code, _, err = picforge_in_child("annotate", "mturk", "ingest", "--run", run, "--results", results)
    assert code == 0, err
    upload = tmp_path / "review.csv"
    code, out, err = picforge_in_child("annotate", "mturk", "review", "--run", run, "--batch", "sim", "--out", upload)
    assert code == 0, err
    reviewed = list(csv.DictReader(open(upload, encoding="utf-8-sig")))
    approved = {r["WorkerId"] for r in reviewed if r["Approve"] == "x"}
    assert approved == {"careful"}, approved  # no random worker is approved: held (too little gold) or rejected
    held = sum(1 for r in rows if r["WorkerId"] != "careful") - sum(r["WorkerId"] != "careful" for r in reviewed)
    assert held > 0 and f"{held} held" in out

    # Class 7: the results re-downloaded with two workers' ids swapped are refused, naming both rows.
    trace_before = picforge_in_child("annotate", "trace", "--run", run, "--id", next(iter(truths)))
    swapped = [dict(r, WorkerId={"rand00": "rand01", "rand01": "rand00"}.get(r["WorkerId"], r["WorkerId"]))
               for r in rows]
    redownload = tmp_path / "Batch_1_batch_results (1).csv"
    write_results(redownload, swapped)
    code, _, err = picforge_in_child("annotate", "mturk", "ingest", "--run", run, "--results", redownload)
    assert code == 2, err
    assert re.search(r"Batch_1_batch_results \(1\)\.csv: row \d+: assignment \S+ is recorded \(from .*"
                     r"Batch_1_batch_results\.csv: row \d+\) with other contents \(worker 'rand0[01]' -> 'rand0[01]'\)",
                     err), err
    assert picforge_in_child("annotate", "trace", "--run", run, "--id", next(iter(truths))) == trace_before
    # The same file as downloaded still ingests (nothing changes).
    assert picforge_in_child("annotate", "mturk", "ingest", "--run", run, "--results", results)[0] == 0


def test_a_sheet_with_one_cp1252_row_is_refused_naming_the_line_and_utf8_is_kept_exactly(mined_103, tmp_path):
    run, sheet = exported_expert_sheet(mined_103, tmp_path)
    lines = open(sheet, "rb").read().decode("utf-8-sig").splitlines(keepends=True)
    header, first = lines[0], lines[1]
    cells = next(csv.reader([first]))
    q1 = cells[header.split(",").index("Q1")]
    cafe = first.replace(q1, "café society", 1)
    mixed = tmp_path / "mixed.csv"
    mixed.write_bytes(b"".join([header.encode("utf-8"), cafe.encode("cp1252"),
                                *(line.encode("utf-8") for line in lines[2:])]))
    code, _, err = picforge_in_child("annotate", "ingest", "expert", "--run", run, "--no-grammar", "--sheets", mixed)
    assert code == 2 and f"{mixed}: line 2: byte 0xe9 is not UTF-8" in err and "--encoding" in err, err
    ledger = Ledger.for_run(str(run))
    with ledger.read() as q:
        assert q.answers() == []  # nothing recorded
    ledger.dispose()

    utf8 = tmp_path / "utf8.csv"
    utf8.write_bytes(b"\xef\xbb\xbf" + "".join([header, cafe, *lines[2:]]).encode("utf-8"))
    code, _, err = picforge_in_child("annotate", "ingest", "expert", "--run", run, "--no-grammar", "--sheets", utf8)
    assert code == 0, err
    ledger = Ledger.for_run(str(run))
    with ledger.read() as q:
        assert "café society" in {a["value"] for a in q.answers()}
    ledger.dispose()
