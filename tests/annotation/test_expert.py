"""Expert round: sheets out (CSV, XLSX, guidelines), validated answers and fix-lists back in."""
import os

import openpyxl
import pytest
from openpyxl.cell.rich_text import CellRichText

from annotation import expert, guidelines
from picforge.ledger import LEDGER_VARIABLE
from picforge.ledger import ROUND_EXPERT, Ledger
import picforge.cli
from picforge import schemas, sheets
from picforge.errors import InputError
from tests.annotation.conftest import good_answers, ledger_option, read_csv, write_csv


def export(annotate, run_dir, names="alice,bob", per=3, ledger_url=None):
    assert annotate("export", "expert", "--run", run_dir, *ledger_option(ledger_url), "--annotators", names,
                    "--per-annotator", str(per)) == 0
    return f"{run_dir}/annotation/expert"


def filled(path, answers=None, **overrides):
    """The exported CSV rows with answers filled in; overrides {triplet_id: (Q1, Q2, Q3)}."""
    rows = read_csv(path)
    for row in rows:
        row["Q1"], row["Q2"], row["Q3"] = {**good_answers(), **(answers or {}), **overrides}[row["triplet_id"]]
    return rows


def test_export_writes_one_sheet_per_annotator_and_records_batches(annotate, run_dir, ledger, capsys):
    out = export(annotate, run_dir, per=2)
    alice = read_csv(f"{out}/expert-alice-001.csv")
    assert [r["triplet_id"] for r in alice] == ["00001", "00002"]
    assert list(alice[0]) == expert.SHEET_COLUMNS
    assert alice[0]["passage1"] == ("The film opened in March. Critics had high hopes. It met a **cold reception** "
                                    "from the press. Ticket sales fell quickly. The studio cut its budget.")
    assert alice[0]["Q1"] == alice[0]["Q2"] == alice[0]["Q3"] == ""
    assert [r["triplet_id"] for r in read_csv(f"{out}/expert-bob-001.csv")] == ["00003", "00004"]
    sheet = openpyxl.load_workbook(f"{out}/expert-alice-001.xlsx", rich_text=True)["annotations"]
    cell = sheet.cell(row=2, column=expert.SHEET_COLUMNS.index("passage1") + 1).value
    assert isinstance(cell, CellRichText)
    assert sheet.cell(row=2, column=2).number_format == "@"          # ids stay text in Excel
    bold = [part for part in cell if not isinstance(part, str)]
    assert [b.text for b in bold] == ["cold reception"] and bold[0].font.b
    assert "<script>alert(1)</script>" in str(sheet.cell(row=3, column=5).value)   # kept as text
    assert open(f"{out}/expert_guidelines.md").read().startswith("# Phrase-in-context annotation")
    assert "<h2>Rules for paraphrases</h2>" in open(f"{out}/expert_guidelines.html").read()
    with ledger.read() as q:
        batches = q.batches(kind="expert")
        assert [(b["batch_id"], b["meta"]["annotator"]) for b in batches] == [
            ("expert-alice-001", "alice"), ("expert-bob-001", "bob")]
        assert [i["triplet_id"] for i in q.items(batch_id="expert-bob-001")] == ["00003", "00004"]
    export(annotate, run_dir, names="alice", per=5)          # the next unassigned triplets only
    assert [r["triplet_id"] for r in read_csv(f"{out}/expert-alice-002.csv")] == ["00005", "00006"]
    capsys.readouterr()
    assert annotate("export", "expert", "--run", run_dir, "--annotators", "carol", "--per-annotator", "1") == 0
    assert capsys.readouterr().out == (f"picforge: {run_dir}: nothing to export: every triplet of stage select "
                                       "is in an expert batch\n")


def test_guidelines_html_escapes_text():
    page = guidelines.markdown_to_html("# T <b>\n\nA passage: <script>alert(1)</script> and **bold**", "T")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<strong>bold</strong>" in page and "<h1>T &lt;b&gt;</h1>" in page


def test_validate_answers_rules():
    problems = expert.validate_answers("massive figure", "huge", "massive figure", "maybe")
    assert [(p.column, p.severity) for p in problems] == [("Q1", "fix"), ("Q2", "fix"), ("Q3", "fix")]
    assert "fewer than 2 words" in problems[0].message and "repeats the phrase" in problems[1].message
    assert problems[2].message == "Q3 must be Y or N, not 'maybe'"
    checks = expert.validate_answers("massive figure", "massive number", "giant number", "N")
    assert [(p.column, p.severity, p.message) for p in checks] == [
        ("Q1", "check", "Q1 'massive number' reuses massive from the phrase"),
        ("Q2", "check", "Q1 and Q2 share number")]
    assert expert.validate_answers("massive figure", "", "giant statue", "y")[0].message.startswith("Q1 is empty")


def test_ingest_records_annotations_decisions_and_fixlists(annotate, run_dir, ledger, tmp_path, capsys):
    out = export(annotate, run_dir)
    sheet = write_csv(tmp_path / "alice.csv", filled(f"{out}/expert-alice-001.csv", **{
        "00002": ("huge number", "massive statue", "maybe"),   # Q3 bad (fix) + overlap with p (check)
        "00003": ("", "sudden change", "N"),                   # empty paraphrase
    }))
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", sheet) == 0
    assert "alice: 3 rows, 1 accepted, 2 to fix, 1 with checks, 0 blank" in capsys.readouterr().out
    fixes = read_csv(f"{out}/fixlists/fixes-alice.csv")
    assert [(f["triplet_id"], f["row"], f["column"], f["severity"]) for f in fixes] == [
        ("00002", "3", "Q2", "check"), ("00002", "3", "Q3", "fix"), ("00003", "4", "Q1", "fix")]
    assert "| alice.csv | 4 | 00003 | Q1 | fix | Q1 is empty" in open(f"{out}/fixlists/fixes-alice.md").read()
    with ledger.read() as q:
        assert [a["triplet_id"] for a in q.expert_annotations()] == ["00001"]
        annotation = q.expert_annotations()[0]
        assert (annotation["annotator"], annotation["q1"], annotation["same_meaning"]) == (
            "alice", "unenthusiastic response", False)
        decisions = {d["triplet_id"]: d for d in q.decisions(round=ROUND_EXPERT)}
        assert decisions["00002"]["decision"] == "rejected" and "maybe" in decisions["00002"]["reason"]
        before = q.dump(with_times=True)
    # The same file again changes nothing at all.
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", sheet) == 0
    with ledger.read() as q:
        assert q.dump(with_times=True) == before
    # The corrected sheet: both rows accepted, the fix-list emptied, the answers replaced.
    corrected = write_csv(tmp_path / "alice-fixed.csv", filled(f"{out}/expert-alice-001.csv"))
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", corrected) == 0
    assert read_csv(f"{out}/fixlists/fixes-alice.csv") == []
    with ledger.read() as q:
        assert [a["triplet_id"] for a in q.expert_annotations()] == ["00001", "00002", "00003"]
        answers = {a["field"]: a["value"] for a in q.answers("expert-alice-001/sheet")}
        assert answers["00002/Q3"] == "N" and len(answers) == 9


def test_blank_rows_are_skipped_not_rejected(annotate, run_dir, ledger, tmp_path):
    out = export(annotate, run_dir)
    rows = filled(f"{out}/expert-bob-001.csv", **{"00005": ("", "", "")})
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", write_csv(tmp_path / "b.csv", rows)) == 0
    with ledger.read() as q:
        assert sorted(d["triplet_id"] for d in q.decisions(round=ROUND_EXPERT)) == ["00004", "00006"]


@pytest.mark.parametrize("mutate, message", [
    (lambda rows: [{k: v for k, v in r.items() if k != "Q3"} for r in rows],
     r"bad\.csv: row 1: missing column\(s\) Q3"),
    (lambda rows: [dict(r, triplet_id="99999") if i == 1 else r for i, r in enumerate(rows)],
     r"bad\.csv: row 3, column triplet_id: '99999' was not exported in batch expert-alice-001"),
    (lambda rows: rows + [rows[0]],
     r"bad\.csv: row 5, column triplet_id: duplicate of .*bad\.csv row 2 for '00001'"),
    (lambda rows: [dict(r, batch_id="expert-zed-001") for r in rows],
     r"bad\.csv: row 2, column batch_id: 'expert-zed-001' is not a expert batch"),
])
def test_bad_sheets_are_refused_with_file_row_and_column(annotate, run_dir, ledger, tmp_path, capsys,
                                                         mutate, message):
    out = export(annotate, run_dir)
    rows = mutate(filled(f"{out}/expert-alice-001.csv"))
    sheet = write_csv(tmp_path / "bad.csv", rows, columns=list(rows[0]))
    with ledger.read() as q:
        before = q.dump(with_times=True)
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", sheet) == 2
    assert capsys.readouterr().err.startswith("picforge: error: ")
    with pytest.raises(InputError, match=message):
        expert.ingest_expert(ledger, run_dir, [sheet], str(tmp_path / "fix"))
    with ledger.read() as q:
        assert q.dump(with_times=True) == before           # nothing written


def test_utf8_bom_excel_mangled_csv_and_xlsx_are_read(annotate, run_dir, ledger, tmp_path):
    out = export(annotate, run_dir)
    # Alice's sheet saved by Excel in a European locale: cp1252, ';', CRLF, zeros stripped from ids,
    # padded header names, an empty trailing column and a blank row.
    rows = filled(f"{out}/expert-alice-001.csv", **{"00001": ("lukewarm café welcome", "chilly entrance room", " n ")})
    lines = [";".join([" batch_id ", "triplet_id", "Q1 ", "Q2", "Q3", ""])]
    lines += [";".join([r["batch_id"], str(int(r["triplet_id"])), r["Q1"], r["Q2"], r["Q3"], ""]) for r in rows]
    lines.insert(2, ";;;;;")
    mangled = tmp_path / "alice-excel.csv"
    mangled.write_bytes("\r\n".join(lines).encode("cp1252") + b"\r\n")
    # Bob's sheet with a UTF-8 BOM (Excel's "CSV UTF-8") and a stray NUL character (which PostgreSQL refuses).
    bob = filled(f"{out}/expert-bob-001.csv", **{"00004": ("gentle\x00 playing style", "lenient oversight", "N")})
    bom = write_csv(tmp_path / "bob-bom.csv", bob, encoding="utf-8-sig")
    assert open(bom, "rb").read(3) == b"\xef\xbb\xbf"
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", str(mangled), bom) == 2  # not UTF-8
    assert picforge.cli.main(["--encoding", "cp1252", "annotate", "ingest", "expert", "--run", run_dir,
                              "--no-grammar", "--sheets", str(mangled), bom]) == 0
    with ledger.read() as q:
        annotations = {a["triplet_id"]: a for a in q.expert_annotations()}
    assert sorted(annotations) == ["00001", "00002", "00003", "00004", "00005", "00006"]
    assert annotations["00001"]["q1"] == "lukewarm café welcome"
    assert annotations["00004"]["q1"] == "gentle playing style"


def test_xlsx_returned_sheet_is_read(annotate, run_dir, ledger, tmp_path):
    out = export(annotate, run_dir, names="alice", per=2)
    book = openpyxl.load_workbook(f"{out}/expert-alice-001.xlsx")
    sheet = book["annotations"]
    for row_no, triplet_id in ((2, "00001"), (3, "00002")):
        q1, q2, q3 = good_answers()[triplet_id]
        sheet.cell(row=row_no, column=6).value = q1
        sheet.cell(row=row_no, column=7).value = q2
        sheet.cell(row=row_no, column=8).value = q3
    sheet.cell(row=3, column=2).value = 2                    # Excel turned the id into a number
    book.save(tmp_path / "returned.xlsx")
    # The same answers returned twice (as XLSX and as CSV) count once.
    csv_copy = write_csv(tmp_path / "returned.csv", filled(f"{out}/expert-alice-001.csv"))
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", str(tmp_path / "returned.xlsx"),
                    csv_copy) == 0
    with ledger.read() as q:
        assert [a["triplet_id"] for a in q.expert_annotations()] == ["00001", "00002"]


def test_ledger_option_points_at_any_sqlalchemy_url(annotate, run_dir, tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'elsewhere.sqlite'}"
    assert annotate("export", "expert", "--run", run_dir, "--ledger", url, "--annotators", "alice",
                    "--per-annotator", "1") == 0                 # --ledger wins over $PICFORGE_LEDGER too
    assert (tmp_path / "elsewhere.sqlite").exists()
    assert not (tmp_path / "run" / "ledger.sqlite").exists()
    other = Ledger(url)
    with other.read() as q:
        assert [b["batch_id"] for b in q.batches()] == ["expert-alice-001"]
    other.dispose()
    monkeypatch.setenv(LEDGER_VARIABLE, f"sqlite:///{tmp_path / 'from-environment.sqlite'}")
    assert annotate("export", "expert", "--run", run_dir, "--annotators", "bob", "--per-annotator", "1") == 0
    assert (tmp_path / "from-environment.sqlite").exists()
    assert not (tmp_path / "run" / "ledger.sqlite").exists()


@pytest.mark.parametrize("verb, options, message", [
    (["export", "expert"], ["--annotators", "a" * 101], "(at most 100 each)"),
    (["mturk", "export"], ["--batch", "b" * 101, "--gold", "gold.jsonl"], "a batch name of 1 to 100 characters"),
], ids=["annotator", "batch"])
def test_names_too_long_for_a_batch_id_are_refused_before_anything_runs(annotate, run_dir, capsys, verb, options,
                                                                        message):
    with pytest.raises(SystemExit) as refused:
        annotate(*verb, "--run", run_dir, *options)
    assert refused.value.code == 2 and message in capsys.readouterr().err
    assert not os.path.exists(os.path.join(run_dir, "ledger.sqlite"))


def test_expert_annotation_records_match_their_schema(annotate, run_dir, ledger, tmp_path):
    out = export(annotate, run_dir, names="alice", per=2)
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar",
                    "--sheets", write_csv(tmp_path / "a.csv", filled(f"{out}/expert-alice-001.csv"))) == 0
    with ledger.read() as q:
        stored = q.expert_annotations()
    for row in stored:
        record = {k: row[k] for k in ("triplet_id", "annotator", "q1", "q2", "same_meaning")}
        assert schemas.errors("expert_annotation", record) == []
    assert schemas.errors("expert_annotation", {"triplet_id": "1", "annotator": "a", "q1": "", "q2": "x y",
                                                "same_meaning": "N"}) != []


def test_read_sheet_finds_columns_whatever_their_case(tmp_path):
    path = write_csv(tmp_path / "s.csv", [{" BATCH_ID ": "b", "q1": "x y", "Endorse": "Y", "note": "kept"}])
    sheet = sheets.read_sheet(path, ["batch_id", "Q1"], optional=["endorse", "correction"])
    assert sheet.rows == [(2, {"BATCH_ID": "b", "q1": "x y", "Endorse": "Y", "note": "kept", "batch_id": "b",
                               "Q1": "x y", "endorse": "Y"})]


def test_a_fixlist_keeps_the_fixes_of_the_annotators_other_sheets(annotate, run_dir, ledger, tmp_path):
    out = export(annotate, run_dir, names="alice", per=2)
    assert annotate("export", "expert", "--run", run_dir, "--annotators", "alice", "--per-annotator", "2") == 0
    first = filled(f"{out}/expert-alice-001.csv", **{"00001": ("huge", "giant statue", "N")})
    second = filled(f"{out}/expert-alice-002.csv", **{"00003": ("sudden change", "sudden change", "maybe")})
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", write_csv(tmp_path / "a1.csv", first)) == 0
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", write_csv(tmp_path / "a2.csv", second)) == 0
    fixes = read_csv(f"{out}/fixlists/fixes-alice.csv")
    assert sorted({(f["batch_id"], f["triplet_id"]) for f in fixes}) == [
        ("expert-alice-001", "00001"), ("expert-alice-002", "00003")]
    # The first sheet corrected: its fixes go, the second sheet's stay.
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar",
                    "--sheets", write_csv(tmp_path / "a1-fixed.csv", filled(f"{out}/expert-alice-001.csv"))) == 0
    assert {f["batch_id"] for f in read_csv(f"{out}/fixlists/fixes-alice.csv")} == {"expert-alice-002"}


def test_fixlist_cells_never_become_formulas(annotate, run_dir, ledger, tmp_path):
    out = export(annotate, run_dir, names="alice", per=1)
    (triplet_id,) = [r["triplet_id"] for r in read_csv(f"{out}/expert-alice-001.csv")]
    sheet = write_csv(tmp_path / "=cmd.csv", filled(f"{out}/expert-alice-001.csv", **{triplet_id: ("=HYPERLINK", "x y", "N")}))
    assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", sheet) == 0
    raw = open(f"{out}/fixlists/fixes-alice.csv", encoding="utf-8-sig").read()
    assert ",'=cmd.csv," in raw and "\n=" not in raw and ",=" not in raw


def test_hints_name_no_grammar_without_a_server_and_the_report_names_unseen_triplets(annotate, run_dir, capsys,
                                                                                      monkeypatch):
    monkeypatch.delenv("LANGUAGETOOL_URL", raising=False)
    export(annotate, run_dir, per=1)
    hint = next(line for line in capsys.readouterr().out.splitlines() if "annotate ingest expert" in line)
    assert hint.startswith(f"next: picforge annotate ingest expert --run {run_dir} --sheets SHEET… --no-grammar")
    monkeypatch.setenv("LANGUAGETOOL_URL", "http://127.0.0.1:8010")
    assert annotate("report", "--run", run_dir) == 0
    report = capsys.readouterr().out
    assert "--no-grammar" not in report.split("## Next", 1)[1]
    # alice and bob have one triplet each: the other four of the six, best first, wait for an expert.
    assert "Not yet seen by any expert: 4 selected triplet(s) (00003, 00004, 00005, 00006)" in report
