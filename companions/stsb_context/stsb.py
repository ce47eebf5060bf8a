"""Reading the STS Benchmark test file: tab-separated `genre filename year id score sentence1 sentence2`."""
import csv
import io

from apache_beam.io.filesystems import FileSystems

from picforge.bounded_read import MAX_LINE_BYTES, MAX_TEXT_BYTES, read_bounded
from picforge.errors import InputError
from picforge.sheets import decode_text

COLUMNS = ("genre", "filename", "year", "id", "score", "sentence1", "sentence2")
LAYOUT = "genre, filename, year, id, score (0-5), sentence1, sentence2"


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_row(fields, path, line):
    """One STS-B pair from a row's tab-separated fields (columns after the 7th are ignored)."""
    where = f"{path} line {line}"
    if len(fields) < len(COLUMNS):
        raise InputError(
            f"{where}: expected {len(COLUMNS)} tab-separated columns ({LAYOUT}), found {len(fields)}; "
            "separate the columns with tabs (no quoting) and give every row both sentences")
    genre, filename, year, sid, score_text, sentence1, sentence2 = (f.strip() for f in fields[:len(COLUMNS)])
    if not _is_number(score_text) or not 0.0 <= float(score_text) <= 5.0:
        raise InputError(f"{where}: score column holds {score_text!r}; it must be a number from 0 to 5")
    if not sentence1 or not sentence2:
        raise InputError(f"{where}: sentence1 or sentence2 is empty; fill in both sentences or delete the row")
    return {
        "pair_id": f"{filename}-{year}-{sid}",
        "line": line,
        "genre": genre,
        "score": float(score_text),
        "sentence1": sentence1,
        "sentence2": sentence2,
    }


def read_pairs(path):
    """All pairs of an STS-B file (official headerless layout or with a header row), in file order."""
    if not FileSystems.exists(path):
        raise InputError(f"{path}: no such file; give the STS Benchmark test file with --stsb")
    raw = read_bounded(path, MAX_TEXT_BYTES, MAX_LINE_BYTES, fix="give the STS Benchmark test file with --stsb "
                       f"(one pair a line: {LAYOUT})")
    text = decode_text(raw, path)
    pairs, seen = [], {}
    rows = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    for line, fields in enumerate(rows, start=1):
        if not any(f.strip() for f in fields):
            continue
        if line == 1 and len(fields) >= len(COLUMNS) and not _is_number(fields[4].strip()):
            continue  # header row of the 7-column variant
        pair = parse_row(fields, path, line)
        if pair["pair_id"] in seen:
            raise InputError(
                f"{path} line {line}: pair {pair['pair_id']} (filename-year-id) already appears on line "
                f"{seen[pair['pair_id']]}; remove the duplicate row")
        seen[pair["pair_id"]] = line
        pairs.append(pair)
    if not pairs:
        raise InputError(f"{path}: no STS-B rows found; expected tab-separated columns {LAYOUT}")
    return pairs
