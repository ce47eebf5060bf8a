"""Appendix B.1 noun phrases: the POS pattern `(<JJ>* <NN.*>+ <IN>)? <JJ>* <NN.*>+`, 2–3 words, and its filters."""
import functools
import re
from importlib import resources

from picforge.spacy_models import shared_pipeline

PREFIX_CHARS = 200
MIN_WORDS, MAX_WORDS = 2, 3
# One letter per Penn tag, so the chunk rule is a plain regular expression over a tag string.
_PATTERN = re.compile(r"(?:J*N+I)?J*N+")


def tag_letter(tag):
    """J for JJ, N for NN/NNS/NNP/NNPS, I for IN, O for any other Penn tag (as NLTK's tag patterns read them)."""
    if tag == "JJ":
        return "J"
    if tag.startswith("NN"):
        return "N"
    if tag == "IN":
        return "I"
    return "O"


def chunk_spans(tags):
    """(start, end) token spans the chunk rule finds, leftmost-longest and non-overlapping like NLTK's RegexpParser."""
    letters = "".join(tag_letter(t) for t in tags)
    return [m.span() for m in _PATTERN.finditer(letters)]


def noun_phrases(words, tags):
    """The lower-cased chunks of 2–3 words of one tagged text."""
    found = []
    for start, end in chunk_spans(tags):
        if MIN_WORDS <= end - start <= MAX_WORDS:
            found.append(" ".join(w.lower() for w in words[start:end]))
    return found


def document_prefix(text):
    """The part of a document phrases are taken from: its first 200 characters."""
    return text[:PREFIX_CHARS]


def _word_list(name):
    text = resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


@functools.lru_cache(maxsize=None)
def pronouns():
    """Appendix B.1's personal pronouns and quantifiers (shipped list)."""
    return frozenset(w for line in _word_list("pronouns.txt") for w in line.split())


@functools.lru_cache(maxsize=None)
def sentiment_words():
    """Appendix B.1's overly sentimental words (shipped list)."""
    return frozenset(w for line in _word_list("sentiment.txt") for w in line.split())


@functools.lru_cache(maxsize=None)
def uninformative_sequences():
    """Appendix B.1's uninformative word sequences (`lot of`, …) as word tuples."""
    return tuple(tuple(line.split()) for line in _word_list("uninformative.txt"))


def filter_reason(phrase):
    """Why Appendix B.1 drops a phrase ('punctuation', 'pronoun', 'sentiment', 'uninformative'), or None."""
    if any(not (c.isalnum() or c == " ") for c in phrase):
        return "punctuation"
    words = phrase.split()
    if any(w in pronouns() for w in words):
        return "pronoun"
    if any(w in sentiment_words() for w in words):
        return "sentiment"
    for sequence in uninformative_sequences():
        n = len(sequence)
        if any(tuple(words[i:i + n]) == sequence for i in range(len(words) - n + 1)):
            return "uninformative"
    return None


def load_tagger(model_name):
    """The worker's spaCy pipeline that sets Penn tags (the tagger) and nothing it does not need."""
    return shared_pipeline(model_name, ("parser", "ner", "lemmatizer", "senter"))
