"""Span enumeration, pooling, best match, correlations and BM25 on hand-computed cases."""
import math

import numpy as np
import pytest

from companions.stsb_context import evaluate, spans


def test_correlations_match_hand_computation():
    # means 2 and 2; covariance 1; variances 2 and 2 -> r = 0.5; ranks equal the values -> rho = 0.5
    assert spans.correlations([1, 2, 3], [1, 3, 2]) == {"pearson": pytest.approx(0.5), "spearman": pytest.approx(0.5),
                                                        "n": 3}
    # dx = -2..2, dy = -6,-5,-2,3,10: cov 40, sxx 10, syy 174 -> r = 40 / sqrt(1740); monotone -> rho = 1
    result = spans.correlations([0, 1, 2, 3, 4], [0, 1, 4, 9, 16])
    assert result["pearson"] == pytest.approx(40 / math.sqrt(1740)) and result["spearman"] == pytest.approx(1.0)
    assert spans.correlations([1, 2], [3, 3]) == {"pearson": None, "spearman": None, "n": 2}


def test_words_and_spans():
    text = "A man, 1,000.5 well-known don't."
    assert [text[s:e] for s, e in spans.word_offsets(text)] == ["A", "man", "1,000.5", "well-known", "don't"]
    assert spans.word_spans(4, 1, 2) == [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (2, 4), (3, 4)]
    assert spans.word_spans(3, 2, 5) == [(0, 2), (0, 3), (1, 3)]
    words = spans.word_offsets("A man, dogfish.")
    assert spans.span_text("A man, dogfish.", words, (1, 3)) == (2, "man, dogfish")


# "A man, dogfish." as a WordPiece tokenizer splits it: [CLS] A man , dog ##fish . [SEP]
OFFSETS = [(0, 0), (0, 1), (2, 5), (5, 6), (7, 10), (10, 14), (14, 15), (0, 0)]


def test_word_token_ranges_skip_special_tokens_and_truncation():
    words = spans.word_offsets("A man, dogfish.")
    assert spans.word_token_ranges(OFFSETS, words) == [(1, 2), (2, 3), (4, 6)]
    assert spans.word_token_ranges(OFFSETS[:3] + [(0, 0)], words) == [(1, 2), (2, 3), None]


def test_pooled_spans_average_every_token_between_first_and_last_word():
    vectors = np.array([[9, 9], [1, 0], [0, 1], [1, 1], [3, 0], [0, 3], [5, 5], [9, 9]], dtype=float)
    ranges = [(1, 2), (2, 3), (4, 6)]
    usable, pooled = spans.pooled_span_vectors(vectors, ranges, [(0, 1), (1, 3), (0, 3)])
    assert usable == [(0, 1), (1, 3), (0, 3)]
    np.testing.assert_allclose(pooled, [[1, 0], [1, 1.25], [1, 1]])  # (0+1+3+0)/4, (1+1+0+3)/4 for "man, dogfish"
    usable, pooled = spans.pooled_span_vectors(vectors, [(1, 2), None, None], [(0, 1), (0, 2)])
    assert usable == [(0, 1)] and pooled.tolist() == [[1.0, 0.0]]


def test_best_match_is_the_highest_cosine():
    matrix = [[0, 1], [1, 1], [2, 0], [0, 0]]
    np.testing.assert_allclose(spans.cosine([1, 0], matrix), [0, 1 / math.sqrt(2), 1, 0])
    assert spans.best_match([1, 0], matrix) == (2, pytest.approx(1.0))


def test_bm25_scores_each_context_with_okapi_defaults():
    rows = [{"origin_phrase": o, "context": c} for o, c in
            [("a", "a b"), ("C", "c"), ("e", "d e e"), ("a", "f")]]
    # every query word occurs in one of N=4 documents: idf = ln((4 - 1 + 0.5) / (1 + 0.5)); avgdl = 7/4
    idf, k1, b, avgdl = math.log(3.5 / 1.5), 1.5, 0.75, 7 / 4

    def okapi(tf, dl):
        return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))

    scored = evaluate.score_bm25(rows)
    assert [s for s, _, _ in scored] == pytest.approx([okapi(1, 2), okapi(1, 1), okapi(2, 3), 0.0])
    assert [(span, start) for _, span, start in scored] == [(r["context"], 0) for r in rows]
