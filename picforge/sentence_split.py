"""Punkt sentences with the shipped abbreviation list (no downloaded model), and the 5-sentence passage window PiC
cuts around a sentence: the text rules the mining stages, the releases and the gold questions share."""
import functools

from picforge.resources import abbreviations

PASSAGE_SENTENCES = 5


@functools.lru_cache(maxsize=None)
def punkt():
    """The Punkt sentence tokenizer with picforge's abbreviations (NLTK imported here: a process that only builds a
    pipeline, such as a multi-process runner, never pays its 1-2 s import)."""
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    params = PunktParameters()
    params.abbrev_types = set(abbreviations())
    return PunktSentenceTokenizer(params)


def split_sentences(paragraph):
    """Punkt sentences of one paragraph (no downloaded model: Punkt rules + shipped abbreviations)."""
    return [s.strip() for s in punkt().tokenize(paragraph) if s.strip()]


def passage_window(idx, n_sentences, size=PASSAGE_SENTENCES):
    """[start, end) of a `size`-sentence window centred on sentence idx (two before, two after),
    shifted inside the page when idx is near its start or end."""
    half = size // 2
    start = max(0, min(idx - half, n_sentences - size))
    return start, min(n_sentences, start + size)
