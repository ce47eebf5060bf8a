"""Choosing the candidate contexts of a pair: per encoder, the contexts it scores most and least similar."""

DEFAULT_PER_ENCODER = 2
LOW_RESOURCE_PER_ENCODER = 4
DEFAULT_MAX_CONTEXTS = 200  # contexts scored per pair


def score_of(context, encoder):
    """The encoder's similarity for a scored context record, or None."""
    return next((s["similarity"] for s in context["scores"] if s["encoder"] == encoder), None)


def select_candidates(contexts, encoders, per_encoder):
    """Candidate records: for each encoder in turn, its `per_encoder` most and least similar contexts.

    A context is not picked when a picked one holds the same two word occurrences (an overlapping window),
    so a pair gets up to 2 * per_encoder * len(encoders) distinct candidates; `picked_by` says which
    encoder and end ("minilm:most") chose each one.
    """
    candidates, taken = [], set()
    for encoder in encoders:
        scored = [c for c in contexts if score_of(c, encoder) is not None]
        for end, sign in (("most", -1), ("least", 1)):
            ranked = sorted(scored, key=lambda c: (sign * score_of(c, encoder), c["context_id"]))
            chosen = 0
            for context in ranked:
                if chosen == per_encoder:
                    break
                if tuple(context["occurrences"]) not in taken:
                    taken.add(tuple(context["occurrences"]))
                    candidates.append(dict(context, picked_by=f"{encoder}:{end}"))
                    chosen += 1
    for number, candidate in enumerate(candidates, start=1):
        candidate["candidate_no"] = number
    return candidates
