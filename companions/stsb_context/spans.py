"""Span scoring of the SLICE paper (Section 5): all word n-grams of a context, the one most similar to a phrase."""
import re

import numpy as np
from scipy import stats

from picforge.encoders import span_tokens

WORD = re.compile(r"\w+(?:[-'’.,]\w+)*")


def word_offsets(text):
    """(start, end) character offsets of the words of `text` (numbers like 1,000.5 and hyphenated words stay whole)."""
    return [m.span() for m in WORD.finditer(text)]


def word_spans(n_words, min_size, max_size):
    """All consecutive word ranges [first, end) of min_size to max_size words, by start then length."""
    return [(first, first + size) for first in range(n_words)
            for size in range(min_size, max_size + 1) if first + size <= n_words]


def span_text(text, words, span):
    """The context text from the span's first word to its last (punctuation inside kept)."""
    start, end = words[span[0]][0], words[span[1] - 1][1]
    return start, text[start:end]


def word_token_ranges(token_offsets, words):
    """For each word, the [first, end) range of the tokens inside it, or None when truncation cut it off.

    Special tokens (empty offsets) belong to no word.
    """
    ranges = []
    for start, end in words:
        rows = span_tokens(token_offsets, start, end)
        ranges.append((int(rows[0]), int(rows[-1]) + 1) if len(rows) else None)
    return ranges


def pooled_span_vectors(token_vectors, token_ranges, spans):
    """(spans with tokens, their mean-pooled token vectors): each span pools every token from its first word's
    first token to its last word's last token, so punctuation tokens between its words count too."""
    usable = [s for s in spans if token_ranges[s[0]] is not None and token_ranges[s[1] - 1] is not None]
    if not usable:
        return [], np.zeros((0, token_vectors.shape[1]), dtype=np.float64)
    sums = np.vstack([np.zeros((1, token_vectors.shape[1])), np.cumsum(token_vectors, axis=0, dtype=np.float64)])
    starts = np.array([token_ranges[s[0]][0] for s in usable])
    ends = np.array([token_ranges[s[1] - 1][1] for s in usable])
    return usable, (sums[ends] - sums[starts]) / (ends - starts)[:, None]


def cosine(query, matrix):
    """Cosine similarity of one vector to each row of a matrix (0 for zero vectors)."""
    matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
    query = np.asarray(query, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
    return np.divide(matrix @ query, norms, out=np.zeros(len(matrix)), where=norms > 0)


def best_match(query, matrix):
    """(row index, cosine) of the row most similar to `query`."""
    sims = cosine(query, matrix)
    index = int(np.argmax(sims))
    return index, float(sims[index])


def defined(gold, predicted):
    """Whether correlations of the two sequences exist: at least 2 pairs, neither constant."""
    return len(gold) >= 2 and np.ptp(gold) > 0 and np.ptp(predicted) > 0


def pearson(a, b):
    """Pearson's r of two sequences (scipy); None when it is undefined."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(stats.pearsonr(a, b)[0]) if defined(a, b) else None


def correlations(gold, predicted):
    """Pearson and Spearman correlation of gold scores with predictions (scipy), and how many pairs."""
    gold, predicted = np.asarray(gold, dtype=float), np.asarray(predicted, dtype=float)
    if not defined(gold, predicted):
        return {"pearson": None, "spearman": None, "n": len(gold)}
    return {"pearson": pearson(gold, predicted), "spearman": float(stats.spearmanr(gold, predicted)[0]),
            "n": len(gold)}
