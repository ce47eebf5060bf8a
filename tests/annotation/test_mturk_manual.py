"""The requester-UI path: `mturk export`, `mturk ingest` of Batch_*_batch_results.csv, and the
Approve/Reject file of `mturk review`, through the CLI on a real SQLite ledger."""
import csv
import json

import pytest

from picforge import ledger as L
from annotation.mturk import manual as mturk_manual, round1
import picforge.cli
from picforge.errors import InputError
from tests.annotation.conftest import ledger_option

from mturk_support import gold_bank, make_run, write_gold

RESULT_HEADER = ["HITId", "HITTypeId", "AssignmentId", "WorkerId", "AssignmentStatus", "SubmitTime",
                 "Input.row_key", *[f"Input.question_{n}" for n in range(1, 5)], "Answer.answer_1", "Answer.answer_2", "Answer.answer_3", "Answer.answer_4",
                 "Answer.comments", "Approve", "Reject"]


# The 3 HITs of this batch show 3 distinct gold checks: judge a worker's record on them (4 by default, so a worker of
# these 3 HITs would be held).
JUDGE_EVERY_HIT = ("--min-worker-gold", "3")


# Rows of the exported batch CSVs by row key: a results row echoes its HIT's row as Input.* (`remember_export`).
EXPORTED = {}


def remember_export(run_dir, batch):
    """Keep the batch input CSV `mturk export` wrote, so results rows echo it as the requester site does."""
    with open(f"{run_dir}/mturk/{batch}/{batch}_input.csv", encoding="utf-8", newline="") as fh:
        EXPORTED.update({row["row_key"]: row for row in csv.DictReader(fh)})


@pytest.fixture
def manual(tmp_path, annotate, ledger_url):
    run_dir, ledger = make_run(tmp_path, ledger_url)
    gold = write_gold(tmp_path / "gold.jsonl")
    cli = lambda argv: annotate(*argv[1:])  # noqa: E731
    assert cli(["annotate", "mturk", "export", "--run", run_dir, "--batch", "m1", "--gold", gold,
                "--questions-per-hit", "4", "--assignments", "2", *JUDGE_EVERY_HIT]) == 0
    remember_export(run_dir, "m1")
    with ledger.read() as q:
        plan = q.batch("m1")["meta"]
    yield {"run": run_dir, "ledger": ledger, "plan": plan, "tmp": tmp_path, "cli": cli}
    ledger.dispose()


def _row(plan, n, assignment, worker, wrong_gold=False, status="Submitted", **overrides):
    """A results row of HIT n whose worker agrees with the experts (and fails the gold check if asked)."""
    hit = plan["hits"][n]
    bank = {g["gold_id"]: g for g in gold_bank()}
    row = {"HITId": f"3MAN{n}", "HITTypeId": "TYPE", "AssignmentId": assignment, "WorkerId": worker,
           "AssignmentStatus": status, "SubmitTime": "Fri May 01 10:09:00 PDT 2026", "Input.row_key": hit["token"],
           "Answer.comments": "", "Approve": "", "Reject": "",
           **{f"Input.{k}": v for k, v in EXPORTED[hit["token"]].items() if k != "row_key"}}
    for slot_no, slot in enumerate(hit["slots"], start=1):
        if slot.startswith(round1.GOLD_PREFIX):
            yes = bank[slot[len(round1.GOLD_PREFIX):]]["answer"] != wrong_gold
        else:
            yes = not slot.endswith("/q3")       # the experts all said Q3 = N
        row[f"Answer.answer_{slot_no}"] = "yes" if yes else "no"
    return {**row, **overrides}


def _write(path, rows, header=RESULT_HEADER, encoding="utf-8", delimiter=","):
    with open(path, "w", encoding=encoding, newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=header, delimiter=delimiter, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


def test_export_writes_one_row_per_hit_and_the_crowd_template(manual):
    out = manual["tmp"] / "run" / "mturk" / "m1"
    with open(out / "m1_input.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["row_key"] for r in rows] == [h["token"] for h in manual["plan"]["hits"]]
    assert list(rows[0]) == ["row_key", "question_1", "question_2", "question_3", "question_4"]
    assert all("\n" not in value for r in rows for value in r.values())
    assert all("<script>" not in value for r in rows for value in r.values())
    template = (out / "m1_template.html").read_text(encoding="utf-8")
    assert "<crowd-form" in template and "${question_4}" in template and "${question_5}" not in template


def test_export_writes_the_qualification_test_that_create_would_make(manual, capsys):
    assert manual["cli"](["annotate", "mturk", "export", "--run", manual["run"], "--batch", "m1", "--gold",
                          str(manual["tmp"] / "gold.jsonl"), "--questions-per-hit", "4", "--assignments", "2",
                          *JUDGE_EVERY_HIT]) == 0
    out = manual["tmp"] / "run" / "mturk" / "m1"
    test = round1.qualification_test(manual["plan"])
    assert (out / "m1_qualification_test.xml").read_text(encoding="utf-8") == test.test_xml
    assert (out / "m1_answer_key.xml").read_text(encoding="utf-8") == test.answer_key
    printed = capsys.readouterr().out
    assert (f"aws mturk create-qualification-type --region us-east-1 --endpoint-url "
            f"https://mturk-requester-sandbox.us-east-1.amazonaws.com --name '{test.name}'") in printed
    assert f"--test file://{out}/m1_qualification_test.xml --answer-key file://{out}/m1_answer_key.xml" in printed
    assert "score of at least 5" in printed


def test_ingest_is_idempotent_across_repeats_overlaps_and_status_updates(manual, capsys):
    plan, tmp, cli = manual["plan"], manual["tmp"], manual["cli"]
    first = _write(tmp / "Batch_1_batch_results.csv", [_row(plan, 0, "A1", "W1"), _row(plan, 1, "A2", "W1")],
                   encoding="utf-8-sig")
    overlap = _write(tmp / "Batch_1_later.csv", [_row(plan, 1, "A2", "W1"), _row(plan, 2, "A3", "W2")])
    ingest = ["annotate", "mturk", "ingest", "--run", manual["run"], "--results"]
    assert cli(ingest + [first]) == 0
    assert cli(ingest + [first, overlap]) == 0
    assert "batch m1: 4 row(s) read, 3 assignment(s) in the ledger" in capsys.readouterr().out
    with manual["ledger"].read() as q:
        once = q.dump()
    assert cli(ingest + [overlap, first]) == 0
    with manual["ledger"].read() as q:
        assert q.dump() == once
        assert sorted(h["hit_id"] for h in q.hits("m1")) == ["3MAN0", "3MAN1", "3MAN2"]
        assert len(q.answers(batch_id="m1")) == 3 * 4

    approved = _write(tmp / "Batch_1_approved.csv", [_row(plan, 0, "A1", "W1", status="Approved")])
    assert cli(ingest + [approved]) == 0
    with manual["ledger"].read() as q:
        assert {a["assignment_id"]: a["status"] for a in q.assignments(batch_id="m1")}["A1"] == "Approved"
        assert len(q.answers(batch_id="m1")) == 3 * 4


def test_an_older_results_file_never_moves_a_status_back(manual):
    plan, tmp, cli = manual["plan"], manual["tmp"], manual["cli"]
    ingest = ["annotate", "mturk", "ingest", "--run", manual["run"], "--results"]
    older = _write(tmp / "Batch_1_monday.csv", [_row(plan, 0, "A1", "W1"), _row(plan, 0, "A2", "W2", wrong_gold=True)])
    newer = _write(tmp / "Batch_1_friday.csv", [_row(plan, 0, "A1", "W1", status="Approved"),
                                                 _row(plan, 0, "A2", "W2", wrong_gold=True, status="Rejected")])
    assert cli(ingest + [older]) == 0
    assert cli(["annotate", "mturk", "review", "--run", manual["run"], "--batch", "m1",
                "--out", str(tmp / "upload.csv")]) == 0
    assert cli(ingest + [newer]) == 0
    with manual["ledger"].read() as q:
        reviewed = q.dump()
    assert cli(ingest + [older]) == 0
    with manual["ledger"].read() as q:
        assert q.dump() == reviewed
        statuses = {a["assignment_id"]: a["status"] for a in q.assignments(batch_id="m1")}
    assert statuses == {"A1": "Approved", "A2": "Rejected"}


def test_a_cancelled_batch_frees_its_items_and_its_results_are_refused(manual, capsys):
    plan, tmp, cli, run = manual["plan"], manual["tmp"], manual["cli"], manual["run"]
    assert cli(["annotate", "cancel-batch", "--run", run, "--batch", "m1"]) == 0
    out = capsys.readouterr().out
    assert "batch m1: cancelled; 9 item(s) released" in out and "cancel that batch there too" in out
    results = _write(tmp / "Batch_1_batch_results.csv", [_row(plan, 0, "A1", "W1")])
    assert cli(["annotate", "mturk", "ingest", "--run", run, "--results", results]) == 2
    assert f"{results}: row 2, column Input.row_key: batch m1 was cancelled" in capsys.readouterr().err
    assert cli(["annotate", "mturk", "export", "--run", run, "--batch", "m2", "--gold", str(tmp / "gold.jsonl"),
                "--questions-per-hit", "4", *JUDGE_EVERY_HIT]) == 0
    assert "batch m2: 3 HIT row(s), 9 questions" in capsys.readouterr().out
    with manual["ledger"].read() as q:
        assert q.assignments() == [] and sorted(q.memberships("mturk-manual")) == sorted(plan["items"])


@pytest.mark.parametrize("change, message", [
    (lambda rows, plan: (rows, [h for h in RESULT_HEADER if h != "AssignmentId"], ","),
     "row 1: missing column(s) AssignmentId"),
    (lambda rows, plan: ([rows[0], {**rows[1], "Input.row_key": "picforge-unknown"}], RESULT_HEADER, ","),
     "row 3, column Input.row_key: 'picforge-unknown' is not a row of any exported batch"),
    (lambda rows, plan: ([{**rows[0], "Answer.answer_3": "maybe"}], RESULT_HEADER, ","),
     "row 2, column Answer.answer_3: answer 'maybe' is neither 'yes' nor 'no'"),
    (lambda rows, plan: ([{**rows[0], "WorkerId": " "}], RESULT_HEADER, ","), "row 2, column WorkerId: empty"),
    (lambda rows, plan: ([{**rows[0], "AssignmentStatus": "Done"}], RESULT_HEADER, ","),
     "row 2, column AssignmentStatus: 'Done' is not one of"),
    (lambda rows, plan: ([rows[0], {**rows[0], "HITId": "3OTHER", "AssignmentId": "A9"}], RESULT_HEADER, ","),
     "row 3, column HITId: row key"),
    (lambda rows, plan: ([rows[0], {**rows[1], "SubmitTime": "Friday, 1 May 2026, 10:09:00 Pacific Daylight Time"}],
                         RESULT_HEADER, ","),
     "row 3: submitted_at 'Friday, 1 May 2026, 10:09:00 Pacific Day…' is 50 characters long; "
     "the ledger's assignments.submitted_at holds at most 40"),
    (lambda rows, plan: (rows, [h for h in RESULT_HEADER if h != "Answer.answer_2"], ","),
     "row 1: column Answer.answer_2 of batch m1 is missing"),
    (lambda rows, plan: ([rows[0], {**rows[1], "Input.question_2": rows[1]["Input.question_2"].replace("the", "a")}],
                         RESULT_HEADER, ","),
     "row 3, column Input.question_2: differs from what batch m1 exported"),
    (lambda rows, plan: ([], RESULT_HEADER, ","), "no result rows (empty or header only)"),
])
def test_bad_results_files_name_file_row_and_column_and_change_nothing(manual, capsys, change, message):
    plan = manual["plan"]
    good = _write(manual["tmp"] / "Batch_ok.csv", [_row(plan, 2, "A0", "W0")])
    assert manual["cli"](["annotate", "mturk", "ingest", "--run", manual["run"], "--results", good]) == 0
    with manual["ledger"].read() as q:
        before = q.dump(with_times=True)
    rows, header, delimiter = change([_row(plan, 0, "A1", "W1"), _row(plan, 1, "A2", "W1")], plan)
    bad = _write(manual["tmp"] / "Batch_bad.csv", rows, header=header, delimiter=delimiter)
    capsys.readouterr()
    assert manual["cli"](["annotate", "mturk", "ingest", "--run", manual["run"], "--results", bad]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: {message}" in err and err.count("\n") == 1
    with manual["ledger"].read() as q:
        assert q.dump(with_times=True) == before


def test_a_results_file_resaved_by_excel_ingests_like_the_download(manual, tmp_path, annotate, new_ledger_url):
    """Windows-1252 text and `;` separators (a spreadsheet in a European locale) read the same once the
    encoding is named (`picforge --encoding cp1252`); without it the file is refused."""
    plan = manual["plan"]
    rows = [_row(plan, 0, "A1", "W1", **{"Answer.comments": "café crème"}), _row(plan, 1, "A2", "W2")]
    download = _write(manual["tmp"] / "Batch_1_batch_results.csv", rows, encoding="utf-8-sig")
    assert manual["cli"](["annotate", "mturk", "ingest", "--run", manual["run"], "--results", download]) == 0
    with manual["ledger"].read() as q:
        expected = q.dump()
    other_url = new_ledger_url()
    other_run, other_ledger = make_run(tmp_path / "other", other_url)
    gold = write_gold(tmp_path / "gold.jsonl")
    assert annotate("mturk", "export", "--run", other_run, *ledger_option(other_url), "--batch", "m1", "--gold",
                    gold, "--questions-per-hit", "4", "--assignments", "2", *JUDGE_EVERY_HIT) == 0
    (tmp_path / "excel").mkdir()  # the same file name: the ledger records where each assignment was read
    resaved = _write(tmp_path / "excel" / "Batch_1_batch_results.csv", rows, encoding="cp1252", delimiter=";")
    assert annotate("mturk", "ingest", "--run", other_run, *ledger_option(other_url), "--results", resaved) == 2  # not UTF-8
    assert picforge.cli.main(["--encoding", "cp1252", "annotate", "mturk", "ingest", "--run", other_run,
                              *ledger_option(other_url), "--results", resaved]) == 0
    with other_ledger.read() as q:
        assert q.dump() == expected
        assert [a["value"] for a in q.answers(assignment_id="A1") if a["field"] == "comments"] == ["café crème"]
    other_ledger.dispose()


def test_review_writes_the_approve_reject_file_and_decides(manual, capsys):
    plan, tmp, cli = manual["plan"], manual["tmp"], manual["cli"]
    rows = [_row(plan, n, f"A{n}{w}", f"W{w}", wrong_gold=(w == 2)) for n in range(len(plan["hits"])) for w in (1, 2)]
    assert cli(["annotate", "mturk", "ingest", "--run", manual["run"], "--results", _write(tmp / "Batch_r.csv", rows)]) == 0
    review = ["annotate", "mturk", "review", "--run", manual["run"], "--batch", "m1"]
    assert cli(review) == 2
    assert "pass --out FILE.csv" in capsys.readouterr().err
    out_file = tmp / "upload.csv"
    assert cli(review + ["--out", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert "3 to approve, 3 to reject" in out
    assert "round 1: 9 item(s) accepted, 0 rejected (go to round 2), 0 waiting" in out
    with open(out_file, encoding="utf-8", newline="") as fh:
        upload = {r["AssignmentId"]: r for r in csv.DictReader(fh)}
    assert {a: (r["Approve"], bool(r["Reject"])) for a, r in upload.items()} == {
        f"A{n}{w}": ("x", False) if w == 1 else ("", True) for n in range(3) for w in (1, 2)}
    assert "check question(s) with known answers were answered wrongly" in upload["A02"]["Reject"]
    with manual["ledger"].read() as q:
        votes = q.decision_map(L.ROUND_MTURK)["T1/q3"]["detail"]["votes"]
    assert [v["worker"] for v in votes] == ["W1"]           # the gold-failing worker does not vote


def test_export_refuses_a_changed_plan_and_a_second_batch_takes_nothing(manual, capsys):
    cli, run = manual["cli"], manual["run"]
    assert cli(["annotate", "mturk", "export", "--run", run, "--batch", "m1", "--questions-per-hit", "5",
                "--assignments", "2"]) == 2
    assert "batch 'm1' was planned with other settings" in capsys.readouterr().err
    assert cli(["annotate", "mturk", "export", "--run", run, "--batch", "m1", "--questions-per-hit", "4",
                "--assignments", "2", *JUDGE_EVERY_HIT]) == 0     # same options: the same files again
    capsys.readouterr()
    assert cli(["annotate", "mturk", "export", "--run", run, "--batch", "m2", "--gold",
                str(manual["tmp"] / "gold.jsonl")]) == 0          # nothing to do is success
    assert capsys.readouterr().out.startswith("picforge: no accepted expert annotation is waiting for MTurk")
    with manual["ledger"].read() as q:
        assert q.batch("m2") is None


def test_gold_bank_errors_name_the_line(tmp_path):
    path = tmp_path / "gold.jsonl"
    record = gold_bank()[1]
    path.write_text("\n" + json.dumps({**record, "phrase": "stock market"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"gold.jsonl: line 2: phrase 'stock market' does not occur in passage1"):
        round1.load_gold_bank(str(path))
    path.write_text('{"gold_id": "g1", "kind": "paraphrase"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"line 1: <record>: 'phrase' is a required property"):
        round1.load_gold_bank(str(path))
    assert mturk_manual.csv_cell("<p>a\r\nb</p>\n") == "<p>a&#10;b</p>&#10;"


def test_one_assignment_twice_or_one_worker_twice_on_a_hit_is_refused_naming_both_rows(manual, capsys):
    plan, tmp, cli = manual["plan"], manual["tmp"], manual["cli"]
    ingest = ["annotate", "mturk", "ingest", "--run", manual["run"], "--results"]
    moved = _write(tmp / "Batch_moved.csv", [_row(plan, 0, "A1", "W1"), _row(plan, 1, "A1", "W2")])
    assert cli(ingest + [moved]) == 2
    err = capsys.readouterr().err
    assert "row 3: AssignmentId A1 is also at" in err and "row 2 with other contents" in err
    twice = _write(tmp / "Batch_twice.csv", [_row(plan, 0, "A1", "W1"), _row(plan, 0, "A9", "W1")])
    assert cli(ingest + [twice]) == 2
    assert "worker W1 holds a second assignment (A9) of HIT 3MAN0 beside A1" in capsys.readouterr().err
    with manual["ledger"].read() as q:
        assert q.answers(batch_id="m1") == []
    # The same row in two downloads, the later one approved, is one assignment.
    later = _write(tmp / "Batch_later.csv", [_row(plan, 0, "A1", "W1", status="Approved")])
    first = _write(tmp / "Batch_first.csv", [_row(plan, 0, "A1", "W1")])
    assert cli(ingest + [first, later]) == 0


def _worker_rows(plan, worker, answer):
    """A results row for every HIT of the plan, answered by `worker` with `answer(slot) -> bool`."""
    bank = {g["gold_id"]: g for g in gold_bank()}
    rows = []
    for n, hit in enumerate(plan["hits"]):
        row = _row(plan, n, f"{worker}-A{n}", worker)
        for slot_no, slot in enumerate(hit["slots"], start=1):
            truth = (bank[slot[len(round1.GOLD_PREFIX):]]["answer"] if slot.startswith(round1.GOLD_PREFIX)
                     else not slot.endswith("/q3"))
            row[f"Answer.answer_{slot_no}"] = "yes" if answer(slot, truth) else "no"
        rows.append(row)
    return rows


def test_review_rejects_all_yes_all_no_and_random_workers_and_passes_careful_ones(tmp_path, annotate, ledger_url,
                                                                                   capsys):
    import random

    run_dir, ledger = make_run(tmp_path, ledger_url)
    gold = write_gold(tmp_path / "gold.jsonl")
    assert annotate("mturk", "export", "--run", run_dir, "--batch", "sim", "--gold", gold, "--questions-per-hit", "2",
                    "--assignments", "4", "--min-worker-gold", "3") == 0
    remember_export(run_dir, "sim")
    with ledger.read() as q:
        plan = q.batch("sim")["meta"]
    checks = [slot for hit in plan["hits"] for slot in hit["slots"] if slot.startswith(round1.GOLD_PREFIX)]
    bank = {g["gold_id"]: g["answer"] for g in gold_bank()}
    yes_share = sum(bank[c[len(round1.GOLD_PREFIX):]] for c in checks) / len(checks)
    assert 0.3 <= yes_share <= 0.7  # the checks workers meet are balanced
    coin = random.Random(7)
    workers = {"careful": lambda slot, truth: truth, "all-yes": lambda slot, truth: True,
               "all-no": lambda slot, truth: False, "random": lambda slot, truth: coin.random() < 0.5}
    results = _write(tmp_path / "Batch_sim_results.csv",
                     [row for name, answer in workers.items() for row in _worker_rows(plan, name, answer)])
    assert annotate("mturk", "ingest", "--run", run_dir, "--results", results) == 0
    upload = tmp_path / "upload.csv"
    assert annotate("mturk", "review", "--run", run_dir, "--batch", "sim", "--out", str(upload)) == 0
    verdicts = {}
    for row in csv.DictReader(open(upload, encoding="utf-8")):
        verdicts.setdefault(row["WorkerId"], set()).add("approve" if row["Approve"] == "x" else "reject")
    assert verdicts == {"careful": {"approve"}, "all-yes": {"reject"}, "all-no": {"reject"}, "random": {"reject"}}
    ledger.dispose()


def test_rehearse_writes_the_download_with_empty_answers_that_ingests_once_filled(manual, capsys):
    plan, tmp, cli = manual["plan"], manual["tmp"], manual["cli"]
    results = tmp / "returned" / "Batch_rehearsal_batch_results.csv"
    rehearse = ["annotate", "mturk", "rehearse", "--run", manual["run"], "--batch", "m1", "--out", str(results)]
    assert cli(rehearse) == 0
    assert "next: picforge annotate mturk ingest" in capsys.readouterr().out
    with open(results, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        columns, rows = reader.fieldnames, list(reader)
    with open(tmp / "run" / "mturk" / "m1" / "m1_input.csv", encoding="utf-8", newline="") as fh:
        inputs = list(csv.DictReader(fh))
    # One row per assignment (HITs x --assignments 2), the batch CSV echoed cell for cell, answers empty.
    assert len(rows) == 2 * len(plan["hits"]) and set(RESULT_HEADER) <= set(columns)
    assert [{k[len("Input."):]: v for k, v in r.items() if k.startswith("Input.")} for r in rows[::2]] == inputs
    assert all(not v for r in rows for k, v in r.items() if k.startswith("Answer."))
    assert len({r["AssignmentId"] for r in rows}) == len(rows)
    assert cli(rehearse) == 0                     # re-running leaves the blank file as it is
    filled = [{**row, **{k: v for k, v in _row(plan, n // 2, "", "").items() if k.startswith("Answer.")}}
              for n, row in enumerate(rows)]
    _write(results, filled, header=columns)
    assert cli(rehearse) == 2                     # never over the answers
    assert "not the blank rehearsal file" in capsys.readouterr().err
    assert cli(["annotate", "mturk", "ingest", "--run", manual["run"], "--results", str(results)]) == 0
    with manual["ledger"].read() as q:
        assert {a["assignment_id"] for a in q.assignments(batch_id="m1")} == {r["AssignmentId"] for r in rows}
    assert cli(["annotate", "mturk", "review", "--run", manual["run"], "--batch", "m1", "--out",
                str(tmp / "upload.csv")]) == 0
    assert f"{len(rows)} to approve, 0 to reject" in capsys.readouterr().out
