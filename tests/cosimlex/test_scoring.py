"""Contextual pair similarity with the real local encoders, and the choice of candidates."""
import random
import subprocess
import sys

import numpy as np
import pytest

from companions.cosimlex.bert_tokens import BertTokens
from companions.cosimlex.encoders import make_encoder, pair_cosine, pair_similarities
from picforge.encoders import BUNDLED_MODEL, TokenEncoder, resolve_model_path
from picforge.errors import InputError
from companions.cosimlex.select import LOW_RESOURCE_PER_ENCODER, select_candidates
from tests.cosimlex.conftest import SPACY_MODEL


def test_pair_cosine_averages_the_tokens_of_each_word():
    vectors = np.array([[9.0, 9.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    offsets = [(0, 0), (0, 3), (4, 7), (7, 11)]  # a special token, then "cup", "mu" + "gged"
    assert pair_cosine(vectors, offsets, (0, 3), (4, 11)) == pytest.approx(0.5 / np.sqrt(1.25))
    assert pair_cosine(vectors, offsets, (0, 3), (20, 24)) is None


def context(text, word1, word2):
    return {"context": text, "word1_start": text.index(word1), "word1_end": text.index(word1) + len(word1),
            "word2_start": text.index(word2), "word2_end": text.index(word2) + len(word2)}


BANK_CONTEXTS = [
    context("She paid the money into her bank account on Monday.", "bank", "money"),
    context("They camped on the grassy bank of the river and found some money there.", "bank", "money"),
]


@pytest.fixture(scope="module")
def encoders():
    return {spec: make_encoder(spec, SPACY_MODEL).load() for spec in ("minilm", "tok2vec")}


@pytest.mark.parametrize("spec", ["minilm", "tok2vec"])
def test_real_encoders_score_the_same_pair_differently_in_different_contexts(spec, encoders):
    encoder = encoders[spec]
    first, second = pair_similarities(encoder, BANK_CONTEXTS)
    assert -1.0 <= first <= 1.0 and -1.0 <= second <= 1.0
    assert abs(first - second) > 0.01
    assert pair_similarities(encoder, BANK_CONTEXTS[:1]) == pytest.approx([first])


def test_the_tok2vec_scorer_loads_its_model_with_tok2vec_alone(encoders):
    assert encoders["tok2vec"].nlp.pipe_names == ["tok2vec"]
    assert encoders["tok2vec"].nlp.disabled == []  # left out at load, not loaded and disabled


def test_a_word_truncated_away_gets_no_score(encoders):
    long = context("The money was counted slowly by the careful clerk before it went to the bank.", "money", "bank")
    encoder = encoders["minilm"]
    encoder.max_length = 8
    try:
        assert pair_similarities(encoder, [long]) == [None]
    finally:
        encoder.max_length = 512


def test_minilm_gives_transformers_bert_vectors_bit_for_bit(encoders):
    texts = [c["context"] for c in BANK_CONTEXTS] + [
        "Naïve café-goers — 12,000 of them — queued (again!) at 5:30 a.m. for the “new” croissants.",
        " ".join(["The river bank was muddy."] * 120)]  # past 512 tokens: truncated alike
    reference = TokenEncoder(resolve_model_path(BUNDLED_MODEL), batch_size=1, device="cpu").load()
    ours, theirs = list(encoders["minilm"].token_vectors(texts)), list(reference.token_vectors(texts))
    assert len(ours) == len(texts) and len(ours[-1][1]) == 512
    for (vectors, offsets), (expected_vectors, expected_offsets) in zip(ours, theirs):
        assert offsets == expected_offsets
        assert np.array_equal(vectors, expected_vectors)


def test_minilm_scores_without_importing_transformers():
    code = ("import sys; from companions.cosimlex.encoders import make_encoder; "
            "print(list(make_encoder('minilm', None).load().token_vectors(['a bank']))[0][0].shape, "
            "'transformers' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split() \
        == ["(4,", "384)", "False"]


def test_a_folder_that_is_not_plain_bert_is_refused_by_name(tmp_path):
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        (tmp_path / name).write_text("{}" if name == "config.json" else "")
    with pytest.raises(InputError, match=f"{tmp_path}/config.json: not a plain BERT encoder"):
        BertTokens(str(tmp_path)).load()
    (tmp_path / "tokenizer.json").unlink()
    with pytest.raises(InputError, match=f"{tmp_path}: no tokenizer.json"):
        BertTokens(str(tmp_path)).load()


def scored(context_id, occurrence, **scores):
    return {"context_id": context_id, "occurrences": [occurrence, "x"],
            "scores": [{"encoder": k, "similarity": v} for k, v in scores.items()]}


def test_selection_takes_each_encoders_ends_and_skips_repeated_occurrences():
    a = [.0, .9, .95, .5, .1, .6, .3, .2, .4, .45]
    b = [.01, .5, .98, .99, .5, .5, .5, .0, .02, .97]
    contexts = [scored(f"c{i}", "o1" if i in (1, 2) else f"o{i}", a=a[i], b=b[i]) for i in range(10)]
    contexts.append(scored("c10", "o10", a=0.99))  # no b score; top for a
    picked = select_candidates(contexts, ["a", "b"], 2)
    assert [(c["context_id"], c["picked_by"], c["candidate_no"]) for c in picked] == [
        ("c10", "a:most", 1), ("c2", "a:most", 2), ("c0", "a:least", 3), ("c4", "a:least", 4),
        ("c3", "b:most", 5), ("c9", "b:most", 6), ("c7", "b:least", 7), ("c8", "b:least", 8)]


def test_low_resource_selection_gives_sixteen_distinct_candidates():
    rng = random.Random(3)
    contexts = [scored(f"c{i}", f"o{i}", a=rng.random(), b=rng.random()) for i in range(40)]
    picked = select_candidates(contexts, ["a", "b"], LOW_RESOURCE_PER_ENCODER)
    assert len({c["context_id"] for c in picked}) == 16
    few = select_candidates(contexts[:5], ["a", "b"], 2)
    assert sorted(c["context_id"] for c in few) == [f"c{i}" for i in range(5)]
