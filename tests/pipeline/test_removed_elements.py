"""What removing quotations, figures, formulas, lists and notes leaves: the cleaner's and the sentence splitter's rules
for them (issue 45), on hand-written wikitext; `test_prose_audit.py` checks the 103-page sample against them."""
from collections import Counter

import pytest

from pipeline.stages.clean import clean_wikitext, dropped_counter, tidy
from pipeline.stages.sentences import POINTER, broken_reason, page_sentences, points_to_removed, sentence_spans


def sentences_of(wikitext):
    """(text, broken) of each sentence of the cleaned wikitext."""
    cleaned = clean_wikitext(wikitext)
    page = {"page_id": 1, "paragraphs": cleaned.paragraphs, "missing_words": cleaned.missing_words,
            "template_words_lost": cleaned.template_words_lost}
    return [(s["text"], s["broken"]) for s in page_sentences(page)]


def test_a_block_quotation_is_dropped_and_the_sentence_leading_into_it_flagged():
    wikitext = ("Julian was his brother. His brother Julian wrote:\n\n{{Quote | I believe his blindness was a blessing. "
                "For one thing, it put paid to it.}}\n\nHe went on. Knox said it well.\n{{quote|The army generally.}}\n"
                "Then Hesiod explains:<ref>x</ref><blockquote>\"For there are many.\"</blockquote> The Iliad is old.")
    cleaned = clean_wikitext(wikitext)
    assert cleaned.paragraphs == ["Julian was his brother. His brother Julian wrote:", "He went on. Knox said it well.",
                                  "Then Hesiod explains:", "The Iliad is old."]
    assert cleaned.dropped == {"quotation": 3, "quotation-lead-in": 2}
    assert [broken for _, broken in sentences_of(wikitext)] == [
        "", "missing-words", "", "", "missing-words", ""]  # "… said it well." names no quoting: kept
    assert dropped_counter("quotation-lead-in") == "broken-quotation-lead-in"


@pytest.mark.parametrize("lead_in", ["Knox wrote.", "He described the change this way.", "The inscription read:"])
def test_a_lead_in_naming_the_quotation_is_flagged(lead_in):
    assert sentences_of(f"First one.\n\n{lead_in}\n\n<blockquote>Quoted words here.</blockquote>\n\nAfter.") == [
        ("First one.", ""), (lead_in, "missing-words"), ("After.", "")]


def test_a_quotation_over_several_sentences_is_one_unit():
    paragraph = 'Grimaldi told Lee that "You have considered it. The moment is not yet come." Meanwhile, he left.'
    units = [paragraph[start:end] for start, end, _ in sentence_spans(paragraph)]
    assert units == ['Grimaldi told Lee that "You have considered it. The moment is not yet come."', "Meanwhile, he left."]
    counts = Counter()
    list(page_sentences({"page_id": 1, "paragraphs": [paragraph], "missing_words": []}, counts))
    assert counts == {"quotations-kept-whole": 1}
    mixed = 'Jefferson wrote, "It will be said. The states must see the rod.” Congress did not.'
    assert [mixed[start:end] for start, end, _ in sentence_spans(mixed)] == [
        'Jefferson wrote, "It will be said. The states must see the rod.”', "Congress did not."]
    never_closed = 'It has "two paths. In 2011, a project was planned.'  # runs to the paragraph's end
    assert sentence_spans(never_closed) == [[0, len(never_closed), 2]]


@pytest.mark.parametrize("text, expected", [
    ("about 10% was left homeless.The communist partisans", "about 10% was left homeless. The communist partisans"),
    ("3.2% in 2011.Albania and Croatia", "3.2% in 2011. Albania and Croatia"),
    ('Ingmar Bergman said of Tarkovsky:"Tarkovsky for me', 'Ingmar Bergman said of Tarkovsky: "Tarkovsky for me'),
    ("e.g. the U.S.Army at 10:30, Amazon.com", "e.g. the U.S.Army at 10:30, Amazon.com"),
])
def test_sentences_are_never_glued(text, expected):
    assert tidy(text) == expected


def test_removed_files_and_footnotes_never_join_two_sentences():
    wikitext = ("It grew 3.2% in 2011.<ref>IMF</ref>[[File:Cement.jpg|thumb|A factory]]Albania and Croatia talk.\n\n"
                "Power plants such as Ashta.[[File:Fierze.JPG|thumb|left|Koman]]The country has oil.")
    assert clean_wikitext(wikitext).paragraphs == ["It grew 3.2% in 2011. Albania and Croatia talk.",
                                                   "Power plants such as Ashta. The country has oil."]


def test_notes_listings_and_bold_pseudo_headings_are_dropped_and_counted():
    wikitext = ("Prose here.\n\nSources: Census.gov\n\nNote: The cities in italics.\n\n'''Kukës Airport'''\n"
                "The airport opened.\n\nThe listing below follows Nelson.\n\nThe following list is of those who led.\n\n"
                "Note that the mean is kept.\n\nThe '''bold''' word stays.")
    cleaned = clean_wikitext(wikitext)
    assert cleaned.paragraphs == ["Prose here.", "The airport opened.", "Note that the mean is kept.",
                                  "The bold word stays."]
    assert cleaned.dropped == {"note": 2, "pseudo-heading": 1, "listing": 2}
    assert [dropped_counter(r) for r in ("note", "listing", "pseudo-heading")] == [
        "paragraphs-dropped-note", "paragraphs-dropped-listing", "lines-dropped-pseudo-heading"]


@pytest.mark.parametrize("sentence", [
    'Its conjugation is prefixing (see "Historical Populations" table below), with a pattern.',
    "The main features of a typical fish are shown in the diagram at the left.",
    "This is a chart of trend of nominal gross domestic product of Angola.",
    "Their lineage relationships are shown in the figure in the upper right.",
    "For alkanes, this can be seen from the graph above.",
    "Some of these functions of Art are provided in the following outline.",
])
def test_a_pointer_to_a_removed_figure_or_table_is_flagged(sentence):
    assert broken_reason(sentence) == "pointer-to-removed"


@pytest.mark.parametrize("sentence", [
    "Of these, 1,356 were threatened and this figure is likely to be an underestimate.",
    "Portions of the peninsula are considered part of the Southwest (see below).",
    "The summit rises 10,000 feet above the sea.",
])
def test_prose_that_points_at_nothing_removed_is_kept(sentence):
    assert broken_reason(sentence) == ""


def test_sentences_cut_where_a_formula_went_are_flagged():
    paragraphs = ["For a more concrete example suppose that", "where K0 = 1 and the other K-terms are constants.",
                  "He wrote it in 1840.", "In England, it was used in the 1840s and 50s"]
    page = {"page_id": 1, "paragraphs": paragraphs, "missing_words": []}
    assert [s["broken"] for s in page_sentences(page)] == [
        "no-sentence-end", "cut-paragraph-start", "", "no-sentence-end"]


def test_a_paragraph_starting_with_a_quotation_mark_or_bold_words_is_prose():
    wikitext = '"Appellate review" is the general term.\n\n\'\'\'Bold\'\'\' words open this one.'
    assert clean_wikitext(wikitext).paragraphs == ['"Appellate review" is the general term.',
                                                   "Bold words open this one."]


@pytest.mark.parametrize("sentence", [
    "The main features of a typical fish are shown in the DIAGRAM at the left.",
    "Some of these functions are given below.",
    "The summit rises 10,000 feet above the sea.",
    "A river flows through the town and into the sea.",
    "Some of these are shown in the folloſing liſt below.",  # long s: re's IGNORECASE is wider than lower()
    "Their lineage relationships are shown in the Key figure in the upper right.",
])
def test_the_pointer_word_shortcut_decides_as_the_pattern_does(sentence):
    assert points_to_removed(sentence) == bool(POINTER.search(sentence))
