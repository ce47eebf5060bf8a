"""The split of a PEARL phrase, fixed at build time so hard negatives are chosen within it."""
import hashlib

from picforge.release_writer import SPLITS

DEFAULT_RATIOS = (0.8, 0.1, 0.1)


def split_of(phrase, seed, ratios=DEFAULT_RATIOS):
    """The split of a phrase: a seeded hash of its lower-cased text, so a phrase (in any casing) is in one split."""
    digest = hashlib.sha256(f"{seed}\x1f{phrase.lower()}".encode("utf-8")).digest()
    point, edge = int.from_bytes(digest[:8], "big") / 2 ** 64, 0.0
    for split, ratio in zip(SPLITS, ratios):
        edge += ratio
        if point < edge:
            return split
    return SPLITS[-1]
