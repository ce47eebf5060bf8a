"""Sentence and word spans for statistics and baselines, with NLTK tokenizers that need no downloaded data."""
import functools

from nltk.tokenize import TreebankWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

# Untrained Punkt splits after every period; these common abbreviations (lower-case, no final period) never end
# a sentence.
ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "u.s", "u.k",
                 "no", "vol", "inc", "ltd", "co", "corp", "gen", "col", "lt", "sgt", "capt", "rev", "fig", "approx",
                 "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"}


@functools.lru_cache(maxsize=None)
def _sentence_tokenizer():
    params = PunktParameters()
    params.abbrev_types = set(ABBREVIATIONS)
    return PunktSentenceTokenizer(params)


@functools.lru_cache(maxsize=None)
def _word_tokenizer():
    return TreebankWordTokenizer()


def sentence_spans(text):
    """[start, end) of each sentence of `text` (Punkt with default parameters and common abbreviations)."""
    return list(_sentence_tokenizer().span_tokenize(text))


def word_spans(text):
    """[start, end) of each Treebank word token of one sentence."""
    return list(_word_tokenizer().span_tokenize(text))


def words(text):
    """The Treebank word tokens of a short text (phrase, query or sentence)."""
    return _word_tokenizer().tokenize(text)
