"""Phrase matching for context retrieval: one Aho–Corasick pass finds every listed phrase in a sentence."""
import ahocorasick

from picforge.sampling import seeded_rank

MASK = "[MASK]"


def fold(text):
    """Lower-cased text of the same length (characters whose lower case is longer stay as they are)."""
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def normalise_phrase(text):
    """A phrase as it is matched: lower-cased, single spaces."""
    return " ".join(fold(text).split())


def build_automaton(phrases):
    """An Aho–Corasick automaton over the normalised phrases (their values are the phrases)."""
    automaton = ahocorasick.Automaton()
    for phrase in phrases:
        automaton.add_word(phrase, phrase)
    automaton.make_automaton()
    return automaton


def on_token_boundary(text, start, end):
    """True when text[start:end] is neither preceded nor followed by a letter or digit."""
    return (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum())


def find_phrases(automaton, text):
    """{phrase: [(start, end), …]} of every listed phrase in `text`, case-insensitive, whole tokens: each
    occurrence, left to right, an occurrence overlapping the one before it left out."""
    folded = fold(text)
    found = {}
    for last, phrase in automaton.iter(folded):
        start, end = last - len(phrase) + 1, last + 1
        spans = found.setdefault(phrase, [])
        if on_token_boundary(folded, start, end) and (not spans or start >= spans[-1][1]):
            spans.append((start, end))
    return {phrase: spans for phrase, spans in found.items() if spans}


def holds_phrase(folded, phrase):
    """True when the folded text holds the phrase as whole tokens (a fast test for one phrase)."""
    start = folded.find(phrase)
    while start != -1:
        if on_token_boundary(folded, start, start + len(phrase)):
            return True
        start = folded.find(phrase, start + 1)
    return False


def masked(text, spans):
    """The sentence with each of its (start, end) spans, in order and disjoint, replaced by one [MASK] token."""
    pieces, last = [], 0
    for start, end in spans:
        pieces += [text[last:start], MASK]
        last = end
    return "".join(pieces) + text[last:]


def context_rank(seed, phrase, sentence_id):
    """The seeded sort key that decides which contexts of a phrase are sampled (smallest first)."""
    return seeded_rank(seed, phrase, sentence_id)
