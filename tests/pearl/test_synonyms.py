"""Synonym sources: WordNet from Debian's database through NLTK's reader (no download), and word vectors."""
import pytest

from companions.pearl import synonyms
from picforge.errors import InputError


def test_wordnet_from_debian_database(wordnet_root):
    wordnet = synonyms.load_wordnet(wordnet_root)
    assert wordnet.get_version() == "3.0"
    assert "automobile" in synonyms.wordnet_synonyms(wordnet, "car", "NN")
    assert synonyms.wordnet_synonyms(wordnet, "1905", "CD") == []
    assert wordnet.synsets("dog")[0].lexname() == "noun.animal"  # lexnames: the shipped copy, in WordNet's order


def test_wordnet_synonyms_keep_the_part_of_speech_and_the_most_frequent_sense(wordnet_root):
    wordnet = synonyms.load_wordnet(wordnet_root)
    # "natural" as an adjective: never the musical sign (noun sense "cancel"), which any-sense lookup gave
    assert "cancel" not in synonyms.wordnet_synonyms(wordnet, "natural", "JJ")
    assert "cancel" in {lemma.name() for synset in wordnet.synsets("natural") for lemma in synset.lemmas()}
    first_sense = {lemma.name().lower() for lemma in wordnet.synsets("big", "a")[0].lemmas()}
    assert set(synonyms.wordnet_synonyms(wordnet, "Big", "JJ")) == first_sense - {"big"}
    assert synonyms.wordnet_synonyms(wordnet, "size", "NN") == []  # its first sense has no other lemma
    for tag in ("NNP", "NNS", "VBD", "JJR", "DT", ""):  # proper nouns and inflected forms are not replaced
        assert synonyms.wordnet_synonyms(wordnet, "runs", tag) == []
    counts = [wordnet.lemma(f"{wordnet.synsets('car', 'n')[0].name()}.{name}").count()
              for name in synonyms.wordnet_synonyms(wordnet, "car", "NN")]
    assert counts == sorted(counts, reverse=True)


def test_wordnet_folder_without_database_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="not a WordNet database folder.*wordnet-base"):
        synonyms.load_wordnet(str(tmp_path))


def test_user_word_vectors_in_word2vec_text_format(tmp_path):
    path = tmp_path / "vectors.vec"
    path.write_text("4 2\nking 1.0 0.0\nmonarch 0.99 0.1\nqueen 0.8 0.6\nland 0.0 1.0\n", encoding="utf-8")
    vectors = synonyms.load_word_vectors(str(path))
    assert synonyms.vector_neighbours(vectors, "King", "NN", 0.9) == ["monarch"]
    assert synonyms.vector_neighbours(vectors, "king", "NN", 0.5) == ["monarch", "queen"]
    assert synonyms.vector_neighbours(vectors, "king", "NNP", 0.5) == []  # a proper noun is not replaced
    assert synonyms.vector_neighbours(vectors, "unseen", "NN", -1.0) == []
    bad = tmp_path / "bad.vec"
    bad.write_text("not vectors at all\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.vec"):
        synonyms.load_word_vectors(str(bad))
    with pytest.raises(InputError, match="no such word-vector file"):
        synonyms.load_word_vectors(str(tmp_path / "missing.vec"))
