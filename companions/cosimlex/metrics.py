"""The CoSimLex task metrics: subtask 1 (change of similarity between contexts), subtask 2 (ratings)."""
import math
import warnings

from scipy import stats

from picforge.errors import InputError


def uncentered_pearson(xs, ys):
    """Pearson correlation without subtracting the means (a cosine); 0.0 when either side is all zeros."""
    dot = sum(x * y for x, y in zip(xs, ys, strict=True))
    norm = math.sqrt(sum(x * x for x in xs) * sum(y * y for y in ys))
    return dot / norm if norm else 0.0


def score_predictions(gold, predictions, where="predictions"):
    """{subtask1, subtask2, pairs} of predictions {(word1, word2): {"sim1", "sim2"} or {"change"}} against the
    `gold` rows; subtask 1 compares changes sim2 - sim1, subtask 2 (None without sim1/sim2) the ratings
    (0.0 for constant predictions, where Spearman is undefined)."""
    missing = [f"{g['word1']} {g['word2']}" for g in gold if (g["word1"], g["word2"]) not in predictions]
    if missing:
        raise InputError(f"{where}: no prediction for {len(missing)} gold pair(s), e.g. {missing[0]}; "
                         "predict every pair of the gold file")
    rows = [(predictions[(g["word1"], g["word2"])], g) for g in gold]
    predicted_changes = [p["change"] if "change" in p else p["sim2"] - p["sim1"] for p, _ in rows]
    gold_changes = [g["sim2"] - g["sim1"] for _, g in rows]
    result = {"pairs": len(rows), "subtask1": uncentered_pearson(predicted_changes, gold_changes), "subtask2": None}
    if all("sim1" in p for p, _ in rows):
        predicted = [s for p, _ in rows for s in (p["sim1"], p["sim2"])]
        expected = [s for _, g in rows for s in (g["sim1"], g["sim2"])]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", stats.ConstantInputWarning)
            rho = float(stats.spearmanr(predicted, expected).statistic)
        result["subtask2"] = 0.0 if math.isnan(rho) else rho
    return result
