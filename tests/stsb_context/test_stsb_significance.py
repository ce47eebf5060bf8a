"""Williams' t-test between dependent correlations, checked against a worked example, and Table 1's comparison."""
import math

import numpy as np
import pytest

from companions.stsb_context import significance, spans


def t_tail_by_integration(t, df):
    """P(T > t) for Student's t with df degrees of freedom, by the trapezoid rule over its density (no scipy)."""
    x = np.linspace(t, 400.0, 2_000_001)
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    density = np.exp(log_norm - (df + 1) / 2 * np.log1p(x ** 2 / df))
    return float(np.sum((density[1:] + density[:-1]) / 2 * np.diff(x)))


def test_williams_t_matches_a_worked_example():
    # r12 = 1/2 (gold, best), r13 = 3/10 (gold, other), r23 = 2/5 (the two predictions), n = 23, by hand:
    #   |R| = 1 - 1/4 - 9/100 - 4/25 + 2 * 1/2 * 3/10 * 2/5 = 31/50
    #   denominator = 2 * 22/20 * 31/50 + (4/10)^2 * (3/5)^3 = 1.364 + 0.03456 = 8741/6250
    #   t^2 = (1/5)^2 * 22 * 7/5 / (8741/6250) = 7700/8741, so t = 0.938566 with 20 degrees of freedom
    t, df = significance.williams_t(0.5, 0.3, 0.4, 23)
    assert df == 20 and t == pytest.approx(math.sqrt(7700 / 8741), rel=1e-12)
    test = significance.williams_test(0.5, 0.3, 0.4, 23)
    assert test["p"] == pytest.approx(2 * t_tail_by_integration(math.sqrt(7700 / 8741), 20), abs=1e-6)
    assert test["p"] == pytest.approx(0.3592, abs=1e-4)


def test_williams_t_is_antisymmetric_and_null_for_equal_correlations():
    assert significance.williams_t(0.3, 0.5, 0.4, 23)[0] == pytest.approx(-significance.williams_t(0.5, 0.3, 0.4, 23)[0])
    assert significance.williams_test(0.4, 0.4, 0.7, 50) == {"t": 0.0, "df": 47, "p": 1.0}
    # the more the two predictions agree, the surer a given difference is
    assert significance.williams_t(0.6, 0.4, 0.9, 100)[0] > significance.williams_t(0.6, 0.4, 0.1, 100)[0]
    # at the tabulated two-sided 5% point of t with 20 degrees of freedom (2.086), p is 0.05
    assert 2 * t_tail_by_integration(2.086, 20) == pytest.approx(0.05, abs=2e-4)
    with pytest.raises(ValueError, match="more than 3 pairs"):
        significance.williams_t(0.5, 0.3, 0.4, 3)


def test_compare_tests_each_row_against_the_best_of_its_setup_and_of_all():
    rng = np.random.default_rng(0)
    gold = rng.uniform(0, 5, 60)
    good, fair, poor = (gold + rng.normal(0, s, 60) for s in (0.5, 1.5, 4.0))
    rows = [{"stage": "eval-full", "setup": "full", "encoder": "m", "predictions": fair},
            {"stage": "eval-glove-full", "setup": "full", "encoder": "g", "predictions": poor},
            {"stage": "eval-ngram-single", "setup": "ngram-single", "encoder": "m", "predictions": good}]
    table = {r["stage"]: r for r in significance.compare(gold, rows)}
    assert [r["stage"] for r in significance.compare(gold, rows)] == [r["stage"] for r in rows]
    for row in rows:
        entry = table[row["stage"]]
        assert (entry["pearson"], entry["spearman"], entry["n"]) == tuple(
            spans.correlations(gold, row["predictions"])[k] for k in ("pearson", "spearman", "n"))
    assert table["eval-full"]["best_in_setup"] == "eval-full" and table["eval-full"]["p_vs_best_in_setup"] is None
    assert table["eval-glove-full"]["best_in_setup"] == "eval-full"
    assert all(r["best_in_all"] == "eval-ngram-single" for r in table.values())
    assert table["eval-ngram-single"]["p_vs_best_in_all"] is None
    expected = significance.williams_test(spans.pearson(gold, good), spans.pearson(gold, poor),
                                          spans.pearson(good, poor), 60)
    assert table["eval-glove-full"]["p_vs_best_in_all"] == pytest.approx(expected["p"])
    assert table["eval-glove-full"]["t_vs_best_in_all"] == pytest.approx(expected["t"]) and expected["t"] > 0
    assert table["eval-glove-full"]["p_vs_best_in_all"] < 0.05
    # a constant prediction has no correlation, so it is neither best nor tested
    flat = significance.compare(gold, rows + [{"stage": "eval-bm25", "setup": "bm25", "encoder": "b",
                                               "predictions": np.zeros(60)}])[-1]
    assert (flat["pearson"], flat["best_in_setup"], flat["p_vs_best_in_all"]) == (None, None, None)
