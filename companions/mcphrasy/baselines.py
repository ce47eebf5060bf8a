"""§5.3.1 clustering baselines side by side: phrase distances (edit distance, averaged word vectors, a sentence
encoder, a McPhraSy-style average over contexts), complete-linkage agglomerative clustering into k clusters,
V-measure / ARI / AMI per group, and a paired permutation test between methods over groups."""
import itertools

import numpy as np

from companions.mcphrasy import clusters
from companions.mcphrasy.match import MASK
from picforge.progress import tracked

DEFAULT_KS = ("10", "15", "20", "gold")
METRICS = ("v_measure", "ari", "ami")
ROUNDS = 10_000
SIGNIFICANT = 0.05


def edit_distances(phrases):
    """Pairwise character Levenshtein distance divided by the longer phrase's length (0 = same, 1 = nothing shared),
    computed by rapidfuzz."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cdist

    return cdist(phrases, phrases, scorer=Levenshtein.normalized_distance, dtype=np.float64, workers=1)


def cosine_distances(vectors):
    """Pairwise cosine distance of the rows (a zero row is at distance 1 from every other)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = np.divide(vectors, norms, out=np.zeros_like(vectors, dtype=float), where=norms > 0)
    distance = np.clip(1.0 - unit @ unit.T, 0.0, 2.0)
    np.fill_diagonal(distance, 0.0)
    return distance


def agglomerate(distance, k):
    """Cluster ids by complete-linkage agglomerative clustering of a precomputed distance matrix into k clusters."""
    from sklearn.cluster import AgglomerativeClustering

    k = max(1, min(k, len(distance)))
    if k == len(distance):
        return list(range(k))
    return AgglomerativeClustering(n_clusters=k, metric="precomputed", linkage="complete").fit_predict(distance).tolist()


def averaged_word_vectors(phrases, word_vector, dimensions):
    """A row per phrase: the mean of its known words' vectors (`word_vector(word)` is None when unknown); zeros
    when no word is known."""
    rows = []
    for phrase in phrases:
        known = [v for v in (word_vector(w) for w in phrase.split()) if v is not None]
        rows.append(np.mean(known, axis=0) if known else np.zeros(dimensions))
    return np.stack(rows)


def mask_vectors(token_vectors, offsets, masked):
    """The mean of the token vectors at the [MASK] marks of a masked context; None when truncation lost them all."""
    found, start = [], masked.find(MASK)
    while start != -1:
        rows = [n for n, (a, b) in enumerate(offsets) if a < start + len(MASK) and b > start and b > a]
        found += [token_vectors[n] for n in rows]
        start = masked.find(MASK, start + len(MASK))
    return np.mean(found, axis=0) if found else None


def unit_rows(vectors):
    """The rows scaled to length 1 (a zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors, dtype=float), where=norms > 0)


def group_scores(records, distance_of, ks=DEFAULT_KS):
    """{k: [scores of each group]}: `distance_of(phrases)` clustered into k (or the gold count) clusters."""
    found = {k: [] for k in ks}
    for record in records:
        names = record["phrases"]
        labels = {p: (str(n), c["kind"]) for n, c in enumerate(record["clusters"]) for p in c["phrases"]}
        truth = clusters.label_vector(names, labels)
        distance = distance_of(names)
        for k in ks:
            count = len(record["clusters"]) if k == "gold" else int(k)
            found[k].append(clusters.scores(truth, agglomerate(distance, count)))
    return found


def paired_permutation_p(first, second, rounds=ROUNDS, seed=0):
    """Two-sided p of a paired permutation (sign-flip) test on the mean difference of paired scores:
    (1 + rounds at least as extreme) / (1 + rounds); 1.0 when every pair is equal."""
    differences = np.asarray(first, dtype=float) - np.asarray(second, dtype=float)
    observed = abs(differences.mean())
    if not np.any(differences):
        return 1.0
    signs = np.random.default_rng(seed).choice((-1.0, 1.0), size=(rounds, len(differences)))
    extreme = np.count_nonzero(np.abs((signs * differences).mean(axis=1)) >= observed - 1e-12)
    return float((1 + extreme) / (1 + rounds))


def compare(per_method, rounds=ROUNDS, seed=0):
    """Mean scores per method and k, every pair of methods tested per k and metric, and per k and metric the best
    method against the next best: {scores, pairs, best}."""
    scores = {m: {k: {key: round(v, 4) for key, v in clusters.mean_scores(rows).items()} for k, rows in by_k.items()}
              for m, by_k in per_method.items()}
    ks = next(iter(per_method.values())).keys() if per_method else ()
    pairs, best = [], {}
    for k in ks:
        best[k] = {}
        for metric in METRICS:
            values = {m: [row[metric] for row in per_method[m][k]] for m in per_method}
            for a, b in itertools.combinations(per_method, 2):
                pairs.append({"k": k, "metric": metric, "a": a, "b": b,
                              "mean_difference": round(float(np.mean(values[a]) - np.mean(values[b])), 4),
                              "p": round(paired_permutation_p(values[a], values[b], rounds, seed), 4)})
            ranked = sorted(per_method, key=lambda m: -np.mean(values[m]))
            if len(ranked) > 1:
                p = paired_permutation_p(values[ranked[0]], values[ranked[1]], rounds, seed)
                best[k][metric] = {"best": ranked[0], "next": ranked[1], "p": round(p, 4),
                                   "significant": p < SIGNIFICANT}
    return {"scores": scores, "pairs": pairs, "best": best}


def static_word_vectors(model):
    """A word-vector lookup from a sentence encoder's input (non-contextual) word-piece embeddings: a word is the
    mean of its pieces' rows; the stand-in for GloVe when no vectors file is given."""
    table = model[0].auto_model.get_input_embeddings().weight.detach().cpu().numpy()
    tokenizer = model.tokenizer

    def lookup(word):
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        return table[pieces].mean(axis=0) if pieces else None

    return lookup, table.shape[1]


def context_vectors(model_name, contexts_of, phrases, max_contexts, device="auto"):
    """{phrase: unit mean over its first `max_contexts` contexts of the encoder's token vectors at [MASK]} for the
    phrases with contexts (§3.1 with the sentence encoder's transformer, on `device`, in place of SpanBERT)."""
    from picforge.encoders import TokenEncoder, resolve_model_path

    encoder = TokenEncoder(resolve_model_path(model_name), device=device)
    found = {}
    for phrase in tracked(phrases, len(phrases), "contextual baseline", "phrases"):
        masked = [c["masked"] for c in contexts_of.get(phrase, [])[:max_contexts]]
        rows = [v for (vectors, offsets), text in zip(encoder.token_vectors(masked), masked)
                if (v := mask_vectors(vectors, offsets, text)) is not None]
        if rows:
            found[phrase] = unit_rows(np.mean(rows, axis=0, keepdims=True))[0]
    return found


def method_distances(phrases, model, model_name, word_vector, dimensions, contexts_of=None, max_contexts=300,
                     device="auto"):
    """{method: distance function of a phrase list} for every baseline the inputs allow (the contextual two only
    with `contexts_of`, {phrase: contexts}, their token encoder on `device`)."""
    from picforge.encoders import encode

    encoded = dict(zip(phrases, encode(model, phrases)))
    averaged = dict(zip(phrases, averaged_word_vectors(phrases, word_vector, dimensions)))
    tables = {"edit-distance": None, "word-vectors": averaged, "encoder": encoded}
    if contexts_of is not None:
        contextual = context_vectors(model_name, contexts_of, phrases, max_contexts, device)
        zero = np.zeros(len(encoded[phrases[0]]))
        tables["contexts"] = {p: contextual.get(p, zero) for p in phrases}
        tables["contexts+phrase"] = {p: np.concatenate([contextual.get(p, zero), encoded[p]]) for p in phrases}

    def distances_by(table):
        if table is None:
            return edit_distances
        return lambda names: cosine_distances(np.stack([table[n] for n in names]))

    return {name: distances_by(table) for name, table in tables.items()}
