"""Spreadsheets people fill in, as CSV and XLSX (local, gs:// or s3:// paths): written for people, read back
however Excel left them. Untrusted text (Wikipedia, annotators, language models) never becomes a formula:
XLSX text cells are typed as text, and CSV cells starting with = + - @, tab or CR get a leading `'` (OWASP's
rule), which the readers take off again."""
import codecs
import contextlib
import csv
import dataclasses
import io
import json
import re
import zipfile
import zlib

import openpyxl
from openpyxl.cell.rich_text import CellRichText, TextBlock
from openpyxl.cell.text import InlineFont
from openpyxl.styles import Alignment, Font, NamedStyle
from openpyxl.worksheet.datavalidation import DataValidation

from picforge.errors import InputError
from picforge.files import write_atomically

HIGHLIGHT = "**"
_HIGHLIGHTED = re.compile(re.escape(HIGHLIGHT) + r"(.+?)" + re.escape(HIGHLIGHT), re.DOTALL)
_PHRASE_FONT = InlineFont(b=True, color="C00000")
WIDE_COLUMN_CHARS = 80
# Every cell: text format (Excel must not turn ids into numbers), wrapped, top-aligned.
TEXT_STYLE = NamedStyle(name="picforge text", number_format="@",
                        alignment=Alignment(wrap_text=True, vertical="top"))
# First characters that make a spreadsheet read a CSV cell as a formula (OWASP CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


# Bounds on a sheet picforge reads (an export is far smaller): refused at once, naming the file.
MAX_SHEET_BYTES = 64 * 2**20
MAX_SHEET_ROWS = 100_000  # rows, the header included
MAX_CELL_CHARS = 32_767  # a spreadsheet cell's own limit
MAX_UNPACKED_BYTES = 2 * MAX_SHEET_BYTES  # all of an XLSX's zip members unpacked (declared and as read)


@dataclasses.dataclass
class Sheet:
    """Rows read from one sheet file: `rows` is [(spreadsheet row number, {column: text})]."""
    path: str
    columns: list
    rows: list


def neutralise(text):
    """A CSV cell's text that no spreadsheet runs as a formula: `'` before a leading = + - @ tab or CR
    (numbers such as -0.5 stay as they are), and before a `'` that would otherwise be taken off."""
    formula = text.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(text)
    if formula or (text.startswith("'") and neutralise(text[1:]) != text[1:]):
        return "'" + text
    return text


def restore(text):
    """The text `neutralise` was given."""
    return text[1:] if text.startswith("'") and neutralise(text[1:]) == text else text


def csv_text(columns, rows, line_end="\r\n"):
    """Rows (dicts) as CSV text with a header, every cell neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=line_end)
    writer.writerow([neutralise(c) for c in columns])
    writer.writerows([neutralise(_text(row.get(c))) for c in columns] for row in rows)
    return out.getvalue()


def csv_bytes(columns, rows):
    """Rows as UTF-8 CSV with a BOM (so Excel reads accents right), cells neutralised."""
    return codecs.BOM_UTF8 + csv_text(columns, rows).encode("utf-8")


def xlsx_bytes(columns, rows, title="annotations", highlight=False, bold=None, yes_no=()):
    """Rows as an XLSX workbook: every cell text (never a formula), wrapped; a bold header row.

    Options: `highlight` shows text between ** marks in bold red; `bold` names a column whose spans listed
    in row["_bold"] ([start, end) pairs) are bold; `yes_no` columns get a Y/N drop-down.
    """
    check_cells_fit(title, columns, rows)  # Excel would cut a longer cell where no one sees it
    book = openpyxl.Workbook()
    book.add_named_style(TEXT_STYLE)
    sheet = book.active
    sheet.title = title
    sheet.append(columns)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row_no, row in enumerate(rows, start=2):
        for col_no, column in enumerate(columns, start=1):
            cell = sheet.cell(row=row_no, column=col_no)
            text = _text(row.get(column))
            if column == bold and row.get("_bold"):
                cell.value = _spans_bold(text, row["_bold"])
            elif highlight and HIGHLIGHT in text:
                cell.value = _rich(text)
            else:
                cell.value = text
                cell.data_type = "s"  # openpyxl would store "=…" as a formula
            cell.style = TEXT_STYLE.name
    for col_no, column in enumerate(columns, start=1):
        letter = openpyxl.utils.get_column_letter(col_no)
        longest = max([len(column)] + [len(_text(r.get(column))) for r in rows])
        sheet.column_dimensions[letter].width = min(longest + 2, WIDE_COLUMN_CHARS)
        if column in yes_no and rows:
            choice = DataValidation(type="list", formula1='"Y,N"', allow_blank=True)
            sheet.add_data_validation(choice)
            choice.add(f"{letter}2:{letter}{len(rows) + 1}")
    sheet.freeze_panes = "A2"
    data = io.BytesIO()
    book.save(data)
    return data.getvalue()


def write_sheet(base_path, columns, rows, **options):
    """Write `rows` (dicts) as `base_path.csv` and `base_path.xlsx` (options as for xlsx_bytes), each
    atomically; returns the two paths. A cell longer than a spreadsheet shows is refused before anything is
    written: Excel would cut it and the annotator would judge text they never saw whole."""
    csv_path, xlsx_path = base_path + ".csv", base_path + ".xlsx"
    check_cells_fit(base_path, columns, rows)
    write_atomically(csv_path, csv_bytes(columns, rows))
    write_atomically(xlsx_path, xlsx_bytes(columns, rows, **options))
    return csv_path, xlsx_path


def check_cells_fit(where, columns, rows):
    """InputError naming the row and column of the first cell longer than MAX_CELL_CHARS."""
    for row_no, row in enumerate(rows, start=2):
        for column in columns:
            size = len(_text(row.get(column)))
            if size > MAX_CELL_CHARS:
                raise InputError(f"{where}: row {row_no}, column {column}: {size:,} characters, more than a spreadsheet "
                                 f"cell shows ({MAX_CELL_CHARS:,}), so no annotator could read it whole; leave that "
                                 f"record out ({', '.join(f'{k}={row[k]}' for k in columns[:2] if row.get(k))})")


def _text(value):
    return "" if value is None else str(value)


def _rich(text):
    """Rich text with the **highlighted** parts bold red."""
    parts, last = CellRichText(), 0
    for found in _HIGHLIGHTED.finditer(text):
        if found.start() > last:
            parts.append(text[last:found.start()])
        parts.append(TextBlock(_PHRASE_FONT, found.group(1)))
        last = found.end()
    if last < len(text):
        parts.append(text[last:])
    return parts


def _spans_bold(text, spans):
    """Rich text with the [start, end) spans bold."""
    pieces, at = [], 0
    for start, end in sorted(spans):
        pieces += [text[at:start], TextBlock(InlineFont(b=True), text[start:end])]
        at = end
    pieces.append(text[at:])
    return CellRichText([p for p in pieces if p])


def read_bytes(path, limit=MAX_SHEET_BYTES):
    """A file's bytes (local, gs:// or s3://), or a clear error when it is missing, empty or larger than `limit`."""
    from picforge.bounded_read import read_bounded
    data = read_bounded(path, limit, fix="split it, or check that it is the right file")
    if not data:
        raise InputError(f"{path}: an empty file; give the file with its records (nothing was read)")
    return data


def _bounded(path, rows):
    """The (row number, cells) of `rows` (the header included), refused at once past MAX_SHEET_ROWS rows or
    MAX_CELL_CHARS in a cell."""
    for count, (row_no, cells) in enumerate(rows, start=1):
        if count > MAX_SHEET_ROWS:
            raise InputError(f"{path}: more than {MAX_SHEET_ROWS:,} rows, more than any sheet picforge exports; "
                             "split it, or check that it is the right file")
        for col_no, cell in enumerate(cells, start=1):
            if isinstance(cell, str) and len(cell) > MAX_CELL_CHARS:
                raise InputError(f"{path}: row {row_no}, column {col_no}: a cell of {len(cell):,} characters (a "
                                 f"spreadsheet cell holds at most {MAX_CELL_CHARS:,}); fix that cell")
        yield row_no, cells


def read_sheet(path, required, optional=()):
    """Read a returned sheet (.csv or .xlsx) and check that it has the `required` columns.

    CSV text is decoded by `decode_text`; handles `;` or tab delimiters, padded headers,
    blank rows and empty trailing columns, and takes off the `'` that neutralised a formula-like cell.
    Row numbers are those a spreadsheet shows (header = 1). Required and `optional` columns are found
    whatever their case and appear under the given names.
    """
    data = read_bytes(path)
    if path.lower().endswith((".xlsx", ".xlsm")):
        header, body = _xlsx_rows(path, data)
    else:
        header, body = _csv_rows(path, data)
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


def read_rows(path, required):
    """[(row or line number, {column: value})] of a JSON Lines file or a CSV/TSV/XLSX sheet."""
    if not path.lower().endswith((".jsonl", ".json")):
        return read_sheet(path, required).rows
    return read_json_lines(path, required)


def read_json_lines(path, required=(), shape=""):
    """[(line number, object)] of a JSON Lines file people write (predictions, answers), decoded by decode_text;
    blank lines skipped. A line that is no JSON object holding the `required` fields is refused naming it, with
    `shape` (what each line must hold) as the fix."""
    path = str(path)
    rows = []
    for line_no, line in enumerate(decode_text(read_bytes(path), path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(f"{path}: line {line_no}: not valid JSON ({err.msg}); "
                             f"{shape or 'fix or remove the line'}") from None
        if not isinstance(record, dict):
            raise InputError(f"{path}: line {line_no}: not a JSON object; {shape or 'write one object a line'}")
        missing = [c for c in required if c not in record]
        if missing:
            raise InputError(f"{path}: line {line_no}: missing field(s) {', '.join(missing)}; {shape or 'add them'}")
        rows.append((line_no, record))
    if not rows:
        raise InputError(f"{path}: holds no records, only blank lines; {shape or 'write one JSON object a line'}")
    return rows


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


# The encoding `picforge --encoding NAME` names for every sheet and list this process reads (None: UTF-8).
_named_encoding = None


@contextlib.contextmanager
def named_encoding(encoding):
    """Within the block, read sheets and lists as `encoding` (a name Python knows) instead of UTF-8."""
    global _named_encoding
    if encoding:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise InputError(f"--encoding {encoding}: not an encoding Python knows; give one such as cp1252 or "
                             "latin-1") from None
    before, _named_encoding = _named_encoding, encoding
    try:
        yield
    finally:
        _named_encoding = before


def decode_text(raw, path):
    """The text of a file people edit (CSV, TSV, JSON Lines, lists), exactly as typed: in the encoding `picforge
    --encoding` names (a UTF-8 byte-order mark dropped), else as its byte-order mark says (UTF-8 or UTF-16), else
    UTF-8; anything else is refused naming the first line and byte offset in the file that do not decode (one row
    saved in cp1252 would otherwise turn every "café" into "cafÃ©")."""
    encoding, body = _named_encoding, raw
    if raw.startswith(codecs.BOM_UTF8):  # the mark is not text; without --encoding it says the file is UTF-8
        encoding, body = encoding or "utf-8", raw[len(codecs.BOM_UTF8):]
    elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    try:
        return body.decode(encoding or "utf-8")
    except UnicodeDecodeError as err:
        offset = err.start + len(raw) - len(body)  # in the file, the byte-order mark counted
        line = raw[:offset].count(b"\n") + 1
        bad = raw[offset:offset + 1].hex()
        if _named_encoding or encoding == "utf-16":
            raise InputError(f"{path}: line {line}: byte 0x{bad} is not {encoding} text (at byte offset {offset} of "
                             "the file); name the encoding the file was saved in with `picforge --encoding NAME …`, "
                             "or re-save it as 'CSV UTF-8'") from None
        raise InputError(f"{path}: line {line}: byte 0x{bad} is not UTF-8 (at byte offset {offset} of the file; that "
                         "line, or the whole file, was saved in another encoding such as Windows-1252); re-save the "
                         "file as 'CSV UTF-8', or if all of it is in one encoding name it: `picforge --encoding cp1252 "
                         "…`") from None


def _csv_rows(path, data):
    text = decode_text(data, path)
    first_line = text.split("\n", 1)[0]
    delimiter = max(",;\t", key=first_line.count) if any(d in first_line for d in ",;\t") else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        rows = [[restore(cell) for cell in row] for _, row in _bounded(path, enumerate(reader, start=1))]
    except csv.Error as err:
        raise InputError(f"{path}: line {reader.line_num}: not readable as CSV ({err}); re-save it as CSV UTF-8 "
                         "from the spreadsheet") from None
    if not rows:
        raise InputError(f"{path}: the file is empty; return the sheet with its header row")
    return rows[0], list(enumerate(rows[1:], start=2))


def check_unpacked_size(path, data):
    """InputError when an XLSX's zip members unpack to more than MAX_UNPACKED_BYTES, by their declared sizes or
    as they are read (a zip bomb: a 2 MB file whose shared strings fill gigabytes)."""
    limit = f"{MAX_UNPACKED_BYTES // 2**20} MiB"
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            declared = sum(info.file_size for info in archive.infolist())
            if declared > MAX_UNPACKED_BYTES:
                raise InputError(f"{path}: unpacks to {declared:,} bytes, more than the {limit} any sheet picforge "
                                 "exports holds; check that it is the right file, or split it")
            unpacked = 0
            for info in archive.infolist():
                with archive.open(info) as member:
                    while chunk := member.read(2**20):
                        unpacked += len(chunk)
                        if unpacked > MAX_UNPACKED_BYTES:
                            raise InputError(f"{path}: {info.filename} unpacks past {limit}, more than it declares; "
                                             "the file is damaged or crafted: re-save it from Excel")
    except (zipfile.BadZipFile, zlib.error, EOFError) as err:
        raise InputError(f"{path}: not a readable XLSX workbook ({err}); re-save it from Excel") from None


def _xlsx_rows(path, data):
    check_unpacked_size(path, data)
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as err:  # openpyxl raises several types for damaged files
        raise InputError(f"{path}: not a readable XLSX workbook ({err}); re-save it from Excel") from err
    sheet = book["annotations"] if "annotations" in book.sheetnames else book.worksheets[0]
    if (sheet.max_row or 0) > MAX_SHEET_ROWS:
        book.close()
        raise InputError(f"{path}: {sheet.max_row:,} rows, more than any sheet picforge exports "
                         f"({MAX_SHEET_ROWS:,}); split it, or check that it is the right file")
    rows = [list(r) for _, r in _bounded(path, enumerate(sheet.iter_rows(values_only=True), start=1))]
    book.close()
    if not rows:
        raise InputError(f"{path}: the workbook's first sheet is empty; return the sheet with its header row")
    return rows[0], list(enumerate(rows[1:], start=2))
