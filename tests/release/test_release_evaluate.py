"""`picforge release evaluate`: metrics on hand-computed cases, and the baselines run with the real bundled MiniLM model."""
import json

import numpy as np
import pytest

from picforge.errors import InputError
from release import checks, evaluate
from release.configs import read_split
from tests.release.fixture_run import annotation_records, make_run


def test_answer_ranked_second_gives_mrr_one_half():
    rank = evaluate.gold_rank([0.9, 0.7, 0.8], gold=2)
    assert rank == 2
    assert evaluate.mrr_at_k([rank], 5) == 0.5
    assert (evaluate.top_k_accuracy([rank], 1), evaluate.top_k_accuracy([rank], 3)) == (0.0, 1.0)


def test_top_k_and_mrr_over_several_examples():
    ranks = [1, 2, 6]
    assert [evaluate.top_k_accuracy(ranks, k) for k in (1, 3, 5)] == pytest.approx([1 / 3, 2 / 3, 2 / 3])
    assert evaluate.mrr_at_k(ranks, 5) == pytest.approx((1 + 0.5 + 0) / 3)


def test_threshold_tuned_for_accuracy():
    assert evaluate.best_threshold([0.1, 0.4, 0.35, 0.8], [0, 1, 0, 1]) == pytest.approx((0.375, 1.0))
    # tied scores cannot be split: the best cut falls between 0.2 and the tied 0.5s
    assert evaluate.best_threshold([0.5, 0.5, 0.2], [1, 0, 0]) == pytest.approx((0.35, 2 / 3))
    assert evaluate.accuracy([0.5, 0.5, 0.2], [1, 0, 0], 0.35) == pytest.approx(2 / 3)


def test_squad_style_answer_scores():
    assert evaluate.exact_match("The Old Mill", ["old mill"]) == 1.0
    assert evaluate.token_f1("old mill house", ["old mill"]) == pytest.approx(0.8)
    answers = {"text": ["old mill"], "answer_start": [10]}
    assert evaluate.located("old mill", 10, answers) and evaluate.located("mill", 14, answers)
    assert not evaluate.located("old mill", 40, answers) and not evaluate.located("old mill", None, answers)


def test_em_plus_loc_needs_the_right_occurrence():
    context = "Go to the old mill now.\n\nThe old mill is a bar."
    records = [{"id": "a-1", "context": context, "answers": {"text": ["old mill"], "answer_start": [10]}},
               {"id": "b-2", "context": context, "answers": {"text": ["old mill"], "answer_start": [29]}},
               {"id": "c-1", "context": context, "answers": {"text": ["old mill"], "answer_start": [10]}}]
    predictions = {"a-1": ("old mill", 10), "b-2": ("old mill", 10), "zz-9": ("x", 0)}
    scores = evaluate.score_predictions(records, predictions)
    intervals = scores.pop("ci95")
    assert scores == {"EM": 66.67, "F1": 66.67, "EM+loc": 33.33, "F1+loc": 33.33,  # percentages, 2 decimals
                      "examples": 3, "missing": 1, "unknown_ids": 1}
    assert intervals["EM"] == evaluate.bootstrap_interval([1, 1, 0]) and intervals["EM+loc"][0] == 0.0


def test_bootstrap_interval_is_seeded_and_narrows_with_more_items():
    few, many = [1, 0] * 5, [1, 0] * 500
    assert evaluate.bootstrap_interval(few) == evaluate.bootstrap_interval(few)  # seeded: the same every run
    low, high = evaluate.bootstrap_interval(few)
    assert low < 50 < high and high - low > 40  # 10 items: an accuracy of 50 could be anything from ~20 to ~80
    low, high = evaluate.bootstrap_interval(many)
    assert 45 < low < 50 < high < 55
    assert evaluate.bootstrap_interval([1]) == [100.0, 100.0]  # one item: no spread to resample, hence the warning
    assert evaluate.size_warning("the PS test split", 29).startswith("warning: the PS test split has 29 items, under 30")
    assert evaluate.size_warning("the PS test split", 30) == ""


def test_candidates_are_sentence_ngrams_plus_the_gold_phrase():
    context = "The old mill burned. It was rebuilt."
    spans, gold = evaluate.candidate_spans(context, 4, "old mill")
    texts = [context[s:e] for s, e in spans]
    assert len(spans) == 4 + 3 + 3 + 2 and texts[gold] == "old mill"
    assert "The old mill" in texts and "burned. It" not in texts
    long_gold, gold = evaluate.candidate_spans(context, 0, "The old mill burned")
    assert len(long_gold) == 13 and context[slice(*long_gold[gold])] == "The old mill burned"


def test_predictions_file_errors_name_the_line(tmp_path):
    path = tmp_path / "preds.jsonl"
    path.write_text('{"id": "a-1", "prediction_text": "x", "answer_start": 3}\n\n{"id": "b-2"}\n')
    with pytest.raises(InputError, match=r"preds.jsonl: line 3: missing field\(s\) prediction_text"):
        evaluate.read_predictions(path)
    path.write_bytes(b'{"id": "a-1", "prediction_text": "x"}\n{"id": "b-2", "prediction_text": "caf\xe9"}\n')
    with pytest.raises(InputError, match=r"preds.jsonl: line 2: byte 0xe9"):
        evaluate.read_predictions(path)


def test_identical_phrases_embed_identically(encoder):
    vectors = encoder.encode_phrases(["river crossing", "river crossing", "frozen hut"])
    assert vectors[0] @ vectors[1] == pytest.approx(1.0, abs=1e-5) and vectors[0] @ vectors[2] < 0.9
    in_context = encoder.encode_spans([("They made a river crossing at dawn.", 12, 26)])
    assert np.linalg.norm(in_context[0]) == pytest.approx(1.0, abs=1e-5) and in_context[0] @ vectors[0] < 0.999


def test_query_equal_to_the_answer_ranks_first_without_context(encoder):
    record = {"context": "A quiet road runs north. The old mill burned in 1901. Nobody rebuilt it.",
              "query": "old mill", "answers": {"text": ["old mill"], "answer_start": [29]}}
    candidates = evaluate.example_candidates(record)
    phrases = sorted({record["query"]} | {record["context"][s:e] for s, e in candidates[0]})
    vectors = dict(zip(phrases, encoder.encode_phrases(phrases)))
    assert evaluate.rank_example(encoder, record, candidates, False, vectors) == 1
    assert 1 <= evaluate.rank_example(encoder, record, candidates, True, vectors) <= 5


def test_eval_command_prints_tables_and_scores_psd_predictions(picforge, release_dir, tmp_path, capsys, caplog):
    gold, other = tmp_path / "gold.jsonl", tmp_path / "other.jsonl"
    rows = read_split(release_dir, "PSD", "test")
    with open(gold, "w") as right, open(other, "w") as wrong:
        for r in rows:
            text, start = r["answers"]["text"][0], r["answers"]["answer_start"][0]
            elsewhere = next(m for m in checks.phrase_pattern(text).finditer(r["context"]) if m.start() != start)
            right.write(json.dumps({"id": r["id"], "prediction_text": text, "answer_start": start}) + "\n")
            wrong.write(json.dumps({"id": r["id"], "prediction_text": elsewhere.group(0),
                                    "answer_start": elsewhere.start()}) + "\n")
    out = tmp_path / "results.json"
    assert picforge("release", "evaluate", "--release", release_dir, "--baseline", "PS", "--baseline", "PR-pass", "--predictions", gold,
                    "--out", out) == 0
    printed = capsys.readouterr().out
    assert "| Model | Phrase | Phrase + Ctx |" in printed and "| all-MiniLM-L6-v2 |" in printed
    ps_train, ps_test = (len(read_split(release_dir, "PS", split)) for split in ("train", "test"))
    ranked = len(read_split(release_dir, "PR-pass", "test"))
    assert f"PS test accuracy (%) on {ps_test:,} test pairs" in printed and f"on {ps_train:,} train pairs" in printed
    assert f"PR-pass test ranking accuracy (%) on {ranked:,} examples" in printed
    progress = [r.getMessage() for r in caplog.records if r.name == "picforge.progress"]
    assert f"PS (phrase+context): encoding {ps_train:,} train and {ps_test:,} test pairs" in progress
    for setting in ("phrase", "phrase+context"):  # not on a terminal: a line when the ranking loop ends
        assert any(line.startswith(f"PR-pass ranking ({setting}): {ranked:,} examples in ") for line in progress)
    assert "| 100.00 [100.00, 100.00] | 100.00 [100.00, 100.00] | 100.00 [100.00, 100.00] | 100.00 [100.00, 100.00] |" in printed
    assert "[low, high]: 95 % bootstrap interval (1,000 resamples of the test items, seed 0)\n\n| Model |" in printed
    # the fixture release is small: every table says its split is too small to mean anything
    assert f"warning: the PS test split has {ps_test} item" in printed and "under 30: too few" in printed
    assert f"warning: the PR-pass test split has {ranked} item" in printed
    results = json.loads(out.read_text())
    for setting in ("phrase", "phrase+context"):
        assert 0 <= results["PS"][setting]["test_accuracy"] <= 100
        low, high = results["PS"][setting]["ci95"]["test_accuracy"]
        assert low <= results["PS"][setting]["test_accuracy"] <= high
        assert results["PS"][setting]["train_accuracy"] >= 50  # a tuned threshold beats always-one-class
        ranking = results["ranking"]["PR-pass"][setting]
        assert ranking["top1"] <= ranking["top3"] <= ranking["top5"] and ranking["mrr@5"] <= ranking["top5"]
    assert picforge("release", "evaluate", "--release", release_dir, "--predictions", other) == 0
    printed = capsys.readouterr().out
    assert "| 100.00 [100.00, 100.00] | 100.00 [100.00, 100.00] | 0.00 [0.00, 0.00] | 0.00 [0.00, 0.00] |" in printed
    assert "Phrase + Ctx" not in printed


def test_default_baselines_skip_the_splits_a_release_left_out(picforge, tmp_path, capsys):
    # t11 and t12 only: too few triplets to cut (all train), no PS pair survives balancing, so neither PS's nor
    # PR-pass's test split exists; the default run says so and succeeds without loading a model.
    run = make_run(tmp_path / "run", final_annotations=[r for r in annotation_records()
                                                        if r["triplet_id"] in ("t11", "t12")])
    assert picforge("build", "--run", run, "--out", tmp_path / "release") == 0
    capsys.readouterr()
    assert picforge("release", "evaluate", "--release", tmp_path / "release") == 0
    assert capsys.readouterr().out.splitlines() == [
        "PS: no train and no test split in this release (see its README.md); baseline skipped",
        "PR-pass: no test split in this release (see its README.md); baseline skipped"]
    assert picforge("release", "evaluate", "--release", tmp_path / "release", "--baseline", "PR-pass") == 2
    assert "PR-pass has no test split in this release" in capsys.readouterr().err
