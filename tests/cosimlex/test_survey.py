"""The expert survey sheet: written as CSV/XLSX, filled in, read back with deletion-only edits."""
import csv

import openpyxl
import pytest

from companions.cosimlex.survey import SHEET_COLUMNS, deletion_spans, merge_selections, read_selection, sheet_rows
from picforge.errors import InputError
from picforge.sheets import read_sheet, write_sheet


def candidate(pair_no, word1, word2, n, text):
    start1, start2 = text.index(word1), text.index(word2)
    return {"context_id": f"{word1}|{word2}@{n}:0", "pair_id": f"{word1}|{word2}", "pair_no": pair_no,
            "word1": word1, "word2": word2, "pos": "N", "simlex": 5.0, "page_id": n, "context": text,
            "word1_start": start1, "word1_end": start1 + len(word1), "word2_start": start2,
            "word2_end": start2 + len(word2)}


CANDIDATES = [
    candidate(0, "cup", "mug", 1, "A cup of tea (very hot) stood next to a mug of coffee."),
    candidate(0, "cup", "mug", 2, "He won the cup and drank from a mug."),
    candidate(0, "cup", "mug", 3, "The cup was blue; the mug was red."),
    candidate(1, "car", "bicycle", 4, "The car overtook a bicycle."),
    candidate(1, "car", "bicycle", 5, "A bicycle is cheaper than a car."),
]
BY_ID = {c["context_id"]: c for c in CANDIDATES}


def test_deletions_move_the_word_spans_and_anything_else_is_refused():
    original = "A cup of tea (very hot) stood next to a mug of coffee."
    spans = [(2, 5), (40, 43)]
    assert deletion_spans(original, "A cup of tea stood next to a mug.", spans) == [(2, 5), (29, 32)]
    assert deletion_spans(original, "A cup of green tea stood next to a mug.", spans) is None  # added
    assert deletion_spans(original, "A cup of tea stood next to a mu.", spans) is None  # cut the word
    assert deletion_spans(original, "A cup of tea stood next to amug.", spans) is None  # glued to a word


def fill(rows, answers):
    """Rows of the exported sheet with the expert's answers {(pair_id, option): {column: value}}."""
    for row in rows:
        row.update(answers.get((row["pair_id"], row["option"]), {}))
    return rows


def option_of(rows, context_id):
    return next(r["option"] for r in rows if r["candidate_id"] == context_id)


def test_sheet_round_trip_through_csv_and_xlsx(tmp_path):
    rows = sheet_rows(CANDIDATES)
    assert [r["pair_id"] for r in rows] == ["cup|mug"] * 3 + ["car|bicycle"] * 2
    first, second = option_of(rows, "cup|mug@1:0"), option_of(rows, "cup|mug@2:0")
    fill(rows, {("cup|mug", first): {"choice": "Most", "edited_context": "A cup of tea stood next to a mug."},
                ("cup|mug", second): {"choice": "least", "expected_difference": "2"}})
    csv_path, xlsx_path = write_sheet(str(tmp_path / "selection-ana"), SHEET_COLUMNS, rows, title="selection",
                                      bold="context")
    book = openpyxl.load_workbook(xlsx_path, rich_text=True)
    bold = [block.text for block in book.active["F2"].value if hasattr(block, "font") and block.font.b]
    assert bold == ["cup", "mug"]  # every cup|mug candidate names cup first
    for path in (csv_path, xlsx_path):
        (selection,) = read_selection(read_sheet(path, SHEET_COLUMNS).rows, BY_ID, path, "ana")
        assert selection["pair_id"] == "cup|mug" and selection["expected_difference"] == 2
        contexts = {selection["context1"]["candidate_id"]: selection["context1"],
                    selection["context2"]["candidate_id"]: selection["context2"]}
        edited = contexts["cup|mug@1:0"]
        assert edited["text"] == "A cup of tea stood next to a mug." and edited["edited"] is True
        assert edited["text"][edited["word2_start"]:edited["word2_end"]] == "mug"
        assert contexts["cup|mug@2:0"]["edited"] is False
        most = 1 if selection["context1"]["candidate_id"] == "cup|mug@1:0" else 2
        assert selection["expected_more_similar"] == most


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=SHEET_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


@pytest.mark.parametrize("change, message", [
    ({("cup|mug", 1): {"choice": "most"}, ("cup|mug", 2): {"choice": "most", "expected_difference": "1"}},
     "row 3 column choice: a second 'most'"),
    ({("cup|mug", 1): {"choice": "most", "expected_difference": "1"}}, "has only a 'most' choice"),
    ({("cup|mug", 1): {"choice": "most"}, ("cup|mug", 2): {"choice": "least"}}, "needs exactly one value 0-3"),
    ({("cup|mug", 1): {"choice": "most"}, ("cup|mug", 2): {"choice": "least", "expected_difference": "5"}},
     "needs exactly one value 0-3"),
    ({("cup|mug", 1): {"choice": "maybe"}}, "row 2 column choice: 'maybe'"),
    ({("cup|mug", 1): {"candidate_id": "cup|mug@99:0"}}, "row 2 column candidate_id: unknown id"),
    ({("cup|mug", 1): {"context": "Rewritten."}}, "row 2: pair_id or context differs"),
    ({("cup|mug", 1): {"choice": "most", "edited_context": "A cup of cocoa next to a mug."},
      ("cup|mug", 2): {"choice": "least", "expected_difference": "1"}}, "more than deletions"),
])
def test_sheet_problems_name_file_row_and_column(tmp_path, change, message):
    path = tmp_path / "filled.csv"
    write_csv(path, fill(sheet_rows(CANDIDATES), change))
    with pytest.raises(InputError, match=message) as caught:
        read_selection(read_sheet(str(path), SHEET_COLUMNS).rows, BY_ID, str(path), "ana")
    assert str(path) in str(caught.value)


def test_missing_column_and_left_out_pairs(tmp_path):
    path = tmp_path / "cut.csv"
    path.write_text("pair_id,word1,word2\ncup|mug,cup,mug\n", encoding="utf-8")
    with pytest.raises(InputError, match="row 1: missing column"):
        read_sheet(str(path), SHEET_COLUMNS).rows
    untouched = tmp_path / "untouched.csv"
    write_csv(untouched, sheet_rows(CANDIDATES))
    assert read_selection(read_sheet(str(untouched), SHEET_COLUMNS).rows, BY_ID, str(untouched), "ana") == []


def test_reingesting_is_a_no_op_and_changed_answers_need_replace(tmp_path):
    rows = sheet_rows(CANDIDATES)
    answers = {("car|bicycle", 1): {"choice": "most", "expected_difference": "1"},
               ("car|bicycle", 2): {"choice": "least"}}
    path = tmp_path / "a.csv"
    write_csv(path, fill(rows, answers))
    first = read_selection(read_sheet(str(path), SHEET_COLUMNS).rows, BY_ID, str(path), "ana")
    assert merge_selections(first, first, replace=False) == first
    changed = [dict(first[0], expected_difference=3, sheet="b.csv")]
    with pytest.raises(InputError, match="already ingested with other answers from .*a.csv; pass --replace"):
        merge_selections(first, changed, replace=False)
    assert merge_selections(first, changed, replace=True) == changed
