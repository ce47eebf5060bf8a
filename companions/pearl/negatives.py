"""Hard negatives: corpus phrases that look alike (high lexical overlap) but mean something else (low cosine)."""
import re

from picforge.resources import stopwords

TOKEN = re.compile(r"[a-z0-9]+")


def tokens(phrase):
    """Lower-case alphanumeric tokens of a phrase."""
    return TOKEN.findall(phrase.lower())


def token_jaccard(a, b):
    """|A ∩ B| / |A ∪ B| of the two phrases' token sets (0 when both are empty)."""
    left, right = set(tokens(a)), set(tokens(b))
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def edit_distance(a, b):
    """Levenshtein distance between two strings (insert, delete, substitute: cost 1)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ch in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ch != other)))
        previous = current
    return previous[-1]


def edit_similarity(a, b):
    """1 − edit distance / length of the longer phrase, compared lower-case (1 for identical)."""
    longest = max(len(a), len(b))
    return 1.0 - edit_distance(a.lower(), b.lower()) / longest if longest else 1.0


def lexical_overlap(a, b):
    """The larger of token Jaccard and edit similarity: high when two phrases share words or spelling."""
    return max(token_jaccard(a, b), edit_similarity(a, b))


def blocking_keys(phrase):
    """The content words of a phrase: two phrases are compared only when they share one."""
    return sorted({t for t in tokens(phrase) if t not in stopwords()})


def hard_negative_candidates(block, *, min_overlap=0.5, max_cosine=0.6):
    """(phrase, (cosine, other)) for each ordered pair of a block of (phrase, unit vector) whose lexical
    overlap is at least `min_overlap` and cosine at most `max_cosine`."""
    for i, (phrase, vector) in enumerate(block):
        for j, (other, other_vector) in enumerate(block):
            if i == j or phrase.lower() == other.lower():
                continue
            cosine = float(vector @ other_vector)  # the cheap test first
            if cosine <= max_cosine and lexical_overlap(phrase, other) >= min_overlap:
                yield phrase, (round(cosine, 6), other)


def pick_hard_negatives(candidates, k=2):
    """The k distinct candidates of lowest cosine (ties by text), as phrases."""
    best = {}
    for cosine, other in candidates:
        best[other] = min(cosine, best.get(other, cosine))
    return [other for other, _ in sorted(best.items(), key=lambda item: (item[1], item[0]))[:k]]
