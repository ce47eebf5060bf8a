"""Synonym sources: WordNet from Debian's database through NLTK's reader (no download), and word vectors."""
import pytest

from companions.pearl import synonyms
from picforge.errors import InputError


def senses_of(wordnet, word, tag):
    return synonyms.wordnet_senses(wordnet, word, tag)


def test_wordnet_from_debian_database(wordnet_root):
    wordnet = synonyms.load_wordnet(wordnet_root)
    assert wordnet.get_version() == "3.0"
    assert "automobile" in senses_of(wordnet, "car", "NN")[0][2]
    assert senses_of(wordnet, "1905", "CD") == []
    assert wordnet.synsets("dog")[0].lexname() == "noun.animal"  # lexnames: the shipped copy, in WordNet's order


def test_semcor_counts_in_memory_equal_nltks_search_of_the_file(wordnet_root):
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    wordnet = synonyms.load_wordnet(wordnet_root)
    lemmas = [lemma for word in ("tongue", "car", "run", "natural", "newly", "end", "zymurgy")
              for synset in wordnet.synsets(word) for lemma in synset.lemmas()]
    counts = [wordnet.lemma_count(lemma) for lemma in lemmas]
    assert counts == [WordNetCorpusReader.lemma_count(wordnet, lemma) for lemma in lemmas]
    assert max(counts) > 10 and 0 in counts


def test_wordnet_senses_keep_the_part_of_speech_and_only_attested_lemmas(wordnet_root):
    wordnet = synonyms.load_wordnet(wordnet_root)
    # "natural" as an adjective: never the musical sign (noun sense "cancel")
    assert all("cancel" not in names for *_, names in senses_of(wordnet, "natural", "JJ"))
    for tag in ("NNP", "NNS", "VBD", "JJR", "DT", ""):  # proper nouns and inflected forms are not replaced
        assert senses_of(wordnet, "runs", tag) == []
    tongue = senses_of(wordnet, "tongue", "NN")
    assert len(tongue) == len(wordnet.synsets("tongue", "n")) and tongue[0][0].startswith("tongue, lingua, glossa")
    assert all("glossa" not in names for *_, names in tongue)  # a lemma SemCor never saw in that sense
    assert abs(sum(share for _, share, _ in tongue) - 1) < 1e-9 and tongue[0][1] == max(s for _, s, _ in tongue)
    assert senses_of(wordnet, "newly", "RB")[0][2] == ["freshly"]  # not "fresh" or "new": an -ly adverb's form
    assert all("figure" not in names for *_, names in senses_of(wordnet, "number", "NN"))  # "figure" is a shape first
    car = senses_of(wordnet, "car", "NN")[0][2]
    counts = [wordnet.lemma(f"{wordnet.synsets('car', 'n')[0].name()}.{name}").count() for name in car]
    assert counts == sorted(counts, reverse=True) and min(counts) >= 1


@pytest.fixture(scope="module")
def in_context(wordnet_root):
    from picforge.encoders import BUNDLED_MODEL, encode, load_sentence_model

    model = load_sentence_model(BUNDLED_MODEL, "model", "cpu")
    return synonyms.SensesInContext(synonyms.load_wordnet(wordnet_root), lambda texts: encode(model, texts))


def test_the_sense_comes_from_the_phrase_and_replacements_keep_its_meaning(in_context):
    assert "terminal" not in in_context.synonyms("comes to an end", "end", "NN")  # not the end of a rope
    assert "glossa" not in in_context.synonyms("mother tongue", "tongue", "NN")
    assert "automobile" in in_context.synonyms("the car", "car", "NN")
    assert in_context.synonyms("the car", "car", "NNS") == []


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


def test_replacements_that_change_the_reading_are_dropped(wordnet_root):
    for word, replacement in (("award", "awarding"), ("death", "dying"), ("war", "warfare"), ("night", "nighttime"),
                              ("little", "small"), ("small", "little"), ("full", "entire"), ("single", "individual")):
        assert not synonyms.keeps_reading(word, replacement), (word, replacement)
    assert synonyms.keeps_reading("car", "automobile") and synonyms.keeps_reading("building", "edifice")
    wordnet = synonyms.load_wordnet(wordnet_root)
    assert all("warfare" not in names for *_, names in senses_of(wordnet, "war", "NN"))
    assert all("small" not in names for *_, names in senses_of(wordnet, "little", "JJ"))


def test_glosses_are_embedded_only_where_a_replacement_keeps_the_meaning(wordnet_root):
    """Scoring the replaced phrases first gives what choosing the sense first gives, with fewer glosses embedded:
    where no sense's replacement keeps the cosine, no sense choice can give one."""
    from picforge.encoders import BUNDLED_MODEL, encode, load_sentence_model

    model, embedded = load_sentence_model(BUNDLED_MODEL, "model", "cpu"), []
    senses = synonyms.SensesInContext(synonyms.load_wordnet(wordnet_root),
                                      lambda texts: (embedded.extend(texts), encode(model, texts))[1])
    asked = [("the car", "car", "NN"), ("comes to an end", "end", "NN"), ("mother tongue", "tongue", "NN"),
             ("a large building", "building", "NN"), ("the main road", "main", "JJ"), ("he runs fast", "fast", "RB"),
             ("a natural harbour", "natural", "JJ"), ("the first study", "study", "NN")]
    kept = senses.in_context(asked)
    glosses = {gloss for _, word, tag in asked for gloss, *_ in senses.senses(word.lower(), tag)}
    assert set(embedded) & glosses < glosses  # some words' glosses were never embedded
    senses.gloss_vectors = dict(zip(sorted(glosses), encode(model, sorted(glosses))))
    for phrase, word, tag in asked:  # the sense chosen among all glosses, then its replacements that keep the cosine
        found = senses.senses(word.lower(), tag)
        if not any(names for *_, names in found):
            continue
        context = encode(model, [phrase])[0]
        names = found[senses._sense_in(context, found)][2]
        replaced = [" ".join(name if w == word else w for w in phrase.split(" ")) for name in names]
        expected = [name for name, vector in zip(names, encode(model, replaced) if names else [])
                    if round(float(vector @ context), synonyms.ROUNDING) >= senses.min_cosine]
        assert kept[(phrase, word, tag)] == expected, (phrase, word)
    assert any(kept.values())


def test_wordnet_is_read_once_per_thread(wordnet_root):
    import threading

    first = synonyms.load_wordnet(wordnet_root)
    assert synonyms.load_wordnet(wordnet_root + "/") is first  # the same folder, however spelt
    other = []
    thread = threading.Thread(target=lambda: other.append(synonyms.load_wordnet(wordnet_root)))
    thread.start()
    thread.join()
    assert other[0] is not first  # NLTK's reader seeks shared file handles: no two threads share one
