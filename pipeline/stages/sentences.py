"""Stage `sentences`: NLTK Punkt sentence split per paragraph, with a shipped abbreviation list; each sentence
says whether it is broken (words went missing in cleaning, or it shows debris of removed markup)."""
import bisect
import functools
import re

import apache_beam as beam
from apache_beam.metrics import Metrics
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

from picforge.progress import Progress
from picforge.resources import abbreviations, cut_words
from pipeline.stages.clean import RESIDUE

STAGE = "sentences"
MISSING_WORDS = "missing-words"
TEMPLATE_WORDS_LOST = "template-words-lost"
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


@functools.lru_cache(maxsize=None)
def _tokenizer():
    params = PunktParameters()
    params.abbrev_types = set(abbreviations())
    return PunktSentenceTokenizer(params)


def split_sentences(paragraph):
    """Punkt sentences of one paragraph (no downloaded model: Punkt rules + shipped abbreviations)."""
    return [s.strip() for s in _tokenizer().tokenize(paragraph) if s.strip()]


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
    """Why a cleaned sentence reads broken ('' when it reads whole): the first debris pattern it shows, or
    'cut-sentence'."""
    for reason, pattern in BROKEN_PATTERNS:
        if pattern.search(text):
            return reason
    return "cut-sentence" if shows_cut(text) else ""


def _offsets_by_paragraph(places):
    """{paragraph: sorted char offsets} of [paragraph, offset] places."""
    by_paragraph = {}
    for paragraph_no, offset in places:
        by_paragraph.setdefault(paragraph_no, []).append(offset)
    return {paragraph_no: sorted(offsets) for paragraph_no, offsets in by_paragraph.items()}


def _holds(offsets, start, end):
    return bisect.bisect_right(offsets, end) > bisect.bisect_right(offsets, start)


def page_sentences(page):
    """Sentence records of a page, idx running over the whole page in reading order; a sentence holding a place
    where a template's words were lost is broken for `template-words-lost`, one where other words went missing for
    `missing-words`, others as `broken_reason` says."""
    missing = _offsets_by_paragraph(page["missing_words"])
    template_lost = _offsets_by_paragraph(page.get("template_words_lost") or ())
    idx = 0
    for paragraph_no, paragraph in enumerate(page["paragraphs"]):
        for start, end in _tokenizer().span_tokenize(paragraph):
            text = paragraph[start:end].strip()
            if not text:
                continue
            if _holds(template_lost.get(paragraph_no, ()), start, end):
                broken = TEMPLATE_WORDS_LOST
            elif _holds(missing.get(paragraph_no, ()), start, end):
                broken = MISSING_WORDS
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
    for sentence in page_sentences(page):
        Metrics.counter(STAGE, "sentences").inc()
        if sentence["broken"]:
            Metrics.counter(STAGE, f"broken-{sentence['broken']}").inc()
        yield sentence
