"""Appendix A.1 triplets: anchor and positive = the two most distant of up to 100 contexts of a phrase, negative =
of 300 random sentences drawn for that phrase among those not holding it, the one closest to either (the closer
of the two is the anchor)."""
import hashlib

import numpy as np

ANCHOR_POOL = 100
NEGATIVE_POOL = 300


def anchor_generator(seed, phrase):
    """The random generator of one anchor phrase's negative draw: the same for a seed and phrase on any machine."""
    return np.random.default_rng(int.from_bytes(hashlib.sha1(f"{seed}\0{phrase}".encode("utf-8")).digest()[:8], "big"))


def draw_negatives(seed, phrase, count, holds_phrase, size=NEGATIVE_POOL):
    """Indices of `size` of `count` candidates drawn at random for the anchor `phrase` (seeded by seed and phrase),
    passing over those for which `holds_phrase(index)` is true; fewer when fewer are left."""
    drawn = []
    for index in anchor_generator(seed, phrase).permutation(count):
        if not holds_phrase(int(index)):
            drawn.append(int(index))
            if len(drawn) == size:
                break
    return drawn


def choose_triplet(context_vectors, negative_vectors):
    """(anchor, positive, negative) row indices from unit vectors: the least similar pair of contexts, and the
    negative most similar to either of them; the one of the pair closer to that negative is the anchor."""
    similarity = context_vectors @ context_vectors.T
    np.fill_diagonal(similarity, np.inf)
    first, second = np.unravel_index(int(np.argmin(similarity)), similarity.shape)
    to_pair = negative_vectors @ context_vectors[[first, second]].T
    negative = int(np.argmax(to_pair.max(axis=1)))
    if to_pair[negative, 0] >= to_pair[negative, 1]:
        return int(first), int(second), negative
    return int(second), int(first), negative


def distinct_negatives(records):
    """How many different negative contexts (sentence, phrase) the triplet records use."""
    return len({(r["negative"]["sentence_id"], r["negative_phrase"]) for r in records})
