"""A round that always finishes (issue 42, items 1-4, 6): plans that can judge, held work with an end, nothing
stranded, decisions that stand, results files checked as a whole; through the CLI on a real ledger."""
import csv
import json
import time
from decimal import Decimal

import pytest

from picforge import ledger as L
from annotation.mturk import rehearsal as mturk_rehearsal, round1
from picforge.ledger import Ledger
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
    return plan_of_ledger(run_dir, None, batch)


def honest(slot, gold):
    """An honest worker's answer: the gold's known answer, yes to the experts' paraphrases, no to q3 (as they said)."""
    if slot.startswith(round1.GOLD_PREFIX):
        return gold[slot[len(round1.GOLD_PREFIX):]]
    return not slot.endswith("/q3")


def all_yes(slot, gold):
    return True


def results_file(path, run_dir, batch, work, gold, status="Submitted", approves="Mon May 04 10:00:00 PDT 2099",
                 ledger_url=None, **site):
    """The requester site's results download for `work` = [(hit number, worker, answer function)], built from the
    batch's rehearsal file (every Input.* column echoed as exported), MTurk auto-approving at `approves`, with any
    other column the site fills (`site`, e.g. SubmitTime)."""
    plan = plan_of_ledger(run_dir, ledger_url, batch)
    columns, blank = mturk_rehearsal.results_rows(run_dir, batch, plan)
    per_hit = len(blank) // len(plan["hits"])
    rows = []
    for number, worker, answer in work:
        row = dict(blank[number * per_hit])
        row.update({"HITId": f"3{batch.upper()}HIT{number:03d}", "AssignmentId": f"3{batch.upper()}{worker}{number:03d}",
                    "WorkerId": worker, "AssignmentStatus": status,
                    "SubmitTime": f"Fri May 01 10:{number:02d}:00 PDT 2026",
                    "AutoApprovalTime": approves, **site})
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
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, "--results", results]) == 0
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
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, "--results", first]) == 0
    review = ["annotate", "mturk", "review", "--run", run_dir, "--out", str(tmp_path / "review.csv")]
    assert picforge.cli.main(review + ["--batch", "b1"]) == 0
    assert "0 to approve, 0 to reject, 1 held" in capsys.readouterr().out
    second = results_file(tmp_path / "Batch_2_batch_results.csv", run_dir, "b2", [(0, "W1", honest), (1, "W1", honest)],
                          gold)
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, "--results", second]) == 0
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
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, "--results", results]) == 2
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
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, "--results", first]) == 0
    assert picforge.cli.main(review + ["--final"]) == 0   # after expire: decided on one assignment a HIT
    assert "round 1: 9 item(s) accepted, 0 rejected" in capsys.readouterr().out
    before = decisions(run_dir)
    late = results_file(tmp_path / "Batch_1_later.csv", run_dir, "b1", [(n, "W2", dissenter) for n in range(3)], gold)
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, "--results", late]) == 0
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


# -- 3. nothing stranded -------------------------------------------------------------------------------------------

def test_items_whose_every_assignment_was_rejected_go_into_the_next_export(tmp_path, capsys):
    import picforge.cli
    run_dir, gold = small_batch(tmp_path, "--min-worker-gold", "1")
    plan = plan_of(run_dir, "b1")
    spammed = next(n for n, hit in enumerate(plan["hits"]) for s in hit["slots"]   # a HIT whose check says no
                   if s.startswith(round1.GOLD_PREFIX) and not gold[s[len(round1.GOLD_PREFIX):]])
    results = results_file(tmp_path / "Batch_1_batch_results.csv", run_dir, "b1",
                           [(n, "SPAM" if n == spammed else "W1", all_yes if n == spammed else honest)
                            for n in range(3)], gold)
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, "--results", results]) == 0
    review = ["annotate", "mturk", "review", "--run", run_dir, "--batch", "b1", "--out", str(tmp_path / "r.csv")]
    for _ in range(2):
        assert picforge.cli.main(review) == 0
        out = capsys.readouterr().out
        assert "round 1: 6 item(s) accepted, 0 rejected (go to round 2), 0 waiting" in out
    stranded = [s for s in plan["hits"][spammed]["slots"] if not s.startswith(round1.GOLD_PREFIX)]
    assert "next: picforge annotate mturk create" in out and "(or `mturk export` for the requester site;" in out
    assert picforge.cli.main(["annotate", "mturk", "export", "--run", run_dir, "--batch", "b2", "--gold",
                              str(tmp_path / "gold.jsonl"), "--questions-per-hit", "4", "--gold-per-hit", "1",
                              "--min-worker-gold", "1"]) == 0
    assert "batch b2: 1 HIT row(s), 3 questions" in capsys.readouterr().out
    assert sorted(plan_of(run_dir, "b2")["items"]) == sorted(stranded)


def sandbox_answers(run_dir, gold, script):
    """A SandboxMTurk worker function: each HIT is offered to the workers of `script` [(worker, answer)] in order,
    each answering its questions from the batch's plan."""
    def workers(token, number):
        plan = plan_of(run_dir, "a1")
        slots = next(hit["slots"] for hit in plan["hits"] if hit["token"] == token)
        return [(worker, {f"answer_{n}": "yes" if answer(slot, gold) else "no"
                          for n, slot in enumerate(slots, start=1)}) for worker, answer in script]
    return workers


def test_an_api_hit_whose_every_assignment_was_rejected_gets_more_assignments_within_the_cap(tmp_path, capsys,
                                                                                          monkeypatch):
    import picforge.cli
    sandbox, create, out = stranded_api_batch(tmp_path, monkeypatch, capsys)
    run_dir, batch = create[4], create[3:7]
    assert "3 HIT(s) x 1 assignment(s) x $4.67 = $14.01 + MTurk fees $2.79 = $16.80" in out
    assert ("9 item(s) on 3 HIT(s) whose every assignment was rejected or could not be judged: `mturk create --batch "
            "a1` asks them again"
            in out)
    assert f"next: picforge annotate mturk create --run {run_dir} --batch a1 --max-spend USD   (asks 3 HIT(s)" in out
    assert picforge.cli.main(create + ["--max-spend", "20"]) == 2   # the cap counts what was asked before
    assert "this batch costs $33.60, above --max-spend $20.00" in capsys.readouterr().err
    assert not [c for c in sandbox.calls if c[0] == "CreateAdditionalAssignmentsForHIT"]
    assert picforge.cli.main(create + ["--max-spend", "40"]) == 0
    out = capsys.readouterr().out
    assert "6 HIT(s) (of which 3 asked again) x 1 assignment(s) x $4.67 = $28.02 + MTurk fees $5.58 = $33.60" in out
    assert f"next: picforge annotate mturk save --run {run_dir} --batch a1" in out   # not the review just done
    asked = [c[1] for c in sandbox.calls if c[0] == "CreateAdditionalAssignmentsForHIT"]
    assert len(asked) == 3 and {a["NumberOfAdditionalAssignments"] for a in asked} == {1}
    assert picforge.cli.main(["annotate", "mturk", "save", *batch]) == 0
    assert picforge.cli.main(["annotate", "mturk", "review", *batch]) == 0
    out = capsys.readouterr().out
    assert "approved 3, rejected 0 assignment(s)" in out and "round 1: 9 item(s) accepted" in out
    assert picforge.cli.main(create + ["--max-spend", "40"]) == 0   # nothing left to ask: asks nothing
    assert len([c for c in sandbox.calls if c[0] == "CreateAdditionalAssignmentsForHIT"]) == 3


def stranded_api_batch(tmp_path, monkeypatch, capsys, live=False):
    """An API batch of 3 HITs (`live`: on the production endpoint, capped at $40) whose only assignments (an all-yes
    worker's) were rejected: (sandbox, create argv, what create and review printed)."""
    import picforge.cli
    from annotation.mturk import client as mturk_client
    from tests.walkthrough.mturk_service import SandboxMTurk
    run_dir = big_run(tmp_path, copies=1)
    gold_path, gold = big_gold(tmp_path / "gold.jsonl")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "sandbox-test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "sandbox-test")
    sandbox = SandboxMTurk(sandbox_answers(run_dir, gold, [("SPAM", all_yes), ("W1", honest)]), live=live)
    real_client = mturk_client.mturk_client
    monkeypatch.setattr(mturk_client, "mturk_client", lambda live, profile=None: sandbox.attach(real_client(live)))
    batch = ["--run", run_dir, "--batch", "a1", *(["--live"] if live else [])]
    create = ["annotate", "mturk", "create", *batch, "--gold", gold_path, "--questions-per-hit", "4",
              "--gold-per-hit", "1", "--min-worker-gold", "3", *(["--max-spend", "40"] if live else [])]
    for argv in (create, ["annotate", "mturk", "save", *batch], ["annotate", "mturk", "review", *batch]):
        assert picforge.cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "approved 0, rejected 3 assignment(s)" in out
    return sandbox, create, out


def test_asking_again_reopens_a_hit_past_its_expiration(tmp_path, monkeypatch, capsys):
    import picforge.cli
    sandbox, create, _ = stranded_api_batch(tmp_path, monkeypatch, capsys)
    create, batch = create + ["--max-spend", "40"], create[3:7]
    assert picforge.cli.main(["annotate", "mturk", "expire", *batch]) == 0   # the HITs' lifetime is over
    capsys.readouterr()
    assert picforge.cli.main(create) == 0
    out = capsys.readouterr().out
    assert out.count("had expired") == 3
    reopened = [c[1] for c in sandbox.calls if c[0] == "UpdateExpirationForHIT"][3:]   # after expire's own 3
    assert len(reopened) == 3 and all(p["ExpireAt"] > time.time() + 6 * 24 * 3600 for p in reopened)  # 7-day lifetime
    assert picforge.cli.main(["annotate", "mturk", "save", *batch]) == 0
    assert picforge.cli.main(["annotate", "mturk", "review", *batch]) == 0
    assert "approved 3, rejected 0 assignment(s)" in capsys.readouterr().out   # the honest worker took them


def test_the_live_balance_check_counts_the_hits_asked_again(tmp_path, monkeypatch, capsys):
    import picforge.cli
    sandbox, create, _ = stranded_api_batch(tmp_path, monkeypatch, capsys, live=True)
    sandbox.balance = "10.00"      # 3 HITs asked again cost 3 x ($4.67 + $0.93 fee) = $16.80
    assert picforge.cli.main(create) == 2
    assert ("holds $10.00, less than the $16.80 the 0 HIT(s) still to create and the 3 HIT(s) to ask again cost"
            in capsys.readouterr().err)
    assert not [c for c in sandbox.calls if c[0] == "CreateAdditionalAssignmentsForHIT"]


def test_a_hit_created_below_ten_assignments_is_never_asked_past_nine():
    from annotation.mturk.fees import check_can_ask_again, fee_rate
    from picforge.errors import InputError
    assert (fee_rate(9), fee_rate(10)) == (Decimal("0.20"), Decimal("0.40"))
    check_can_ask_again("H1", 3, 6, 3)               # 9 in all: MTurk allows it
    check_can_ask_again("H1", 10, 10, 10)            # created at 10: no limit
    with pytest.raises(InputError, match="MTurk cannot raise a HIT created with fewer than 10 to 10 or more"):
        check_can_ask_again("H1", 3, 9, 3)


# -- 2. held has an end --------------------------------------------------------------------------------------------

def test_a_held_assignment_names_its_dates_and_is_decided_from_its_decide_by_date(tmp_path, capsys):
    import picforge.cli
    run_dir, gold = small_batch(tmp_path)                      # 3 checks needed: one HIT leaves its worker held
    review = ["annotate", "mturk", "review", "--run", run_dir, "--batch", "b1", "--out", str(tmp_path / "r.csv")]
    later = results_file(tmp_path / "Batch_1_batch_results.csv", run_dir, "b1", [(0, "W1", honest)], gold)
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, "--results", later]) == 0
    for _ in range(2):
        assert picforge.cli.main(review) == 0
        out = capsys.readouterr().out
        assert ("held: W1, 1 assignment(s): held: 1 distinct check question(s) answered so far, 3 needed to judge the "
                "worker's record; MTurk auto-approves them from 2099-05-04T10:00:00-07:00; review decides them from "
                "2099-05-03T10:00:00-07:00 on the record so far") in out
        assert "0 to approve, 0 to reject, 1 held" in out
        hints = [line for line in out.splitlines() if line.startswith("next: ")]
        assert f"next: picforge annotate mturk review --run {run_dir} --batch b1 --out FILE.csv   (from " \
               "2099-05-03T10:00:00-07:00, when its 1 held assignment(s) are decided" in out
        assert f"next: picforge annotate mturk review --run {run_dir} --batch b1 --out FILE.csv" not in hints

    # Another run whose assignment's auto-approval is past: review pays it unjudged and asks its items again.
    run_dir, gold = small_batch(tmp_path / "due")
    due = results_file(tmp_path / "due.csv", run_dir, "b1", [(0, "W1", honest)], gold,
                       approves="Mon May 04 10:00:00 PDT 2026")
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, "--results", due]) == 0
    assert picforge.cli.main(review[:4] + [run_dir, "--batch", "b1", "--out", str(tmp_path / "due-r.csv")]) == 0
    out = capsys.readouterr().out
    assert "1 to approve, 0 to reject, 0 held" in out and "held:" not in out
    assert "3 item(s) whose every assignment was rejected or could not be judged went back to waiting" in out

    # No AutoApprovalTime in the file: the HIT's own AutoApprovalDelayInSeconds (10 days here) after its SubmitTime,
    # not the requester site's 3-day default.
    run_dir, gold = small_batch(tmp_path / "delay")
    delayed = results_file(tmp_path / "delay.csv", run_dir, "b1", [(0, "W1", honest)], gold, approves="",
                           SubmitTime="Fri May 01 10:00:00 PDT 2099", AutoApprovalDelayInSeconds="864000")
    assert picforge.cli.main(["annotate", "mturk", "ingest", "--run", run_dir, "--results", delayed]) == 0
    assert picforge.cli.main(review[:4] + [run_dir, "--batch", "b1", "--out", str(tmp_path / "delay-r.csv")]) == 0
    assert ("MTurk auto-approves them from 2099-05-11T10:00:00-07:00; review decides them from "
            "2099-05-10T10:00:00-07:00") in capsys.readouterr().out


# -- 3. every item in exactly one state; 9. hints to the end -------------------------------------------------------

def test_the_report_counts_every_item_in_one_state_says_what_it_wrote_and_hints_carry_the_ledger(tmp_path, capsys):
    import picforge.cli
    run_dir = big_run(tmp_path, copies=1)
    gold_path, gold = big_gold(tmp_path / "gold.jsonl")
    url = f"sqlite:///{tmp_path / 'elsewhere.sqlite'}"
    ledger = Ledger.for_run(run_dir)
    other = Ledger.for_run(run_dir, url)
    with ledger.read() as q, other.transaction() as tx:     # the same expert round, kept in another ledger
        for batch in q.batches(kind="expert"):
            tx.add_batch(batch["batch_id"], "expert", round=L.ROUND_EXPERT, meta=batch["meta"])
            for item in q.items(batch_id=batch["batch_id"]):
                tx.add_items(batch["batch_id"], [(item["triplet_id"], "triplet")])
                tx.record_decision(item["item_id"], L.ROUND_EXPERT, L.ACCEPTED, decided_by="ann")
        for annotation in q.expert_annotations():
            tx.record_expert_annotation(annotation, annotation["batch_id"], annotation["phrase"])
    ledger.dispose()
    other.dispose()
    at = ["--run", run_dir, "--ledger", url]
    assert picforge.cli.main(["annotate", "mturk", "export", *at, "--batch", "b1", "--gold", gold_path,
                              "--questions-per-hit", "4", "--gold-per-hit", "1", "--min-worker-gold", "1"]) == 0
    hints = [line for line in capsys.readouterr().out.splitlines() if line.startswith("next: ")]
    assert hints and all(f"--run {run_dir} --ledger {url} " in line for line in hints)
    plan = plan_of_ledger(run_dir, url, "b1")
    spammed = next(n for n, hit in enumerate(plan["hits"]) for s in hit["slots"]
                   if s.startswith(round1.GOLD_PREFIX) and not gold[s[len(round1.GOLD_PREFIX):]])
    results = results_file(tmp_path / "Batch_1_batch_results.csv", run_dir, "b1",
                           [(n, "SPAM" if n == spammed else "W1", all_yes if n == spammed else honest)
                            for n in range(3)], gold, ledger_url=url)
    assert picforge.cli.main(["annotate", "mturk", "ingest", *at, "--results", results]) == 0
    assert picforge.cli.main(["annotate", "mturk", "review", *at, "--batch", "b1", "--out",
                              str(tmp_path / "r.csv")]) == 0
    capsys.readouterr()
    out_md, out_json = tmp_path / "report.md", tmp_path / "report.json"
    assert picforge.cli.main(["annotate", "report", *at, "--out", str(out_md), "--json", str(out_json)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out_md} and {out_json}" in printed and f"next: picforge annotate mturk create {' '.join(at)}" in printed
    assert f"`picforge annotate mturk gold --run {run_dir} --ledger {url} --out GOLD.jsonl` builds the bank" in printed
    report = json.loads(out_json.read_text(encoding="utf-8"))
    for group, kinds in (("paraphrases", 2), ("labels", 1)):
        row = report["funnel"][group]
        states = ("round1_accepted", "round2_endorsed", "awaiting_round2", "dropped", "awaiting_round1")
        assert row["annotated"] == 3 * kinds == sum(row[state] for state in states)
    assert report["funnel"]["paraphrases"]["awaiting_round1"] + report["funnel"]["labels"]["awaiting_round1"] == 3
    assert "| Waiting for round 1 (not yet asked, or asked again) | 2 | 1 |" in out_md.read_text(encoding="utf-8")


def plan_of_ledger(run_dir, url, batch):
    ledger = Ledger.for_run(run_dir, url)
    try:
        with ledger.read() as q:
            return q.batch(batch)["meta"]
    finally:
        ledger.dispose()
