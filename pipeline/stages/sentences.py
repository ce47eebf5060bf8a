"""Stage `sentences`: NLTK Punkt sentence split per paragraph, with a shipped abbreviation list."""
import functools

import apache_beam as beam
from apache_beam.metrics import Metrics
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

from picforge.resources import abbreviations

STAGE = "sentences"


@functools.lru_cache(maxsize=None)
def _tokenizer():
    params = PunktParameters()
    params.abbrev_types = set(abbreviations())
    return PunktSentenceTokenizer(params)


def split_sentences(paragraph):
    """Punkt sentences of one paragraph (no downloaded model: Punkt rules + shipped abbreviations)."""
    return [s.strip() for s in _tokenizer().tokenize(paragraph) if s.strip()]


def page_sentences(page):
    """Sentence records of a page, idx running over the whole page in reading order."""
    idx = 0
    for paragraph_no, paragraph in enumerate(page["paragraphs"]):
        for text in split_sentences(paragraph):
            yield {
                "sentence_id": f"{page['page_id']}:{idx}",
                "page_id": page["page_id"],
                "idx": idx,
                "paragraph": paragraph_no,
                "text": text,
                "n_words": len(text.split()),
            }
            idx += 1


class SplitSentences(beam.PTransform):
    """Page records → Sentence records."""

    def expand(self, pages):
        counter = Metrics.counter(STAGE, "sentences")

        def split(page):
            for sentence in page_sentences(page):
                counter.inc()
                yield sentence

        return pages | "split paragraphs" >> beam.FlatMap(split)
