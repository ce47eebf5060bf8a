"""The user's word vectors: word2vec / FastText / GloVe text, only the wanted words read."""
import pytest

from picforge import word_vectors
from picforge.errors import InputError


def test_word_vectors_read_from_word2vec_fasttext_and_glove_text():
    fasttext = ["3 2\n", "paint 1 0\n", "brush 0 1\n", "roller 0.5 0.5\n"]
    assert {w: v.tolist() for w, v in word_vectors.read_word_vectors(fasttext, {"paint", "brush"}).items()} == {
        "paint": [1.0, 0.0], "brush": [0.0, 1.0]}
    glove = ["paint 1 0 2\n", "brush 0 1 2\n"]
    assert word_vectors.read_word_vectors(glove, {"brush"})["brush"].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="line 3: 'brush' has 1 numbers, expected 2"):
        word_vectors.read_word_vectors(["2 2", "paint 1 0", "brush 1"], {"paint", "brush"})
    with pytest.raises(ValueError, match="line 2: the vector of 'paint'"):
        word_vectors.read_word_vectors(["2 2", "paint 1 x"], {"paint"})


def test_a_word_with_spaces_is_read_whole_and_does_not_stop_the_file():
    # GloVe 840B holds lines whose word has spaces (". . ." and e-mail-like tokens); the last D fields are the vector
    glove = [", 0 1\n", ". . . 2 3\n", ". 4 5\n", "at name@x.com 6 7\n"]
    found = word_vectors.read_word_vectors(glove, {",", ".", "at"})
    assert {w: v.tolist() for w, v in found.items()} == {",": [0.0, 1.0], ".": [4.0, 5.0]}


def test_vectors_file_errors_name_the_file_and_option(tmp_path):
    broken = tmp_path / "broken.vec"
    broken.write_text("paint 1 0\nbrush 1\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"--vectors .*broken.vec: not a word-vector text file \(line 2: 'brush'"):
        word_vectors.read_vectors_file(str(broken), {"paint", "brush"})
    assert word_vectors.read_vectors_file(str(broken), {"paint"})["paint"].tolist() == [1.0, 0.0]
