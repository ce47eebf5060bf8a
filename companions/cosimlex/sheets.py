"""Spreadsheets people fill in: written as CSV and XLSX, read back from either with spreadsheet row numbers."""
import csv
import io
import json
import zipfile

from apache_beam.io.filesystems import FileSystems

from picforge.errors import InputError


def _write_bytes(path, data):
    with FileSystems.create(path, compression_type="uncompressed") as fh:
        fh.write(data)


def write_sheet(stem, columns, rows, bold_column=None):
    """Write `rows` (dicts) to STEM.csv and STEM.xlsx; in the XLSX, spans listed in row['_bold'] of
    `bold_column` are bold. Returns the two paths."""
    from openpyxl import Workbook
    from openpyxl.cell.rich_text import CellRichText, TextBlock
    from openpyxl.cell.text import InlineFont
    from openpyxl.styles import Alignment, Font

    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=columns, extrasaction="ignore", lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    _write_bytes(stem + ".csv", text.getvalue().encode("utf-8-sig"))

    book = Workbook()
    sheet = book.active
    sheet.append(columns)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in rows:
        sheet.append([row.get(c, "") for c in columns])
        if bold_column and row.get("_bold"):
            value, pieces, at = row[bold_column], [], 0
            for start, end in sorted(row["_bold"]):
                pieces += [value[at:start], TextBlock(InlineFont(b=True), value[start:end])]
                at = end
            pieces.append(value[at:])
            sheet.cell(row=sheet.max_row, column=columns.index(bold_column) + 1).value = CellRichText(
                [p for p in pieces if p])
    for column, name in enumerate(columns, start=1):
        letter = sheet.cell(row=1, column=column).column_letter
        sheet.column_dimensions[letter].width = 80 if "context" in name else max(12, len(name) + 2)
        for cell in sheet[letter][1:]:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
    data = io.BytesIO()
    book.save(data)
    _write_bytes(stem + ".xlsx", data.getvalue())
    return stem + ".csv", stem + ".xlsx"


def read_bytes(path):
    """A file's bytes (local, gs:// or s3://), or a clear error when it is missing."""
    if not FileSystems.exists(path):
        raise InputError(f"{path}: no such file; check the path")
    with FileSystems.open(path, compression_type="uncompressed") as fh:
        return fh.read()


def _cell_text(value):
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def read_sheet(path, required_columns):
    """[(spreadsheet row number, {column: text})] of a CSV or XLSX sheet whose header has `required_columns`."""
    data = read_bytes(path)
    if path.lower().endswith(".xlsx"):
        from openpyxl import load_workbook

        try:
            sheet = load_workbook(io.BytesIO(data), read_only=True, data_only=True).worksheets[0]
        except (zipfile.BadZipFile, KeyError, ValueError) as err:
            raise InputError(f"{path}: not a readable XLSX workbook ({err}); save it again from the "
                             "spreadsheet program as .xlsx") from None
        grid = [[_cell_text(v) for v in row] for row in sheet.iter_rows(values_only=True)]
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise InputError(f"{path}: byte {err.start} is not UTF-8; save the sheet as CSV UTF-8") from None
        try:
            dialect = csv.Sniffer().sniff(text.split("\n", 1)[0], delimiters=",;\t")
        except csv.Error:
            raise InputError(f"{path}: row 1 is not a header of columns separated by , ; or tab; pass the "
                             "sheet as exported (CSV or XLSX)") from None
        grid = list(csv.reader(io.StringIO(text), dialect))
    if not grid:
        raise InputError(f"{path}: the sheet is empty; export it again")
    header = [h.strip() for h in grid[0]]
    missing = [c for c in required_columns if c not in header]
    if missing:
        raise InputError(f"{path}: row 1: missing column(s) {', '.join(missing)}; restore the exported header row")
    rows = []
    for row_no, values in enumerate(grid[1:], start=2):
        if not any(v.strip() for v in values):
            continue
        values = list(values) + [""] * (len(header) - len(values))
        rows.append((row_no, dict(zip(header, values))))
    return rows


def read_rows(path, required_columns):
    """[(row or line number, {column: value})] of a JSON Lines file or a CSV/TSV/XLSX sheet."""
    if not path.lower().endswith((".jsonl", ".json")):
        return read_sheet(path, required_columns)
    rows = []
    for line_no, line in enumerate(read_bytes(path).decode("utf-8-sig").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(f"{path}: line {line_no}: not valid JSON ({err.msg}); fix or remove the line") from None
        missing = [c for c in required_columns if c not in record]
        if missing:
            raise InputError(f"{path}: line {line_no}: missing field(s) {', '.join(missing)}; add them")
        rows.append((line_no, record))
    return rows
