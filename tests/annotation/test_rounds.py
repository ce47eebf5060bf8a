"""Rounds 1–2, PS verification, the final export and the report, end to end through the CLI."""
import json

import pytest

from picforge.ledger import ACCEPTED, REJECTED, ROUND_MTURK, ROUND_PS, ROUND_VERIFY2
from picforge.rundir import RunDir
from release.provenance import annotation_rai
from tests.annotation.conftest import read_csv, write_csv
from tests.annotation.test_expert import export, filled

# Round-1 (MTurk) rejections per triplet; everything else is accepted in round 1.
ROUND1_REJECTED = {"00002": ["q1"], "00003": ["q3"], "00004": ["q1", "q2"], "00006": ["q2"]}
# Round-2 answers: 00002/q1 endorsed; 00003/q3 N endorses the expert's N; 00004/q1 endorsed but q2 not;
# 00006/q2 left blank (still pending).
ROUND2_ANSWERS = {"00002/q1": "Y", "00003/q3": "n", "00004/q1": "Y", "00004/q2": "N", "00006/q2": ""}


@pytest.fixture
def annotated(annotate, run_dir, ledger, tmp_path):
    """Six accepted expert annotations and round-1 decisions written through the ledger API."""
    out = export(annotate, run_dir)
    sheets = [write_csv(tmp_path / f"{n}.csv", filled(f"{out}/expert-{n}-001.csv")) for n in ("alice", "bob")]
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", *sheets) == 0
    with ledger.transaction() as tx:
        tx.add_batch("mturk-test", "mturk", round=ROUND_MTURK)
        for triplet_id in ("00001", "00002", "00003", "00004", "00005", "00006"):
            for iid in tx.add_items("mturk-test", [(triplet_id, k) for k in ("q1", "q2", "q3")]):
                rejected = iid.rsplit("/", 1)[1] in ROUND1_REJECTED.get(triplet_id, [])
                tx.record_decision(iid, ROUND_MTURK, REJECTED if rejected else ACCEPTED,
                                   reason="2 of 3 workers disagree" if rejected else "", decided_by="review")
    return run_dir


def answer_sheet(path, answers, tmp_path, name):
    rows = read_csv(path)
    for row in rows:
        row.update(answers[row["item_id"]])
    return write_csv(tmp_path / name, rows)


def test_round2_final_rule_and_report(annotate, annotated, ledger, tmp_path, capsys):
    run_dir = annotated
    assert annotate("export", "verify2", "--run", run_dir, "--verifiers", "vera,victor") == 0
    out = f"{run_dir}/annotation/verify2"
    vera, victor = read_csv(f"{out}/verify2-vera-001.csv"), read_csv(f"{out}/verify2-victor-001.csv")
    assert [r["item_id"] for r in vera] == ["00002/q1", "00004/q1", "00006/q2"]
    assert [r["item_id"] for r in victor] == ["00003/q3", "00004/q2"]
    type2 = victor[0]
    assert type2["question"].startswith("Type 2") and type2["paraphrase"] == ""
    assert "**sharp turn**" in type2["passage"] and "**sharp turn**" in type2["other_passage"]
    assert vera[0]["paraphrase"] == "huge number" and vera[0]["passage"].count("**massive figure**") == 1
    capsys.readouterr()
    assert annotate("export", "verify2", "--run", run_dir, "--verifiers", "vera") == 0   # nothing twice: exit 0
    assert capsys.readouterr().out.startswith("picforge: no round-1 rejections left to verify")

    bad = answer_sheet(f"{out}/verify2-vera-001.csv", {k: {"answer": "maybe"} for k in ROUND2_ANSWERS},
                       tmp_path, "bad.csv")
    assert annotate("ingest", "verify2", "--run", run_dir, "--sheets", bad) == 2
    assert "bad.csv: row 2, column answer: 'maybe' is not Y or N" in capsys.readouterr().err

    answers = {k: {"answer": v} for k, v in ROUND2_ANSWERS.items()}
    sheets = [answer_sheet(f"{out}/verify2-{n}-001.csv", answers, tmp_path, f"{n}.csv") for n in ("vera", "victor")]
    assert annotate("ingest", "verify2", "--run", run_dir, "--sheets", *sheets) == 0
    with ledger.read() as q:
        round2 = {d["item_id"]: (d["decision"], d["reason"]) for d in q.decisions(round=ROUND_VERIFY2)}
    assert round2 == {"00002/q1": (ACCEPTED, "endorsed by vera"), "00003/q3": (ACCEPTED, "endorsed by victor"),
                      "00004/q1": (ACCEPTED, "endorsed by vera"), "00004/q2": (REJECTED, "not endorsed by victor")}

    assert annotate("report", "--run", run_dir, "--json", str(tmp_path / "report.json")) == 0
    text = capsys.readouterr().out
    report = json.load(open(tmp_path / "report.json"))
    # 12 paraphrases: 4 rejected in round 1 (00002/q1, 00004/q1, 00004/q2, 00006/q2), 2 endorsed in round 2,
    # 1 dropped, 1 pending. 6 labels: 1 rejected (00003/q3), endorsed in round 2.
    assert report["funnel"]["paraphrases"] == {
        "annotated": 12, "round1_verified": 12, "round1_accepted": 8, "round1_accept_rate": 66.67,
        "round1_rejected": 4, "round2_verified": 3, "round2_endorsed": 2, "round2_endorse_rate": 66.67,
        "awaiting_round2": 1, "kept": 10, "dropped": 1, "awaiting_round1": 0, "pilot_verified": 0, "pilot_kept": 0}
    assert report["funnel"]["labels"]["kept"] == 6 and report["funnel"]["labels"]["round1_accepted"] == 5
    # Each annotation is kept on its own: 00004 keeps q1 and q3 (q2 dropped), 00006 keeps q1 and q3 (q2 pending).
    assert report["final_rule"] == {"3 of 3 kept": 4, "2 of 3 kept": 2, "1 of 3 kept": 0, "0 of 3 kept": 0}
    assert report["final_triplets"] == 6
    assert "| Round 1: accepted | 8 (66.67%) | 5 (83.33%) |" in text
    assert report["workers"]["alice"] == {"source": "expert", "assignments": 1, "ingested": 1, "answers": 9,
                                          "rows_accepted": 3, "blocked": False}
    assert report["workers"]["victor"]["answers"] == 2

    assert annotate("export", "final", "--run", run_dir) == 0
    records = {r["triplet_id"]: r for r in RunDir(run_dir).iter_records("final_annotations")}
    assert {t: (r["q1_rule"], r["q2_rule"], r["q3_rule"]) for t, r in records.items()} == {
        "00001": ("round1", "round1", "round1"), "00002": ("round2", "round1", "round1"),
        "00003": ("round1", "round1", "round2"), "00004": ("round2", None, "round1"),
        "00005": ("round1", "round1", "round1"), "00006": ("round1", None, "round1")}
    assert records["00002"] == {"triplet_id": "00002", "phrase": "massive figure", "annotator": "alice",
                                "q1": "huge number", "q2": "giant statue", "same_meaning": False,
                                "q1_rule": "round2", "q2_rule": "round1", "q3_rule": "round1",
                                "ps_q1": None, "ps_q1_phrase": None, "ps_q2": None, "ps_q2_phrase": None}
    assert (records["00004"]["q1"], records["00004"]["q2"], records["00004"]["same_meaning"]) == (
        "gentle playing style", None, False)
    manifest = RunDir(run_dir).read_manifest("final_annotations")
    assert manifest["records"] == 6 and manifest["counters"]["final_annotations/kept_q1_round2"] == 2
    assert manifest["counters"]["final_annotations/kept_q2_round1"] == 4
    # the ledger's summary kept for the release's croissant.json: the same funnel as the report, and the RAI text
    assert manifest["annotation"]["funnel"] == report["funnel"] and "alice" in manifest["annotation"]["experts"]
    rai = annotation_rai(manifest)
    # round 1's decisions were written through the ledger API, with no answers ingested: the record says so
    assert ("paraphrases: round 1 (no answers ingested) verified 12, accepted 8; round 2 (experts) decided 3, "
            "endorsed 2; kept 10, dropped 1") in rai["dataAnnotationProtocol"]
    assert [row["platform"] for row in manifest["annotation"]["record"]] == [
        "expert sheets (CSV/XLSX) ingested by picforge"] * 2  # round 0 (alice, bob) and round 2 (vera, victor)
    assert "review rejected 4 paraphrases in round 1 and dropped 1 after round 2" in rai["dataAnnotationAnalysis"]
    gold = manifest["annotation"]["gold"]
    assert rai["dataAnnotationAnalysis"][0] == (f"gold check questions in round 1: {gold['right']} of {gold['scored']} "
                                                f"answered right ({gold['accuracy']}%)" if gold["scored"] else
                                                "round 1 asked no gold check question")
    assert annotate("export", "final", "--run", run_dir) == 0
    assert "6 records up to date" in capsys.readouterr().out


# First-pass answers per PS item (A1, A2) and tie-break answers (A3). Kept: q1 of 00001, 00002, 00003, 00005 and
# 00006 (its q2 awaits round 2), q2 with a Q3 = N label of 00001, 00002 and 00003 (00005 has Q3 = Y; 00004 keeps only
# its label): 5 positives and 3 negatives.
A1 = {"00001/ps_pos": ("Y", ""), "00001/ps_neg": ("Y", ""), "00002/ps_pos": ("N", "large total"),
      "00002/ps_neg": ("N", ""), "00003/ps_pos": ("Y", ""), "00003/ps_neg": ("N", "policy reversal"),
      "00005/ps_pos": ("Y", ""), "00006/ps_pos": ("Y", "")}
A2 = {"00001/ps_pos": ("Y", ""), "00001/ps_neg": ("N", ""), "00002/ps_pos": ("N", "large total"),
      "00002/ps_neg": ("N", ""), "00003/ps_pos": ("N", "quick bend"), "00003/ps_neg": ("Y", ""),
      "00005/ps_pos": ("Y", ""), "00006/ps_pos": ("Y", "")}
A3 = {"00001/ps_neg": ("Y", "", ""), "00003/ps_pos": ("N", "", "Y"), "00003/ps_neg": ("N", "N", "")}


def test_ps_verification_kappa_and_final_flags(annotate, annotated, ledger, tmp_path, capsys):
    run_dir = annotated
    with ledger.transaction() as tx:        # round 2 endorses 00002/q1 and 00003/q3
        for iid in ("00002/q1", "00003/q3"):
            tx.add_batch("verify2-manual", "verify2", round=ROUND_VERIFY2)
            tx.record_decision(iid, ROUND_VERIFY2, ACCEPTED, reason="endorsed by vera")
    assert annotate("export", "ps-verify", "--run", run_dir, "--experts", "ann,ben") == 0
    out = f"{run_dir}/annotation/ps-verify"
    first = read_csv(f"{out}/ps-verify-A1-ann-001.csv")
    assert [r["item_id"] for r in first] == sorted(A1)
    assert [r["item_id"] for r in read_csv(f"{out}/ps-verify-A2-ben-001.csv")] == sorted(A1)
    negative = next(r for r in first if r["item_id"] == "00003/ps_neg")
    assert (negative["pair"], negative["paraphrase"]) == ("negative", "sudden change")
    assert negative["sentence"] == "A **sharp turn** follows the bridge." and "**sharp turn**" in negative["passage2"]

    def votes(answers):
        return {k: {"endorse": e, "correction": c} for k, (e, c) in answers.items()}

    sheets = [answer_sheet(f"{out}/ps-verify-A1-ann-001.csv", votes(A1), tmp_path, "a1.csv"),
              answer_sheet(f"{out}/ps-verify-A2-ben-001.csv", votes(A2), tmp_path, "a2.csv")]
    assert annotate("ingest", "ps-verify", "--run", run_dir, "--sheets", *sheets) == 0
    printed = capsys.readouterr().out
    # Decided without A3: 00001/ps_pos, 00005/ps_pos, 00006/ps_pos (both Y), 00002/ps_pos (same correction),
    # 00002/ps_neg (both N, no correction). Kappa on endorse, items in sheet order: A1 = YYNNNYYY, A2 = NYNNYNYY;
    # p_o = 5/8, p_e = 5/8·4/8 + 3/8·4/8 = 1/2, kappa = (5/8 − 1/2) / (1 − 1/2) = 1/4.
    assert "16 rows recorded: 4 pairs accepted, 1 rejected, 3 need A3" in printed
    assert "A1–A2: 5 of 8 agree, Cohen's kappa 0.250" in printed
    hints = [line for line in printed.split("A1–A2:", 1)[1].splitlines() if line.startswith("next:")]
    assert (f"next: picforge annotate export ps-verify --run {run_dir} --tiebreak A3   (3 pair(s) A1 and A2 disagree "
            "on or corrected)") in hints
    assert not any("ingest ps-verify" in line for line in hints)   # nothing waits for A1 or A2

    assert annotate("export", "ps-verify", "--run", run_dir, "--tiebreak", "cyd") == 0
    tiebreak = read_csv(f"{out}/ps-verify-A3-cyd-001.csv")
    assert [r["item_id"] for r in tiebreak] == sorted(A3)
    assert tiebreak[2]["correction_A2"] == "quick bend" and tiebreak[2]["correction_A1"] == ""
    bad = answer_sheet(f"{out}/ps-verify-A3-cyd-001.csv", {
        k: {"endorse_original": "Y", "endorse_correction_A1": "Y", "endorse_correction_A2": ""} for k in A3},
        tmp_path, "bad-a3.csv")
    assert annotate("ingest", "ps-verify", "--run", run_dir, "--sheets", bad) == 2
    err = capsys.readouterr().err
    assert "bad-a3.csv: row 2, column endorse_correction_A1: A1 made no correction; leave it empty" in err
    assert "bad-a3.csv: row 4, column endorse_correction_A2: '' is not Y or N" in err
    a3 = answer_sheet(f"{out}/ps-verify-A3-cyd-001.csv", {
        k: {"endorse_original": o, "endorse_correction_A1": c1, "endorse_correction_A2": c2}
        for k, (o, c1, c2) in A3.items()}, tmp_path, "a3.csv")
    assert annotate("ingest", "ps-verify", "--run", run_dir, "--sheets", a3) == 0
    with ledger.read() as q:
        ps = {d["item_id"]: (d["decision"], d["detail"]["text"], d["detail"]["endorsed_by"])
              for d in q.decisions(round=ROUND_PS)}
    assert ps == {
        "00001/ps_pos": (ACCEPTED, "unenthusiastic response", ["A1", "A2"]),
        "00001/ps_neg": (ACCEPTED, "chilly entrance room", ["A1", "A3"]),
        "00002/ps_pos": (ACCEPTED, "large total", ["A1", "A2"]),
        "00002/ps_neg": (REJECTED, "", []),
        "00003/ps_pos": (ACCEPTED, "quick bend", ["A2", "A3"]),
        "00003/ps_neg": (REJECTED, "", []),
        "00005/ps_pos": (ACCEPTED, "first version", ["A1", "A2"]),
        "00006/ps_pos": (ACCEPTED, "serious wound", ["A1", "A2"]),
    }
    assert annotate("report", "--run", run_dir) == 0
    report = capsys.readouterr().out
    assert "| positive | 5 | 3 | 2 | 0 |" in report and "| negative | 3 | 1 | 0 | 2 |" in report
    assert "Cohen's kappa 0.250" in report

    assert annotate("export", "final", "--run", run_dir) == 0
    records = {r["triplet_id"]: r for r in RunDir(run_dir).iter_records("final_annotations")}
    # A correction replaces the paraphrase in its PS pair only; PR keeps the expert's kept paraphrase.
    assert [records["00002"][k] for k in ("q1", "ps_q1", "ps_q1_phrase", "ps_q2", "ps_q2_phrase")] == [
        "huge number", True, "large total", False, None]
    assert [records["00003"][k] for k in ("q1", "ps_q1", "ps_q1_phrase", "ps_q2")] == [
        "abrupt bend", True, "quick bend", False]
    assert [records["00005"][k] for k in ("ps_q1", "ps_q1_phrase", "ps_q2")] == [True, "first version", None]


def test_an_edited_sheet_cannot_replace_verified_text(annotate, annotated, ledger, tmp_path, capsys):
    out = f"{annotated}/annotation/expert"
    with ledger.read() as q:
        before = q.dump()
    edited = filled(f"{out}/expert-alice-001.csv", **{"00001": ("never verified words", "chilly entrance room", "N")})
    assert annotate("ingest", "expert", "--run", annotated, "--no-grammar",
                    "--sheets", write_csv(tmp_path / "alice-edited.csv", edited)) == 2
    err = capsys.readouterr().err
    assert "alice-edited.csv: row 2, column Q1 (triplet 00001)" in err and "'never verified words'" in err
    assert "put the verified text back in the sheet (nothing was recorded)" in err
    with ledger.read() as q:
        assert q.dump() == before
    # The unchanged sheet re-ingests as before.
    assert annotate("ingest", "expert", "--run", annotated, "--no-grammar",
                    "--sheets", write_csv(tmp_path / "alice-again.csv", filled(f"{out}/expert-alice-001.csv"))) == 0


def test_trace_names_the_rounds_people_and_files_behind_a_released_id(annotate, annotated, ledger, capsys):
    capsys.readouterr()
    assert annotate("trace", "--run", annotated, "--id", "00002-1") == 0
    out = capsys.readouterr().out
    assert out.startswith("triplet 00002: phrase ")
    assert "  q1:\n    expert sheet" not in out          # round 0 is recorded on the triplet item
    assert "round 1 (MTurk): rejected by review" in out and "2 of 3 workers disagree" in out
    assert "expert sheet: accepted by ingest expert" in out
    assert "answer 'huge number' from alice (assignment expert-alice-001/sheet" in out and "alice.csv" in out
    assert annotate("trace", "--run", annotated, "--id", "t-not-there") == 2
    assert "no expert annotation of triplet t-not-there" in capsys.readouterr().err


def test_balance_says_how_many_positives_it_leaves_unverified(annotate, annotated, ledger, capsys):
    capsys.readouterr()
    assert annotate("export", "ps-verify", "--run", annotated, "--experts", "ida,jo", "--balance") == 0
    out = capsys.readouterr().out
    with ledger.read() as q:
        assert len(q.items(kind="ps_pos")) == len(q.items(kind="ps_neg")) == 2
    assert "--balance left 2 positive pair(s) out (as many positives as negatives, seed 0)" in out
    assert "export again without --balance to verify them" in out


def test_a_blank_round2_row_can_be_reassigned_to_another_verifier(annotate, annotated, ledger, tmp_path, capsys):
    assert annotate("export", "verify2", "--run", annotated, "--verifiers", "vera") == 0
    out = f"{annotated}/annotation/verify2"
    answers = {k: {"answer": v} for k, v in {**ROUND2_ANSWERS, "00003/q3": "n", "00004/q2": "N"}.items()}
    sheet = answer_sheet(f"{out}/verify2-vera-001.csv", answers, tmp_path, "vera.csv")
    assert annotate("ingest", "verify2", "--run", annotated, "--sheets", sheet) == 0
    capsys.readouterr()
    assert annotate("reassign", "--run", annotated, "--batch", "verify2-vera-001") == 0
    assert "1 row(s) released for another annotator: 00006/q2" in capsys.readouterr().out
    assert annotate("export", "verify2", "--run", annotated, "--verifiers", "wes") == 0
    assert [r["item_id"] for r in read_csv(f"{out}/verify2-wes-001.csv")] == ["00006/q2"]
    assert annotate("reassign", "--run", annotated, "--batch", "verify2-vera-001", "--rows", "00002/q1") == 2
    assert "was answered; only blank or unfixed rows can be reassigned" in capsys.readouterr().err
