"""Post-processing of the ratings after SimLex-999: engagement check, dropping annotators who disagree
with the others, calibration, and per-context means, deviations and Mann-Whitney U p-values."""
import collections
import math
import re
import statistics
import warnings

from companions.cosimlex.declarations import PostprocessOptions as Defaults
from companions.cosimlex.rating import SCALE

MIN_ITEMS_TO_JUDGE = 3
WORD = re.compile(r"[^\W\d_]{2,}(?:[-'’][^\W\d_]+)*")


def engaged(inspired1, inspired2):
    """Whether the page-1 answer shows engagement: two different real words (letters, not digits or junk)."""
    words = [(w or "").strip().casefold() for w in (inspired1, inspired2)]
    return all(WORD.fullmatch(w) for w in words) and words[0] != words[1]


def engagement_check(ratings, max_disengaged):
    """(kept ratings, disengaged annotators, number of dropped responses).

    A response fails when its two words are not two different real words, or when the annotator gave the
    same two words for another context too; an annotator failing more than `max_disengaged` of their
    responses is dropped entirely, otherwise only the failing responses are."""
    by_worker = collections.defaultdict(list)
    for rating in ratings:
        by_worker[rating["worker_id"]].append(rating)
    kept, dropped_workers, dropped_responses = [], [], 0
    for worker, own in sorted(by_worker.items()):
        answer_counts = collections.Counter(
            frozenset((r["inspired1"].strip().casefold(), r["inspired2"].strip().casefold())) for r in own)
        passing = [r for r in own if engaged(r["inspired1"], r["inspired2"]) and answer_counts[
            frozenset((r["inspired1"].strip().casefold(), r["inspired2"].strip().casefold()))] == 1]
        if len(own) - len(passing) > max_disengaged * len(own):
            dropped_workers.append(worker)
            dropped_responses += len(own)
        else:
            kept += passing
            dropped_responses += len(own) - len(passing)
    return kept, dropped_workers, dropped_responses


def agreement_with_others(ratings, min_items=MIN_ITEMS_TO_JUDGE):
    """{annotator: Spearman of their ratings with the mean of the other annotators' ratings of the same
    items}; None for annotators sharing fewer than `min_items` items with others, 0.0 where undefined."""
    from scipy import stats  # here, not at import: every `picforge cosimlex` verb imports this module

    by_item = collections.defaultdict(dict)
    for rating in ratings:
        by_item[rating["item_id"]][rating["worker_id"]] = rating["value"]
    workers = sorted({r["worker_id"] for r in ratings})
    scores = {}
    for worker in workers:
        own, others = [], []
        for raters in by_item.values():
            if worker in raters and len(raters) > 1:
                own.append(raters[worker])
                others.append(statistics.fmean(v for w, v in raters.items() if w != worker))
        if len(own) < min_items:
            scores[worker] = None
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", stats.ConstantInputWarning)
            rho = float(stats.spearmanr(own, others).statistic)
        scores[worker] = 0.0 if math.isnan(rho) else rho
    return scores


def calibrate(ratings):
    """Ratings shifted per annotator so that their mean equals everyone's mean on the same items, clipped
    to the 0-6 scale (SimLex-999's calibration)."""
    by_item = collections.defaultdict(list)
    by_worker = collections.defaultdict(list)
    for rating in ratings:
        by_item[rating["item_id"]].append(rating["value"])
        by_worker[rating["worker_id"]].append(rating)
    item_means = {item: statistics.fmean(values) for item, values in by_item.items()}
    calibrated = []
    for own in by_worker.values():
        shift = statistics.fmean(item_means[r["item_id"]] for r in own) - statistics.fmean(r["value"] for r in own)
        for rating in own:
            calibrated.append(dict(rating, value=min(max(rating["value"] + shift, SCALE[0]), SCALE[-1])))
    return calibrated


def context_statistics(values1, values2):
    """(mean1, mean2, sd1, sd2, Mann-Whitney U two-sided p-value) of the ratings of a pair's two contexts."""
    from scipy import stats

    p_value = stats.mannwhitneyu(values1, values2, alternative="two-sided").pvalue
    return (statistics.fmean(values1), statistics.fmean(values2), statistics.stdev(values1),
            statistics.stdev(values2), float(p_value))


def word_places(selection):
    """Where each word stands in each chosen context: `contextC_wordW_start`/`_end` character offsets and the
    surface form there, `wordW_contextC` (as CoSimLex's release names it)."""
    places = {}
    for c in (1, 2):
        context = selection[f"context{c}"]
        for w in (1, 2):
            start, end = context[f"word{w}_start"], context[f"word{w}_end"]
            places |= {f"context{c}_word{w}_start": start, f"context{c}_word{w}_end": end,
                       f"word{w}_context{c}": context["text"][start:end]}
    return places


def postprocess(ratings, selections, *, min_correlation=Defaults.min_correlation,
                max_disengaged=Defaults.max_disengaged, min_ratings=Defaults.min_ratings, scale_max=Defaults.scale_max):
    """(final rows {word1, word2, context1, context2, sim1, sim2, sd1, sd2, p_value} with the words' places in the
    contexts (`word_places`), report).

    `ratings` are rating records with status ok; `selections` the expert's selection records. Final
    similarities are calibrated ratings rescaled from 0-6 to 0-`scale_max`."""
    usable = [dict(r, value=float(r["rating"])) for r in ratings if r["status"] == "ok"]
    kept, disengaged, dropped_responses = engagement_check(usable, max_disengaged)
    agreement = agreement_with_others(kept)
    low = sorted(w for w, rho in agreement.items() if rho is not None and rho < min_correlation)
    kept = calibrate([r for r in kept if r["worker_id"] not in low])
    factor = scale_max / SCALE[-1]
    by_context = collections.defaultdict(list)
    for rating in kept:
        by_context[(rating["pair_id"], rating["context_no"])].append(rating["value"] * factor)
    rows, left_out = [], []
    for selection in sorted(selections, key=lambda s: s["pair_no"]):
        values1, values2 = by_context[(selection["pair_id"], 1)], by_context[(selection["pair_id"], 2)]
        if min(len(values1), len(values2)) < max(min_ratings, 2):
            left_out.append(selection["pair_id"])
            continue
        sim1, sim2, sd1, sd2, p_value = context_statistics(values1, values2)
        rows.append({"word1": selection["word1"], "word2": selection["word2"],
                     "context1": selection["context1"]["text"], "context2": selection["context2"]["text"],
                     "sim1": sim1, "sim2": sim2, "sd1": sd1, "sd2": sd2, "p_value": p_value,
                     **word_places(selection)})
    final_agreement = [rho for rho in agreement_with_others(kept).values() if rho is not None]
    report = {
        "annotators": len({r["worker_id"] for r in usable}),
        "annotators_disengaged": disengaged,
        "annotators_low_correlation": low,
        "responses_failing_engagement": dropped_responses,
        "ratings_used": len(kept),
        "pairs": len(rows),
        "pairs_left_out": left_out,
        "inter_rater_agreement": statistics.fmean(final_agreement) if final_agreement else None,
        "significant_p_below_0.05": sum(r["p_value"] < 0.05 for r in rows),
        "significant_p_below_0.1": sum(r["p_value"] < 0.1 for r in rows),
    }
    return rows, report
