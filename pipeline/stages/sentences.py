"""Stage `sentences`: NLTK Punkt sentence split per paragraph, with a shipped abbreviation list; each sentence
says whether it is broken (words went missing in cleaning, or it shows debris of removed markup)."""
import bisect
import re
from collections import Counter

import apache_beam as beam
from apache_beam.metrics import Metrics

from picforge.progress import Progress
from picforge.resources import cut_words
from picforge.sentence_split import punkt
from pipeline.stages.clean import RESIDUE

STAGE = "sentences"
MISSING_WORDS = "missing-words"
TEMPLATE_WORDS_LOST = "template-words-lost"
POINTER_TO_REMOVED = "pointer-to-removed"
CUT_PARAGRAPH_START = "cut-paragraph-start"
QUOTATIONS_KEPT_WHOLE = "quotations-kept-whole"  # counter: quotations over several Punkt sentences kept as one
# Debris a reader sees in a broken sentence, checked in this order (the first match names the reason).
BROKEN_PATTERNS = (
    ("doubled-space", re.compile(r"\S {2,}\S")),
    ("empty-brackets", re.compile(r"\(\s*[,;:]?\s*\)|\[\s*\]|\{\s*\}")),
    ("space-before-punctuation", re.compile(r"\w\s+(?:[,;:!?)\]]|\.(?!\.))")),
    ("space-after-bracket", re.compile(r"[(\[]\s")),
    ("number-followed-by-nothing", re.compile(r"\d$")),
    ("stray-pipe", re.compile(r"\|")),
    ("leftover-markup", re.compile(RESIDUE.pattern + r"|[\ue000-\uf8ff]|^=", RESIDUE.flags)),
    ("dangling-punctuation", re.compile(r"^[,;:.)\]]|[,;:]\s*[,;:.]")),
)
# A sentence ending on no sentence end: a removed formula, list or quotation came after it ("… suppose that").
NO_SENTENCE_END = re.compile(r"[^.!?…\"'”’)\]][\"'”’)\]]*$")
# A pointer to what cleaning always removes (tables, figures, maps, lists): "(see table above)", "shown in the
# diagram at the left", "This is a chart of …". Its sentence is flagged, so passages and PR-page leave it out.
FIGURE_WORDS = ("table", "chart", "graph", "diagram", "figure", "map", "image", "picture", "photo", "photograph",
                "illustration", "plot", "cladogram", "infobox")
_FIGURE = rf"(?:{'|'.join(FIGURE_WORDS)})s?"
POINTER = re.compile(
    rf"\b{_FIGURE}\s+(?:below|above|(?:at|on|to)\s+(?:the\s+)?(?:left|right|top|bottom)|(?:in|at)\s+the\s+"
    rf"(?:upper|lower|top|bottom)|(?:at|on)\s+the\s+(?:bottom|top|end)\s+of\s+this)\b|"
    rf"\b(?:this|the\s+following|the\s+adjacent|the\s+accompanying|the\s+above|the\s+below|the\s+next)\s+"
    rf"(?!figures?\b){_FIGURE}\b|"
    rf"\b(?:this|here|below|above)\s+is\s+an?\s+(?:\w+\s+)?{_FIGURE}\b|"
    rf"\(\s*see\s+[^()]{{0,40}}\b(?:{_FIGURE}|lists?)\b|"
    rf"\b(?:shown|seen|illustrated|depicted|listed|given)\s+(?:in\s+the\s+{_FIGURE}|below|above|at\s+(?:the\s+)?(?:left|right))|"
    r"\bthe\s+following\s+(?:lists?|listing|tables?|outline)\b|\b(?:lists?|listing|outline)\s+(?:below|above|follows)\b",
    re.IGNORECASE)
# Every POINTER match holds one of these words (a figure word, a list word, or where on the page): an ASCII
# sentence holding none of them, lower-cased, cannot match, so POINTER's scan is skipped for it.
POINTER_WORDS = (*FIGURE_WORDS, "list", "outline", "below", "above", "left", "right")


def points_to_removed(text):
    """Whether the sentence points to a removed table, figure or list (POINTER), skipping the scan when an ASCII
    text holds none of POINTER_WORDS (for other text, case-insensitive matching is wider than lower())."""
    if text.isascii():
        lowered = text.lower()
        if not any(word in lowered for word in POINTER_WORDS):
            return False
    return bool(POINTER.search(text))


# The first sentence of a paragraph that starts in lower case goes on from a removed formula or list ("where K0 = 1").
CUT_START = re.compile(r"^[\"“(]?[a-z]")



CUT_INSIDE = re.compile(r"\b([A-Za-z]+)\.\s+[a-z]")
LAST_WORD = re.compile(r"(?:^|[\s(\"“])([a-z]+)(\W*)$")  # lower-case, not the tail of "d'Or" or "Gwich’in"
# Words a sentence without a full stop cannot end on either (a formula or list after them was removed).
OPEN_ENDINGS = {"is", "are", "was", "were", "be", "to", "by", "at", "with", "for", "in"}
# A range or preposition whose other side a removed template held: "of 50 to.", "(1600 to)", "(see video at)".
CUT_BEFORE_END = re.compile(r"\d\s+(?:to|by|and|or)(?:\W*$|\))|\bat\)")


def shows_cut(text):
    """True if the sentence shows where it was cut: a function word ("and", "the", "than"…) followed by a full
    stop and a lower-case word or ending it, a trailing comma, a range or preposition missing its other side, or
    no full stop after a verb or preposition."""
    words = cut_words()
    last = LAST_WORD.search(text)
    if last:
        word, tail = last.group(1), last.group(2).strip("\"'”’)]» ")
        if word in words or (not tail and word in OPEN_ENDINGS):
            return True
    if text.rstrip("\"'”’ ").endswith(","):
        return True
    return bool(CUT_BEFORE_END.search(text)) or any(m.group(1) in words for m in CUT_INSIDE.finditer(text))


def broken_reason(text):
    """Why a cleaned sentence reads broken ('' when it reads whole): the first debris pattern it shows, then
    'cut-sentence', 'no-sentence-end' or 'pointer-to-removed'."""
    for reason, pattern in BROKEN_PATTERNS:
        if pattern.search(text):
            return reason
    if shows_cut(text):
        return "cut-sentence"
    if NO_SENTENCE_END.search(text):
        return "no-sentence-end"
    return POINTER_TO_REMOVED if points_to_removed(text) else ""


def _offsets_by_paragraph(places):
    """{paragraph: sorted char offsets} of [paragraph, offset] places."""
    by_paragraph = {}
    for paragraph_no, offset in places:
        by_paragraph.setdefault(paragraph_no, []).append(offset)
    return {paragraph_no: sorted(offsets) for paragraph_no, offsets in by_paragraph.items()}


def _holds(offsets, start, end):
    return bisect.bisect_right(offsets, end) > bisect.bisect_right(offsets, start)


QUOTE_MARKS = re.compile('["“”]')


def open_after(text, is_open=False):
    """Whether a quotation is open after `text`, given whether one was before it: “ opens, ” closes, " does the
    other (a straight quote closes an open quotation, or opens one)."""
    for mark in QUOTE_MARKS.findall(text):
        is_open = mark == "“" or (mark == '"' and not is_open)
    return is_open


def sentence_spans(paragraph):
    """[start, end, Punkt sentences in it] of the paragraph's sentences: Punkt's, with a quotation that runs over
    several of them kept as one unit, so no passage starts or ends inside it (one never closed runs to the
    paragraph's end)."""
    spans = [[start, end, 1] for start, end in punkt().span_tokenize(paragraph)]
    if len(spans) < 2 or not QUOTE_MARKS.search(paragraph):
        return spans
    units, is_open = [], False
    for span in spans:
        if is_open:
            units[-1] = [units[-1][0], span[1], units[-1][2] + 1]
        else:
            units.append(span)
        is_open = open_after(paragraph[span[0]:span[1]], is_open)
    return units


def page_sentences(page, counts=None):
    """Sentence records of a page, idx running over the whole page in reading order; a sentence holding a place
    where a template's words were lost is broken for `template-words-lost`, one where other words went missing for
    `missing-words`, a paragraph's first sentence starting in lower case for `cut-paragraph-start`, others as
    `broken_reason` says. `counts` (a Counter), when given, gets the quotations kept whole over several sentences."""
    missing = _offsets_by_paragraph(page["missing_words"])
    template_lost = _offsets_by_paragraph(page.get("template_words_lost") or ())
    idx = 0
    for paragraph_no, paragraph in enumerate(page["paragraphs"]):
        for start, end, pieces in sentence_spans(paragraph):
            if counts is not None and pieces > 1:
                counts[QUOTATIONS_KEPT_WHOLE] += 1
            text = paragraph[start:end].strip()
            if not text:
                continue
            if _holds(template_lost.get(paragraph_no, ()), start, end):
                broken = TEMPLATE_WORDS_LOST
            elif _holds(missing.get(paragraph_no, ()), start, end):
                broken = MISSING_WORDS
            elif start == 0 and CUT_START.match(text):
                broken = CUT_PARAGRAPH_START
            else:
                broken = broken_reason(text)
            yield {
                "sentence_id": f"{page['page_id']}:{idx}",
                "page_id": page["page_id"],
                "idx": idx,
                "paragraph": paragraph_no,
                "text": text,
                "n_words": len(text.split()),
                "broken": broken,
            }
            idx += 1


class SplitSentences(beam.PTransform):
    """Page records → Sentence records, counting broken sentences by reason."""

    def expand(self, pages):
        return pages | "split paragraphs" >> beam.FlatMap(_counted_sentences, Progress(STAGE, "pages split"))


def _counted_sentences(page, progress):
    progress.tick()
    counts = Counter()
    for sentence in page_sentences(page, counts):
        Metrics.counter(STAGE, "sentences").inc()
        if sentence["broken"]:
            Metrics.counter(STAGE, f"broken-{sentence['broken']}").inc()
        yield sentence
    if counts:
        Metrics.counter(STAGE, QUOTATIONS_KEPT_WHOLE).inc(counts[QUOTATIONS_KEPT_WHOLE])
