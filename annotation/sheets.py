"""Annotation sheets as CSV and XLSX: write them for people, read them back however Excel left them."""
import codecs
import csv
import dataclasses
import io
import os
import re

import openpyxl
from openpyxl.cell.rich_text import CellRichText, TextBlock
from openpyxl.cell.text import InlineFont
from openpyxl.styles import Alignment, Font, NamedStyle

from picforge.errors import InputError

HIGHLIGHT = "**"
_HIGHLIGHTED = re.compile(re.escape(HIGHLIGHT) + r"(.+?)" + re.escape(HIGHLIGHT), re.DOTALL)
_PHRASE_FONT = InlineFont(b=True, color="C00000")
WIDE_COLUMN_CHARS = 80
# Every cell: text format (Excel must not turn ids into numbers), wrapped, top-aligned.
TEXT_STYLE = NamedStyle(name="picforge text", number_format="@",
                        alignment=Alignment(wrap_text=True, vertical="top"))


@dataclasses.dataclass
class Sheet:
    """Rows read from one sheet file: `rows` is [(spreadsheet row number, {column: text})]."""
    path: str
    columns: list
    rows: list


def write_sheet(base_path, columns, rows):
    """Write `rows` (dicts) as `base_path.csv` (UTF-8 with BOM, for Excel) and `base_path.xlsx`.

    In the XLSX, text between ** marks is shown in bold red instead. Returns the two paths.
    """
    os.makedirs(os.path.dirname(base_path) or ".", exist_ok=True)
    csv_path, xlsx_path = base_path + ".csv", base_path + ".xlsx"
    with open(csv_path, "w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    book = openpyxl.Workbook()
    book.add_named_style(TEXT_STYLE)
    sheet = book.active
    sheet.title = "annotations"
    sheet.append(columns)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row_no, row in enumerate(rows, start=2):
        for col_no, column in enumerate(columns, start=1):
            cell = sheet.cell(row=row_no, column=col_no)
            cell.value = _rich(str(row.get(column, "") or ""))
            cell.style = TEXT_STYLE.name
    for col_no, column in enumerate(columns, start=1):
        longest = max([len(column)] + [len(str(r.get(column, "") or "")) for r in rows])
        sheet.column_dimensions[openpyxl.utils.get_column_letter(col_no)].width = min(longest + 2,
                                                                                       WIDE_COLUMN_CHARS)
    sheet.freeze_panes = "A2"
    book.save(xlsx_path)
    return csv_path, xlsx_path


def _rich(text):
    """Plain text, or rich text with the **highlighted** parts bold red."""
    if HIGHLIGHT not in text:
        return text
    parts, last = CellRichText(), 0
    for found in _HIGHLIGHTED.finditer(text):
        if found.start() > last:
            parts.append(text[last:found.start()])
        parts.append(TextBlock(_PHRASE_FONT, found.group(1)))
        last = found.end()
    if last < len(text):
        parts.append(text[last:])
    return parts


def read_sheet(path, required, optional=()):
    """Read a returned sheet (.csv or .xlsx) and check that it has the `required` columns.

    Handles a UTF-8 BOM, Excel's cp1252 and UTF-16 CSV, `;` or tab delimiters, padded headers,
    blank rows and empty trailing columns. Row numbers are those a spreadsheet shows (header = 1).
    Required and `optional` columns are found whatever their case and appear under the given names.
    """
    if path.lower().endswith((".xlsx", ".xlsm")):
        header, body = _xlsx_rows(path)
    else:
        header, body = _csv_rows(path)
    columns = [_clean(h) for h in header]
    by_name = {c.casefold(): i for i, c in enumerate(columns) if c}
    missing = [c for c in required if c.casefold() not in by_name]
    if missing:
        raise InputError(f"{path}: row 1: missing column(s) {', '.join(missing)}; the header must "
                         f"contain {', '.join(required)} (found {', '.join(c for c in columns if c) or 'none'}); "
                         "restore the header from the exported sheet")
    named = {c: i for i, c in enumerate(columns) if c}
    rows = []
    for row_no, values in body:
        cells = [_clean(v) for v in values]
        if not any(cells):
            continue
        row = {c: (cells[i] if i < len(cells) else "") for c, i in named.items()}
        for name in (*required, *optional):
            if name.casefold() in by_name:
                row[name] = row.get(columns[by_name[name.casefold()]], "")
        rows.append((row_no, row))
    return Sheet(path, [c for c in columns if c], rows)


def resolve_id(raw, known):
    """The id in `known` that a sheet cell means: itself, or the id Excel turned into a number
    (leading zeros dropped, `1.2E+04`); None when it names no known id."""
    if raw in known:
        return raw
    try:
        number = float(raw)
    except ValueError:
        return None
    matches = [k for k in known if k.isdigit() and number.is_integer() and int(k) == int(number)]
    return matches[0] if len(matches) == 1 else None


def _clean(value):
    """A cell as text: numbers Excel made of ids back to digits, whitespace (and NBSP) collapsed, NUL
    characters (invisible in a spreadsheet; no PostgreSQL text holds them) dropped."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return " ".join(str(value).replace("\u00a0", " ").replace("\x00", "").split())


def _decode(raw, path):
    """Text of a CSV saved as UTF-8 (with or without BOM), UTF-16 (Excel 'Unicode text') or cp1252."""
    if raw.startswith(codecs.BOM_UTF8):
        return raw[len(codecs.BOM_UTF8):].decode("utf-8")
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return raw.decode("utf-16")
    for encoding in ("utf-8", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise InputError(f"{path}: not UTF-8, UTF-16 or Windows-1252 text; save it as 'CSV UTF-8' or XLSX")


def _csv_rows(path):
    with open(path, "rb") as fh:
        text = _decode(fh.read(), path)
    first_line = text.split("\n", 1)[0]
    delimiter = max(",;\t", key=first_line.count) if any(d in first_line for d in ",;\t") else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows = list(reader)
    if not rows:
        raise InputError(f"{path}: the file is empty; return the sheet with its header row")
    return rows[0], list(enumerate(rows[1:], start=2))


def _xlsx_rows(path):
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as err:  # openpyxl raises several types for damaged files
        raise InputError(f"{path}: not a readable XLSX workbook ({err}); re-save it from Excel") from err
    sheet = book["annotations"] if "annotations" in book.sheetnames else book.worksheets[0]
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]
    book.close()
    if not rows:
        raise InputError(f"{path}: the workbook's first sheet is empty; return the sheet with its header row")
    return rows[0], list(enumerate(rows[1:], start=2))
