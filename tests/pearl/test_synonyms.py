"""Synonym sources: WordNet from Debian's database through NLTK's reader (no download), and word vectors."""
import numpy as np
import pytest

from companions.pearl import synonyms
from picforge.errors import InputError


def test_wordnet_from_debian_database(wordnet_root):
    wordnet = synonyms.load_wordnet(wordnet_root)
    assert wordnet.get_version() == "3.0"
    assert "automobile" in synonyms.wordnet_synonyms(wordnet, "car")
    assert "large" in synonyms.wordnet_synonyms(wordnet, "Big")
    assert synonyms.wordnet_synonyms(wordnet, "1905") == []
    assert wordnet.synsets("dog")[0].lexname() == "noun.animal"  # lexnames: the shipped copy, in WordNet's order


def test_wordnet_folder_without_database_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="not a WordNet database folder.*wordnet-base"):
        synonyms.load_wordnet(str(tmp_path))


SENTENCES = [["the", "king", "ruled", "the", "land"], ["the", "queen", "ruled", "the", "land"],
             ["a", "king", "and", "a", "queen", "ruled"], ["the", "land", "was", "large"]] * 30


def test_corpus_word_vectors_are_the_same_on_every_run():
    first = synonyms.train_word_vectors(SENTENCES, seed=3, min_count=2, epochs=3)
    second = synonyms.train_word_vectors(SENTENCES, seed=3, min_count=2, epochs=3)
    assert np.array_equal(first.vectors, second.vectors) and first.index_to_key == second.index_to_key


def test_vector_neighbours_respect_the_cosine_threshold():
    vectors = synonyms.train_word_vectors(SENTENCES, seed=0, min_count=2, epochs=3)
    for threshold in (-1.0, 0.0, 0.5):
        for word in synonyms.vector_neighbours(vectors, "king", threshold, topn=20):
            assert vectors.similarity("king", word) >= threshold - 1e-6 and word != "king"
    assert synonyms.vector_neighbours(vectors, "King", -1.0) == synonyms.vector_neighbours(vectors, "king", -1.0)
    assert synonyms.vector_neighbours(vectors, "unseen", -1.0) == []


def test_user_word_vectors_in_word2vec_text_format(tmp_path):
    path = tmp_path / "vectors.vec"
    path.write_text("3 2\nking 1.0 0.0\nmonarch 0.99 0.1\nland 0.0 1.0\n", encoding="utf-8")
    vectors = synonyms.load_word_vectors(str(path))
    assert synonyms.vector_neighbours(vectors, "king", 0.9) == ["monarch"]
    bad = tmp_path / "bad.vec"
    bad.write_text("not vectors at all\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.vec"):
        synonyms.load_word_vectors(str(bad))
    with pytest.raises(InputError, match="no such word-vector file"):
        synonyms.load_word_vectors(str(tmp_path / "missing.vec"))
