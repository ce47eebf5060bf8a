"""Reading SimLex-999 word pairs: the official 10-column file and the 3-column `word1 word2 score` layout."""
import dataclasses
import re

from picforge.errors import InputError
from picforge.bounded_read import MAX_LINE_BYTES, MAX_TEXT_BYTES, read_bounded
from picforge.sheets import decode_text

OFFICIAL_HEADER = ("word1", "word2", "POS", "SimLex999", "conc(w1)", "conc(w2)", "concQ",
                   "Assoc(USF)", "SimAssoc333", "SD(SimLex)")


@dataclasses.dataclass(frozen=True)
class SimLexPair:
    """One SimLex pair: its position in the file, the two words, part of speech (official layout only), score."""
    pair_no: int
    word1: str
    word2: str
    pos: str | None
    simlex: float

    @property
    def pair_id(self):
        return pair_id(self.word1, self.word2)


def pair_id(word1, word2):
    """The stable id of a word pair across all CoSimLex records."""
    return f"{word1}|{word2}"


def _fields(line):
    """A data line's fields: tab-separated when it has tabs, else comma- or whitespace-separated."""
    if "\t" in line:
        return [f.strip() for f in line.split("\t")]
    if "," in line:
        return [f.strip() for f in line.split(",")]
    return line.split()


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def parse_simlex(lines, path="<simlex>"):
    """SimLexPair records from the lines of a SimLex file (either layout, header optional for 3 columns)."""
    pairs = []
    seen = {}
    layout = None
    for line_no, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n").lstrip("\ufeff")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = _fields(line)
        if layout is None:
            layout = "official" if len(fields) == len(OFFICIAL_HEADER) else "three"
            if layout == "three" and len(fields) != 3:
                raise InputError(
                    f"{path}: line {line_no}: {len(fields)} columns; expected the official SimLex-999 layout "
                    f"({' '.join(OFFICIAL_HEADER)}) or 3 columns 'word1 word2 score'")
            if _number(fields[-1 if layout == "three" else 3]) is None:
                continue  # header line
        expected = len(OFFICIAL_HEADER) if layout == "official" else 3
        if len(fields) != expected:
            raise InputError(f"{path}: line {line_no}: {len(fields)} columns where the file's first line has "
                             f"{expected}; fix the line so every row has the same columns")
        word1, word2 = fields[0].lower(), fields[1].lower()
        score = _number(fields[3] if layout == "official" else fields[2])
        if score is None:
            raise InputError(f"{path}: line {line_no}: score {fields[3 if layout == 'official' else 2]!r} "
                             "is not a number; write the similarity score as a decimal number")
        for word in (word1, word2):
            if not word or re.search(r"\s", word):
                raise InputError(f"{path}: line {line_no}: {word!r} is not a single word; CoSimLex pairs are "
                                 "single words, so remove the line or replace the entry")
        if word1 == word2:
            raise InputError(f"{path}: line {line_no}: both words are {word1!r}; a pair needs two different words")
        key = pair_id(word1, word2)
        if key in seen:
            raise InputError(f"{path}: line {line_no}: pair {word1} {word2} already given on line {seen[key]}; "
                             "remove one of the two lines")
        seen[key] = line_no
        pos = fields[2] if layout == "official" else None
        pairs.append(SimLexPair(len(pairs), word1, word2, pos, score))
    if not pairs:
        raise InputError(f"{path}: no word pairs found; give SimLex-999.txt or a 'word1 word2 score' file")
    return pairs


def read_simlex(path):
    """SimLexPair records of a SimLex file (UTF-8; local, gs:// or s3://)."""
    raw = read_bounded(path, MAX_TEXT_BYTES, MAX_LINE_BYTES, fix="give SimLex-999.txt or a 'word1 word2 score' file")
    text = decode_text(raw, path)
    return parse_simlex(text.splitlines(), path)
