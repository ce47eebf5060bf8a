"""Hard negatives: corpus phrases at a small edit distance (look alike) whose encoder cosine is low (mean something
else), found within blocks of one split that share a content word."""
import math
import re

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from picforge.resources import stopwords

TOKEN = re.compile(r"[a-z0-9]+")
BUCKET_WIDTH = 0.1  # width of the edit-similarity and cosine bins the build counts


def tokens(phrase):
    """Lower-case alphanumeric tokens of a phrase."""
    return TOKEN.findall(phrase.lower())


def edit_similarity(a, b):
    """1 − Levenshtein distance / length of the longer phrase, compared lower-case (1 for identical)."""
    return Levenshtein.normalized_similarity(a.lower(), b.lower())


def blocking_keys(phrase):
    """The content words of a phrase: two phrases are compared only when they share one."""
    return sorted({t for t in tokens(phrase) if t not in stopwords()})


def block_windows(members, size):
    """`members` ((phrase, vector) pairs) sorted by length then text, cut into windows of `size` that overlap by
    half, so phrases of similar length meet and the pairs compared grow linearly with the block."""
    ordered = sorted(members, key=lambda member: (len(member[0]), member[0]))
    if len(ordered) <= size:
        return [ordered]
    step = max(1, size // 2)
    return [ordered[start:start + size] for start in range(0, len(ordered) - step, step)]


def hard_negative_candidates(window, *, min_edit_similarity=0.5, max_cosine=0.6):
    """(phrase, (cosine, edit similarity, other)) for each ordered pair of a window of (phrase, unit vector) whose
    edit similarity is at least `min_edit_similarity` and cosine at most `max_cosine` (not the same phrase in
    another casing)."""
    if len(window) < 2:
        return
    lowered = [phrase.lower() for phrase, _ in window]
    similarity = cdist(lowered, lowered, scorer=Levenshtein.normalized_similarity,
                       score_cutoff=min_edit_similarity, dtype=np.float32, workers=1)
    vectors = np.stack([vector for _, vector in window])
    cosine = vectors @ vectors.T
    for i, j in zip(*np.nonzero((similarity >= min_edit_similarity) & (cosine <= max_cosine))):
        if lowered[i] != lowered[j]:
            yield window[i][0], (round(float(cosine[i, j]), 6), round(float(similarity[i, j]), 6), window[j][0])


def pick_hard_negatives(candidates, k=2):
    """The k distinct candidates of lowest cosine (ties by text), as (cosine, edit similarity, phrase)."""
    best = {}
    for cosine, similarity, other in candidates:
        best[other] = min((cosine, similarity), best.get(other, (cosine, similarity)))
    return [(cosine, similarity, other)
            for other, (cosine, similarity) in sorted(best.items(), key=lambda item: (item[1][0], item[0]))[:k]]


def bucket(value, width=BUCKET_WIDTH):
    """The lower edge of the `width` bin holding `value`, as text ("0.5" holds [0.5, 0.6))."""
    return f"{math.floor(round(value / width, 6)) * width:.1f}"
