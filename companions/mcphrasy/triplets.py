"""Appendix A.1 triplets: anchor and positive = the two most distant contexts of a phrase, negative = the
sentence without the phrase closest to one of them (the closer of the two is the anchor)."""
import numpy as np

ANCHOR_POOL = 100
NEGATIVE_POOL = 300


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
