"""Hard negatives: corpus phrases at a small edit distance (look alike) whose encoder cosine is low (mean something
else), found within blocks that share a content word, among the phrase's own split and the corpus phrases no split
holds (seen fewer than --min-count times)."""
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


def split_members(members, split):
    """(phrase, is_anchor) for the (phrase, split or None) `members` of a block that `split`'s phrases may take as
    negatives: its own phrases (the anchors) and the rare ones (None) unless, case-folded, a phrase of another split
    ("The war" seen once, "the war" a test phrase, is no negative for a train phrase)."""
    elsewhere = {phrase.lower() for phrase, member_split in members if member_split not in (split, None)}
    return [(phrase, member_split == split) for phrase, member_split in members
            if member_split == split or member_split is None and phrase.lower() not in elsewhere]


def block_windows(members, size):
    """`members` ((phrase, anything) pairs) sorted by length then text, cut into windows of `size` that overlap by
    half, so phrases of similar length meet and the pairs compared grow linearly with the block."""
    ordered = sorted(members, key=lambda member: (len(member[0]), member[0]))
    if len(ordered) <= size:
        return [ordered]
    step = max(1, size // 2)
    return [ordered[start:start + size] for start in range(0, len(ordered) - step, step)]


def look_alike_candidates(window, min_edit_similarity=0.5):
    """(anchor, (edit similarity, other)) for each anchor of a window of (phrase, is_anchor) and each other member
    whose edit similarity with it is at least `min_edit_similarity` (not the same phrase in another casing)."""
    anchors = [i for i, (_, is_anchor) in enumerate(window) if is_anchor]
    if not anchors or len(window) < 2:
        return
    lowered = [phrase.lower() for phrase, _ in window]
    similarity = cdist([lowered[i] for i in anchors], lowered, scorer=Levenshtein.normalized_similarity,
                       score_cutoff=min_edit_similarity, dtype=np.float32, workers=1)
    for row, column in zip(*np.nonzero(similarity >= min_edit_similarity)):
        i = anchors[row]
        if lowered[i] != lowered[column]:
            yield window[i][0], (round(float(similarity[row, column]), 6), window[column][0])


def within_budget(found, budget):
    """The `budget` distinct candidates most alike in form (highest edit similarity, ties by text), as
    (edit similarity, phrase): every phrase gets the same number of candidates scored by the encoder."""
    best = {}
    for similarity, other in found:
        best[other] = max(similarity, best.get(other, similarity))
    return [(similarity, other) for other, similarity in sorted(best.items(), key=lambda item: (-item[1], item[0]))[:budget]]


def fewest_shared_words(phrase, candidates, keep):
    """The `keep` of `candidates` ((edit similarity, other), most alike first) sharing the smallest share of their
    words with `phrase` (Jaccard of the lower-case tokens; ties: the more alike in form, then by text): the ones
    likely to mean something else, so only they are encoded."""
    own = set(tokens(phrase))

    def shared(candidate):
        similarity, other = candidate
        theirs = set(tokens(other))
        return len(own & theirs) / (len(own | theirs) or 1), -similarity, other

    return sorted(candidates, key=shared)[:keep]


def low_cosine(vector, candidates, max_cosine=0.6):
    """(cosine, edit similarity, phrase) for each (edit similarity, phrase, unit vector) of `candidates` whose
    cosine with the unit `vector` is at most `max_cosine`."""
    scored = ((round(float(np.dot(vector, other_vector)), 6), similarity, other)
              for similarity, other, other_vector in candidates)
    return [item for item in scored if item[0] <= max_cosine]


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
