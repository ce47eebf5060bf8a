"""Williams' (1959) t-test for two dependent correlations sharing one variable, and the comparison of evaluated
setups the SLICE paper's Table 1 makes with it (each row against the best Pearson correlation)."""
import math

from scipy import stats

from companions.stsb_context.spans import correlations, pearson


def williams_t(r12, r13, r23, n):
    """(t, degrees of freedom) of Williams' test that r12 = r13, where variable 1 (the gold scores) is shared and
    r23 correlates the two predictions (the form in Steiger 1980): n - 3 degrees of freedom, n > 3."""
    if n <= 3:
        raise ValueError(f"Williams' test needs more than 3 pairs, got {n}")
    determinant = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    denominator = 2 * (n - 1) / (n - 3) * determinant + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3
    if denominator <= 0:  # only when the predictions correlate perfectly, so r12 = r13
        return 0.0, n - 3
    return (r12 - r13) * math.sqrt((n - 1) * (1 + r23) / denominator), n - 3


def williams_test(r12, r13, r23, n):
    """{t, df, p}: Williams' t and its two-sided p-value (Student's t with n - 3 degrees of freedom)."""
    t, df = williams_t(r12, r13, r23, n)
    return {"t": t, "df": df, "p": float(2 * stats.t.sf(abs(t), df))}


def versus(gold, best, other):
    """Williams' test of the best row's Pearson correlation with the gold scores against another row's (same rows):
    {"r_predictions", "t", "df", "p"}, or None when a correlation is undefined or there are too few rows."""
    r_best, r_other, r_between = pearson(gold, best), pearson(gold, other), pearson(best, other)
    if None in (r_best, r_other, r_between) or len(gold) <= 3:
        return None
    return {"r_predictions": r_between, **williams_test(r_best, r_other, r_between, len(gold))}


def compare(gold, rows):
    """Rows of Table 1 with significance: `rows` are {"stage", "setup", "encoder", "predictions"} on the same gold
    scores; each row is tested against the best Pearson row of its setup (the paper's test) and the best row of all."""
    scored = [dict(row, **correlations(gold, row["predictions"])) for row in rows]
    ranked = [r for r in scored if r["pearson"] is not None]

    def best_of(candidates):
        return max(candidates, key=lambda r: r["pearson"]) if candidates else None

    best_overall = best_of(ranked)
    table = []
    for row in scored:
        entry = {key: row[key] for key in ("stage", "setup", "encoder", "n", "pearson", "spearman")}
        for scope, best in (("setup", best_of([r for r in ranked if r["setup"] == row["setup"]])),
                            ("all", best_overall)):
            test = None if best is None or best is row else versus(gold, best["predictions"], row["predictions"])
            entry[f"best_in_{scope}"] = None if best is None else best["stage"]
            entry[f"p_vs_best_in_{scope}"] = None if test is None else test["p"]
            entry[f"t_vs_best_in_{scope}"] = None if test is None else test["t"]
        table.append(entry)
    return table
