"""Seeded sampling shared by the areas: a sort key that orders items the same way for the same seed, on any machine
and in any process (no random state to carry)."""
import hashlib


def seeded_rank(seed, *parts):
    """A deterministic pseudo-random sort key for sampling with a seed."""
    return hashlib.sha1("\x1f".join([str(seed), *map(str, parts)]).encode("utf-8")).hexdigest()
