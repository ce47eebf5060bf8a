"""SimLex reading, lemma matching, windows and the low-resource filters, without Beam."""
import pytest
import spacy

from companions.cosimlex.contexts import (context_windows, english_inflections, inflection_index, malformed_reasons,
                                        page_search, pairs_by_first_word, possible_words, sentence_targets,
                                        token_words, window_contexts)
from companions.cosimlex.simlex import parse_simlex, read_simlex
from picforge.errors import InputError
from tests.cosimlex.conftest import SPACY_MODEL

OFFICIAL = """word1\tword2\tPOS\tSimLex999\tconc(w1)\tconc(w2)\tconcQ\tAssoc(USF)\tSimAssoc333\tSD(SimLex)
old\tnew\tA\t1.58\t2.72\t2.81\t2\t7.25\t1\t0.41
smart\tintelligent\tA\t9.2\t1.75\t2.46\t1\t7.11\t1\t0.67
"""


def test_official_layout_keeps_pos_and_score(tmp_path):
    path = tmp_path / "SimLex-999.txt"
    path.write_text(OFFICIAL, encoding="utf-8")
    pairs = read_simlex(str(path))
    assert [(p.pair_no, p.word1, p.word2, p.pos, p.simlex) for p in pairs] == [
        (0, "old", "new", "A", 1.58), (1, "smart", "intelligent", "A", 9.2)]
    assert pairs[1].pair_id == "smart|intelligent"


@pytest.mark.parametrize("lines", [
    ["word1 word2 score", "Cup mug 9.5", "", "coffee cup 2.1"],
    ["\ufeffcup\tmug\t9.5", "coffee\tcup\t2.1"],
    ["cup,mug,9.5", "# a comment", "coffee,cup,2.1"],
])
def test_three_column_layouts(lines):
    assert [(p.word1, p.word2, p.simlex, p.pos) for p in parse_simlex(lines)] == [
        ("cup", "mug", 9.5, None), ("coffee", "cup", 2.1, None)]


@pytest.mark.parametrize("lines, message", [
    (["cup mug 9.5 1"], "line 1: 4 columns"),
    (["cup mug 9.5", "coffee cup"], "line 2: 2 columns where the file's first line has 3"),
    (["cup mug 9.5", "cup mug 8"], "line 2: pair cup mug already given on line 1"),
    (["cup cup 9"], "line 1: both words are 'cup'"),
    (["cup\tcoffee mug\t9"], "line 1: 'coffee mug' is not a single word"),
    (["word1 word2 score"], "no word pairs found"),
])
def test_bad_simlex_lines_name_the_line(lines, message):
    with pytest.raises(InputError, match=message):
        parse_simlex(lines, "pairs.txt")


@pytest.fixture(scope="module")
def nlp():
    return spacy.load(SPACY_MODEL, exclude=["parser", "ner"])


def annotated(nlp, texts, vocabulary, paragraphs=None, page_id=7):
    paragraphs = paragraphs or [0] * len(texts)
    inflections = inflection_index(vocabulary)
    return [{"sentence_id": f"{page_id}:{i}", "page_id": page_id, "idx": i, "paragraph": p, "text": t,
             "targets": sentence_targets(nlp(t), vocabulary, inflections)}
            for i, (t, p) in enumerate(zip(texts, paragraphs))]


def test_inflected_forms_match_through_lemmas(nlp):
    targets = sentence_targets(nlp("The children ran home while two mice watched."), {"child", "run", "mouse"})
    assert targets == [["child", 4, 12], ["run", 13, 16], ["mouse", 32, 36]]


def test_english_inflections_are_regular_forms_of_the_word():
    assert english_inflections("tax") == {"taxes": "s", "taxed": "ed", "taxing": "ing"}
    assert english_inflections("try") == {"tries": "s", "tried": "ed", "tryed": "ed", "trying": "ing"}
    assert english_inflections("hope") == {"hopes": "s", "hoped": "ed", "hoping": "ing"}
    assert english_inflections("stop") == {"stops": "s", "stoped": "ed", "stoping": "ing", "stopped": "ed",
                                           "stopping": "ing"}
    assert inflection_index({"tax", "taxi"})["taxes"] == {("tax", "s")}


def test_surface_forms_count_where_the_lemmatizer_errs(nlp):
    # spaCy's small model lemmatises "taxes" as "taxis": the form still counts as *tax* (tag NNS), "news" (NN)
    # does not count as *new*
    doc = nlp("Farmers paid the taxes in grain and read the news.")
    assert [t.lemma_ for t in doc if t.text == "taxes"] == ["taxis"]
    vocabulary = {"tax", "new", "farmer"}
    assert sentence_targets(doc, vocabulary, inflection_index(vocabulary)) == [["farmer", 0, 7], ["tax", 17, 22]]
    assert sentence_targets(doc, vocabulary) == [["farmer", 0, 7]]  # forms and lemmas only (other languages)
    pairs = pairs_by_first_word(parse_simlex(["tax fee 5"]))
    five = annotated(nlp, ["The tax rose and taxes on taxes grew.", "A fee was added to the taxes.",
                           "Taxes paid the fee."], {"tax", "fee"})
    assert sum(t[0] == "tax" for s in five for t in s["targets"]) == 5
    assert list(window_contexts(next(context_windows(five)), pairs)) == []


def test_a_word_inside_a_proper_name_is_not_the_word(nlp):
    vocabulary = {"new", "old", "york"}
    doc = nlp("The new mayor of New York met the old mayor.")
    assert sentence_targets(doc, vocabulary, inflection_index(vocabulary)) == [["new", 4, 7], ["old", 34, 37]]
    pairs = pairs_by_first_word(parse_simlex(["new old 1"]))
    window = annotated(nlp, ["The new mayor arrived.", "He moved from New York last year.", "The old mayor left."],
                       {"new", "old"})
    (context,) = window_contexts(next(context_windows(window)), pairs)
    assert context["context"][context["word1_start"]:context["word1_end"]] == "new" and context["word1_start"] == 4


def test_window_needs_each_word_exactly_once(nlp):
    pairs = pairs_by_first_word(parse_simlex(["child adult 5"]))
    once = annotated(nlp, ["A child plays.", "The adult reads.", "It rains."], {"child", "adult"})
    (window,) = context_windows(once)
    (context,) = window_contexts(window, pairs)
    assert context["context"] == "A child plays. The adult reads. It rains."
    assert context["context"][context["word1_start"]:context["word1_end"]] == "child"
    assert context["context"][context["word2_start"]:context["word2_end"]] == "adult"
    assert context["occurrences"] == ["7:0+2", "7:1+4"]
    twice = annotated(nlp, ["A child plays.", "The adult reads.", "Another child sleeps."], {"child", "adult"})
    assert list(window_contexts(next(context_windows(twice)), pairs)) == []
    inflected_twice = annotated(nlp, ["A child plays.", "The adult reads.", "The children sleep."], {"child", "adult"})
    assert list(window_contexts(next(context_windows(inflected_twice)), pairs)) == []


def test_windows_stay_inside_a_paragraph_and_follow_idx():
    sentences = [{"idx": i, "paragraph": p} for i, p in [(0, 0), (1, 0), (2, 0), (3, 1), (4, 1), (5, 1), (7, 1)]]
    windows = [[s["idx"] for s in w] for w in context_windows(reversed(sentences))]
    assert windows == [[0, 1, 2], [3, 4, 5]]


def test_malformed_reasons():
    good = ["The river runs north.", "Boats carry timber along it.", "“Quotes” are fine too!"]
    assert malformed_reasons(good) == []
    assert malformed_reasons(["thumb|left|Map", "lowercase start here, no end", "1990 2001 2004 12 14 15.",
                              "Fine sentence is here."]) == [
        "bad-start", "few-letters", "markup", "no-final-punctuation", "short-sentence"]
    assert malformed_reasons(["Same sentence again here.", "Same sentence again here.", "Other words are here."]) \
        == ["repeated-sentence"]
    assert malformed_reasons([" ".join(["word"] * 61).capitalize() + "."]) == ["long-sentence"]


@pytest.fixture(scope="module")
def sample_pages(enwiki_sample):
    """The sentence records of the real 5-page enwiki sample, one list per page (split without Beam)."""
    from pipeline.stages.clean import iter_clean_pages
    from pipeline.stages.sentences import page_sentences

    return [[dict(s) for s in page_sentences(page)] for page in iter_clean_pages(str(enwiki_sample))]


def test_a_form_bounds_the_words_its_token_can_be_under_any_tag(nlp, sample_pages):
    """Every token of the real sample, with every form and lemma it has as the vocabulary: the words the tagged
    token is a use of are among those its form alone allows (what lets untagged windows be skipped)."""
    docs = list(nlp.pipe(s["text"] for page in sample_pages for s in page))
    vocabulary = frozenset(w for doc in docs for t in doc for w in (t.lower_, t.lemma_.lower()))
    inflections = inflection_index(vocabulary)
    words_of_form = possible_words(nlp, vocabulary, inflections)
    tokens = [t for doc in docs for t in doc]
    assert len(tokens) > 5000 and sum(t.lemma_.lower() != t.lower_ for t in tokens) > 500
    assert [t.text for t in tokens if not token_words(t, vocabulary, inflections) <= words_of_form(t.lower_)] == []


def test_page_search_finds_what_tagging_every_sentence_finds(nlp, sample_pages):
    pairs = read_simlex("examples/cosimlex-pairs.txt")
    vocabulary = frozenset(w for p in pairs for w in (p.word1, p.word2))
    inflections, index = inflection_index(vocabulary), pairs_by_first_word(pairs)
    words_of_form = possible_words(nlp, vocabulary, inflections)
    everything, searched_only, tagged, sentences = [], [], 0, 0
    for page in sample_pages:
        for sentence in page:
            sentence["targets"] = sentence_targets(nlp(sentence["text"]), vocabulary, inflections)
        everything += [c for w in context_windows(page) for c in window_contexts(w, index)]
        fresh = [{k: v for k, v in s.items() if k != "targets"} for s in page]
        windows, searched, tagged_here = page_search(nlp, fresh, vocabulary, inflections, index, words_of_form)
        searched_only += [c for w in searched for c in window_contexts(w, index)]
        tagged, sentences = tagged + len(tagged_here), sentences + len(page)
    assert len(everything) >= 3 and searched_only == everything
    assert tagged < sentences / 4


def test_a_pipeline_whose_lemmas_no_form_bounds_tags_every_sentence(sample_pages):
    custom = spacy.load(SPACY_MODEL, exclude=["parser", "ner"])
    custom.add_pipe("trainable_lemmatizer", name="edit_tree", last=True)
    assert possible_words(custom, frozenset({"new"}), {}) is None
    page = [{k: v for k, v in s.items() if k != "targets"} for s in sample_pages[0]]
    windows, searched, tagged = page_search(spacy.load(SPACY_MODEL, exclude=["parser", "ner"]), page, {"new"}, {},
                                            {}, None)
    assert searched == windows and len(tagged) == len({s["sentence_id"] for w in windows for s in w})
