"""Baselines and scoring a maintainer runs on a release: PS Approach 1, PR ranking, EM/F1(+loc) of predictions."""
import collections
import re
import string

import numpy as np

from picforge.progress import log as progress_log, tracked
from picforge.release_writer import MIN_EVAL_ITEMS
from picforge.sheets import read_json_lines
from release import checks, tokens

NGRAM_SIZES = (2, 3)
TOP_K = (1, 3, 5)
# Every score comes with a 95 % percentile bootstrap interval: the test items resampled with replacement this many
# times, from a fixed seed, so the same release and model print the same interval.
BOOTSTRAP_ROUNDS = 1000
BOOTSTRAP_SEED = 0


# --- how sure a score is ---------------------------------------------------------------------------------------

def bootstrap_interval(per_item, rounds=BOOTSTRAP_ROUNDS, seed=BOOTSTRAP_SEED):
    """[low, high] (%) of the 95 % percentile bootstrap interval of the mean of per-item scores in [0, 1]."""
    values = np.asarray(per_item, dtype=float)
    if not len(values):
        return [0.0, 0.0]
    means = values[np.random.default_rng(seed).integers(0, len(values), (rounds, len(values)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return [round(100 * float(low), 2), round(100 * float(high), 2)]


def scored(per_item):
    """A score (%) of per-item values in [0, 1], with its 95 % bootstrap interval and the item count."""
    return {"score": round(100 * float(np.mean(per_item)), 2) if len(per_item) else 0.0,
            "ci95": bootstrap_interval(per_item), "items": len(per_item)}


def size_warning(what, items):
    """The line `evaluate` prints under a table whose split has fewer than MIN_EVAL_ITEMS items, else ''."""
    if items >= MIN_EVAL_ITEMS:
        return ""
    return (f"warning: {what} has {items} item{'s' * (items != 1)}, under {MIN_EVAL_ITEMS}: too few for these scores "
            "to mean anything (see the intervals); build a release with a larger test split before comparing models")


# --- metrics -------------------------------------------------------------------------------------------------

def best_threshold(scores, labels):
    """(threshold, accuracy) maximising accuracy of `score >= threshold → positive` (midpoint between scores)."""
    scores, labels = np.asarray(scores, dtype=float), np.asarray(labels, dtype=int)
    order = np.argsort(scores, kind="stable")
    ordered, y = scores[order], labels[order]
    n = len(ordered)
    negatives_below = np.concatenate([[0], np.cumsum(y == 0)])
    positives_from = int(y.sum()) - np.concatenate([[0], np.cumsum(y == 1)])
    can_cut = np.concatenate([[True], ordered[1:] > ordered[:-1], [True]])
    correct = np.where(can_cut, negatives_below + positives_from, -1)
    cut = int(np.argmax(correct))
    lower = ordered[cut - 1] if cut > 0 else ordered[0] - 1.0
    upper = ordered[cut] if cut < n else ordered[-1] + 1.0
    return float((lower + upper) / 2), float(correct[cut] / n)


def correct(scores, labels, threshold):
    """Per example, 1.0 where `score >= threshold` agrees with the label, else 0.0."""
    return ((np.asarray(scores) >= threshold) == np.asarray(labels, dtype=bool)).astype(float)


def accuracy(scores, labels, threshold):
    """Share of examples where `score >= threshold` agrees with the label."""
    return float(np.mean(correct(scores, labels, threshold)))


def gold_rank(scores, gold):
    """1-based rank of candidate `gold`: one plus the candidates scoring strictly higher."""
    scores = np.asarray(scores)
    return int(np.sum(scores > scores[gold])) + 1


def in_top_k(ranks, k):
    """Per example, 1.0 where the gold candidate ranks within the top k."""
    return [float(rank <= k) for rank in ranks]


def reciprocal_ranks(ranks, k):
    """Per example, 1/rank, or 0 beyond rank k."""
    return [1.0 / rank if rank <= k else 0.0 for rank in ranks]


def top_k_accuracy(ranks, k):
    """Share of examples whose gold candidate ranks within the top k."""
    return float(np.mean(in_top_k(ranks, k))) if ranks else 0.0


def mrr_at_k(ranks, k):
    """Mean reciprocal rank, counting ranks beyond k as 0."""
    return float(np.mean(reciprocal_ranks(ranks, k))) if ranks else 0.0


def normalize_answer(text):
    """SQuAD answer normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def exact_match(prediction, answers):
    """1.0 when the normalised prediction equals a normalised answer."""
    return float(any(normalize_answer(prediction) == normalize_answer(a) for a in answers))


def token_f1(prediction, answers):
    """Best SQuAD token F1 of the prediction against the answers."""
    best = 0.0
    predicted = normalize_answer(prediction).split()
    for answer in answers:
        gold = normalize_answer(answer).split()
        common = sum((collections.Counter(predicted) & collections.Counter(gold)).values())
        if common:
            precision, recall = common / len(predicted), common / len(gold)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def located(prediction, start, answers):
    """Whether the predicted span [start, start+len) intersects a gold span (PiC's EM+loc condition)."""
    if start is None:
        return False
    return any(start < s + len(t) and s < start + len(prediction)
               for t, s in zip(answers["text"], answers["answer_start"]))


# --- PS Approach 1 --------------------------------------------------------------------------------------------

def phrase_span(sentence, phrase):
    """[start, end) of `phrase` in `sentence` (whole words, any case); ValueError when absent."""
    found = checks.phrase_pattern(phrase).search(sentence) or re.search(re.escape(phrase), sentence, re.I)
    if not found:
        raise ValueError(f"phrase {phrase!r} is not in its sentence {sentence[:60]!r}…")
    return found.span()


def ps_similarities(encoder, records, with_context):
    """Cosine of phrase1 and phrase2 embeddings, alone or each inside its own sentence."""
    if with_context:
        first = [(r["sentence1"], *phrase_span(r["sentence1"], r["phrase1"])) for r in records]
        second = [(r["sentence2"], *phrase_span(r["sentence2"], r["phrase2"])) for r in records]
        a, b = encoder.encode_spans(first), encoder.encode_spans(second)
    else:
        a, b = encoder.encode_phrases([r["phrase1"] for r in records]), encoder.encode_phrases(
            [r["phrase2"] for r in records])
    return np.sum(a * b, axis=1)


def ps_baseline(encoder, train, test):
    """PS Approach 1 with and without context: threshold tuned on train, accuracy on test with its 95 % bootstrap
    interval."""
    results = {"train_pairs": len(train), "test_pairs": len(test)}
    for setting, with_context in (("phrase", False), ("phrase+context", True)):
        progress_log.info("PS (%s): encoding %s train and %s test pairs", setting, f"{len(train):,}", f"{len(test):,}")
        threshold, train_accuracy = best_threshold(ps_similarities(encoder, train, with_context),
                                                   [r["label"] for r in train])
        test_correct = correct(ps_similarities(encoder, test, with_context), [r["label"] for r in test], threshold)
        on_test = scored(test_correct)
        results[setting] = {"threshold": round(threshold, 6), "train_accuracy": round(100 * train_accuracy, 2),
                            "test_accuracy": on_test["score"], "ci95": {"test_accuracy": on_test["ci95"]}}
    return results


# --- PR ranking -----------------------------------------------------------------------------------------------

def candidate_spans(context, answer_start, answer_text):
    """Every 2- and 3-gram span of each sentence's NLTK tokens, then the gold span; returns (spans, gold index)."""
    spans = []
    for sent_start, sent_end in tokens.sentence_spans(context):
        words = tokens.word_spans(context[sent_start:sent_end])
        for n in NGRAM_SIZES:
            spans += [(sent_start + words[i][0], sent_start + words[i + n - 1][1]) for i in range(len(words) - n + 1)]
    gold = (answer_start, answer_start + len(answer_text))
    spans = list(dict.fromkeys(spans + [gold]))
    return spans, spans.index(gold)


def _sentence_of(sentences, start, end):
    sent_start, sent_end = next(((s, e) for s, e in sentences if s <= start < e), (start, end))
    return sent_start, max(sent_end, end)


def example_candidates(record):
    """(candidate spans, gold index) of a PR/PSD record."""
    return candidate_spans(record["context"], record["answers"]["answer_start"][0], record["answers"]["text"][0])


def rank_example(encoder, record, candidates, with_context, phrase_vectors):
    """Rank of the gold phrase among the candidates by cosine with the query (phrase_vectors: text → vector)."""
    context, (spans, gold) = record["context"], candidates
    query = phrase_vectors[record["query"]]
    if with_context:
        sentences = tokens.sentence_spans(context)
        items = []
        for s, e in spans:
            sent_start, sent_end = _sentence_of(sentences, s, e)
            items.append((context[sent_start:sent_end], s - sent_start, e - sent_start))
        return gold_rank(encoder.encode_spans(items) @ query, gold)
    texts = list(dict.fromkeys(context[s:e] for s, e in spans))
    return gold_rank(np.stack([phrase_vectors[t] for t in texts]) @ query, texts.index(context[slice(*spans[gold])]))


def pr_baseline(encoder, records, config="PR"):
    """Top-1/3/5 accuracy and MRR@5 of ranking n-gram candidates, with and without context, each with its 95 %
    bootstrap interval (`config` names the progress lines)."""
    candidates = [example_candidates(r) for r in records]
    phrases = {r["query"] for r in records}
    for record, (spans, _) in zip(records, candidates):
        phrases.update(record["context"][s:e] for s, e in spans)
    phrases = sorted(phrases)
    progress_log.info("%s: encoding %s query and candidate phrases", config, f"{len(phrases):,}")
    phrase_vectors = dict(zip(phrases, encoder.encode_phrases(phrases)))
    results = {"examples": len(records)}
    for setting, with_context in (("phrase", False), ("phrase+context", True)):
        ranks = [rank_example(encoder, r, c, with_context, phrase_vectors)
                 for r, c in tracked(zip(records, candidates), len(records), f"{config} ranking ({setting})",
                                     "examples")]
        per_metric = {**{f"top{k}": scored(in_top_k(ranks, k)) for k in TOP_K},
                      "mrr@5": scored(reciprocal_ranks(ranks, 5))}
        results[setting] = {**{name: s["score"] for name, s in per_metric.items()},
                            "ci95": {name: s["ci95"] for name, s in per_metric.items()}}
    return results


# --- predictions ----------------------------------------------------------------------------------------------

def read_predictions(path):
    """{id: (prediction_text, answer_start or None)} from JSON Lines rows {id, prediction_text, answer_start?}."""
    rows = read_json_lines(path, ("id", "prediction_text"), shape='each line must be a JSON object with "id", '
                           '"prediction_text" and optionally "answer_start"')
    return {str(row["id"]): (str(row["prediction_text"]), row.get("answer_start")) for _, row in rows}


def score_predictions(records, predictions):
    """EM, F1, EM+loc and F1+loc (%) of span predictions, each with its 95 % bootstrap interval; a missing
    prediction scores 0."""
    per_item = collections.defaultdict(list)
    for record in records:
        text, start = predictions.get(record["id"], ("", None))
        answers = record["answers"]
        em, f1 = exact_match(text, answers["text"]), token_f1(text, answers["text"])
        on_place = located(text, start, answers)
        for name, value in (("EM", em), ("F1", f1), ("EM+loc", em * on_place), ("F1+loc", f1 * on_place)):
            per_item[name].append(value)
    metrics = {name: scored(per_item[name]) for name in ("EM", "F1", "EM+loc", "F1+loc")}
    return dict({name: m["score"] for name, m in metrics.items()},
                ci95={name: m["ci95"] for name, m in metrics.items()}, examples=len(records), missing=sum(r["id"] not in predictions for r in records),
                unknown_ids=len(set(predictions) - {r["id"] for r in records}))


# --- tables ---------------------------------------------------------------------------------------------------

def _cell(scores, name, without=None):
    """A table cell: the score, its change from `without` (the phrase-only score) if given, and its 95 % interval."""
    low, high = scores["ci95"][name]
    delta = f" ({scores[name] - without:+.2f})" if without is not None else ""
    return f"{scores[name]:.2f}{delta} [{low:.2f}, {high:.2f}]"


def with_warning(lines, warning):
    """A table's lines joined, with the warning line under it when there is one."""
    return "\n".join(lines + ([warning] if warning else []))


INTERVAL_NOTE = (f"[low, high]: 95 % bootstrap interval ({BOOTSTRAP_ROUNDS:,} resamples of the test items, "
                 f"seed {BOOTSTRAP_SEED})")


def results_table(model, results):
    """Markdown tables shaped like PiC Table 3 (PS), Table 5 (PR ranking) and Table 6 (span scores), each score with
    its 95 % bootstrap interval and a warning under a table whose split is too small to mean anything."""
    parts = []
    if "PS" in results:
        ps = results["PS"]
        plain, ctx = ps["phrase"], ps["phrase+context"]
        parts.append(with_warning([
            f"PS test accuracy (%) on {ps['test_pairs']:,} test pairs, Approach 1: cosine similarity, threshold "
            f"tuned on {ps['train_pairs']:,} train pairs; {INTERVAL_NOTE}",
            "", "| Model | Phrase | Phrase + Ctx |", "|---|---|---|",
            f"| {model} | {_cell(plain, 'test_accuracy')} | {_cell(ctx, 'test_accuracy', plain['test_accuracy'])} |",
        ], size_warning("the PS test split", ps["test_pairs"])))
    for config, pr in results.get("ranking", {}).items():
        plain, ctx = pr["phrase"], pr["phrase+context"]
        parts.append(with_warning([
            f"{config} test ranking accuracy (%) on {pr['examples']:,} examples, candidates: NLTK 2/3-grams + gold "
            f"phrase; {INTERVAL_NOTE}", "",
            "| Model | Top-1 | Top-3 | Top-5 | MRR@5 | Top-1 (+ctx) | Top-3 (+ctx) | Top-5 (+ctx) | MRR@5 (+ctx) |",
            "|---|---|---|---|---|---|---|---|---|",
            f"| {model} | {' | '.join(_cell(plain, m) for m in ('top1', 'top3', 'top5', 'mrr@5'))} | "
            f"{_cell(ctx, 'top1', plain['top1'])} | {' | '.join(_cell(ctx, m) for m in ('top3', 'top5', 'mrr@5'))} |",
        ], size_warning(f"the {config} test split", pr["examples"])))
    for name, scores in results.get("predictions", {}).items():
        parts.append(with_warning([
            f"Span predictions {name}: {scores['examples']} examples, {scores['missing']} without a prediction; "
            f"{INTERVAL_NOTE}", "", "| EM | F1 | EM+loc | F1+loc |", "|---|---|---|---|",
            f"| {' | '.join(_cell(scores, m) for m in ('EM', 'F1', 'EM+loc', 'F1+loc'))} |",
        ], size_warning(f"the {name} split", scores["examples"])))
    return "\n\n".join(parts)
