"""Sentence and word spans for statistics and baselines, with NLTK tokenizers that need no downloaded data."""
import functools

from nltk.tokenize import TreebankWordTokenizer

from picforge.sentence_split import punkt


@functools.lru_cache(maxsize=None)
def _word_tokenizer():
    return TreebankWordTokenizer()


def sentence_spans(text):
    """[start, end) of each sentence of `text`: Punkt rules and the abbreviations the sentences stage uses."""
    return list(punkt().span_tokenize(text))


def word_spans(text):
    """[start, end) of each Treebank word token of one sentence."""
    return list(_word_tokenizer().span_tokenize(text))


def words(text):
    """The Treebank word tokens of a short text (phrase, query or sentence)."""
    return _word_tokenizer().tokenize(text)
