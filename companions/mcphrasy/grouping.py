"""§4 / Appendix B.1 phrase groups: frequent phrases per product and category, then seed + 24 nearest by averaged
word vectors (or a sentence encoder's phrase vectors)."""
import numpy as np

PER_PRODUCT = 30
PER_CATEGORY = 2000
GROUP_SIZE = 25
NEAR_DUPLICATE = 0.99
PAPER_GROUPS = 106


def top_phrases(counts, n):
    """The n most frequent (phrase, count) of a {phrase: count}, ties by phrase, so the choice is stable."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]


def phrase_vectors(phrases, word_vector):
    """{phrase: unit vector of the average of its words' vectors}; `word_vector(word)` is None when unknown.
    A phrase with an unknown word has no vector."""
    found = {}
    for phrase in phrases:
        vectors = [word_vector(w) for w in phrase.split()]
        if any(v is None for v in vectors):
            continue
        mean = np.mean(vectors, axis=0)
        norm = np.linalg.norm(mean)
        if norm > 0:
            found[phrase] = mean / norm
    return found


def group_around(seed, ranked, vectors, size=GROUP_SIZE, near_duplicate=NEAR_DUPLICATE):
    """The seed and its size-1 nearest phrases of `ranked` by cosine, skipping those above `near_duplicate`;
    None when fewer are available."""
    others = [p for p in ranked if p != seed and p in vectors]
    if seed not in vectors or len(others) < size - 1:
        return None
    similarity = np.stack([vectors[p] for p in others]) @ vectors[seed]
    order = sorted(range(len(others)), key=lambda i: (-similarity[i], others[i]))
    chosen = [others[i] for i in order if similarity[i] <= near_duplicate][:size - 1]
    return [seed] + chosen if len(chosen) == size - 1 else None


def overlaps_too_much(group, earlier):
    """True when the group shares more than half of its phrases with any earlier group."""
    members = set(group)
    return any(len(members & set(other)) > len(group) / 2 for other in earlier)


def category_groups(ranked, vectors, max_groups, size=GROUP_SIZE, near_duplicate=NEAR_DUPLICATE):
    """(groups, reasons): seeds in frequency order, each seed's group kept unless it overlaps an earlier one by
    more than half; `reasons` counts why seeds gave no group ('no-vector', 'too-few-neighbours', 'overlap')."""
    groups, reasons = [], {}
    for seed in ranked:
        if len(groups) >= max_groups:
            break
        if seed not in vectors:
            reasons["no-vector"] = reasons.get("no-vector", 0) + 1
            continue
        group = group_around(seed, ranked, vectors, size, near_duplicate)
        if group is None:
            reasons["too-few-neighbours"] = reasons.get("too-few-neighbours", 0) + 1
        elif overlaps_too_much(group, groups):
            reasons["overlap"] = reasons.get("overlap", 0) + 1
        else:
            groups.append(group)
    return groups, reasons


def groups_in_turn(by_category, target):
    """{category: its groups kept} reaching at most `target` groups over all categories: each category's next group
    in seed order, categories in name order, round by round (106 over 5 categories of up to 25: 22, 21, 21, 21, 21)."""
    kept = {category: [] for category in by_category}
    total, round_no = 0, 0
    while total < target and any(round_no < len(groups) for groups in by_category.values()):
        for category in sorted(by_category):
            if total < target and round_no < len(by_category[category]):
                kept[category].append(by_category[category][round_no])
                total += 1
        round_no += 1
    return kept


def group_id(category, seed):
    """The natural id of a group: its category and seed phrase."""
    return f"{category}/{seed}"
