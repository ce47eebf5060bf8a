"""Pure text functions of the mining stages, on real markup and hand-made cases."""
import bz2
import re

import pytest

from picforge.resources import read_wic_words, stopwords
from pipeline.stages.clean import clean_wikitext, dropped_counter, has_residue, iter_clean_pages, tidy
from pipeline.stages.phrases import chunk_phrase, extract_phrases, load_spacy, normalise_phrase, trim_words
from pipeline.dump.pages import classify_page
from pipeline.dump.reader import iter_pages
from pipeline.stages.select import passage_window
from picforge.sentence_split import split_sentences
from pipeline.stages.sentences import page_sentences

RESIDUE_MARKERS = ("[[", "]]", "{{", "}}", "&amp;", "&quot;", "&nbsp;", "<ref", "Category:", ". .")


@pytest.fixture(scope="module")
def real_pages(enwiki_sample):
    with bz2.open(enwiki_sample) as fh:
        return [(fields, wikitext) for fields, wikitext, _ in iter_pages(fh, str(enwiki_sample))]


def test_real_dump_pages_are_read_with_ids_and_titles(real_pages):
    assert [f["page_id"] for f, _ in real_pages] == [217916, 3277686, 316, 9391, 4702]
    assert all(classify_page(f, w, False) == "" for f, w in real_pages)


def test_cleaning_real_pages_leaves_no_markup_residue(real_pages):
    for fields, wikitext in real_pages:
        cleaned = clean_wikitext(wikitext)
        assert cleaned.paragraphs, fields["title"]
        for paragraph in cleaned.paragraphs:
            for marker in RESIDUE_MARKERS:
                assert marker not in paragraph, (fields["title"], marker, paragraph[:200])
            assert not has_residue(paragraph)


def test_cleaning_keeps_prose_and_link_text_and_reads_categories(real_pages):
    wikitext = dict((f["title"], w) for f, w in real_pages)["Constructive vote of no confidence"]
    cleaned = clean_wikitext(wikitext)
    assert cleaned.paragraphs[0].startswith("The constructive vote of no confidence (in German: konstruktives")
    assert "a variation on the motion of no confidence which allows a parliament" in cleaned.paragraphs[0]
    assert cleaned.categories == ["German constitutional law", "Motions of no confidence"]
    assert not any("Forty-eight hours" in p and "Cite web" in p for p in cleaned.paragraphs)


def test_cleaning_drops_tables_refs_files_templates_and_unescapes_entities():
    wikitext = (
        "Intro with a [[Link|shown text]] and [[File:x.jpg|thumb|caption]] here.<ref>{{cite web|url=x}}</ref> "
        "Price was {{convert|5|km}} long &amp; wide.\n{| class=wikitable\n|-\n| cell || cell\n|}\n"
        "== See also ==\n* [[Other]]\n[[Category:Real topic]]\n[[Category:Articles with dead external links]]\n[[de:Thema]]"
    )
    cleaned = clean_wikitext(wikitext)
    assert cleaned.paragraphs == ["Intro with a shown text and here. Price was 5 kilometres long & wide."]
    assert cleaned.categories == ["Real topic"]
    assert cleaned.missing_words == []


def test_unknown_inline_template_records_where_words_went_missing():
    cleaned = clean_wikitext("Intro line.\n\nThe river is {{Unknown template|x}} long and very deep.")
    assert cleaned.paragraphs == ["Intro line.", "The river is long and very deep."]
    assert cleaned.template_words_lost == [[1, 12]] and cleaned.missing_words == []


def test_behaviour_switches_leave_no_trace():
    """From the real 'Alkali metal' page (103-page sample), where __TOC__ ended the lead's last paragraph."""
    wikitext = ("Sodium and potassium are also [[essential element]]s, having major biological roles as "
                "[[electrolyte]]s, and although the other alkali metals are not essential, they also have various "
                "effects on the body, both beneficial and harmful.\n__TOC__\n{{clear left}}\n\n==Properties==\n\n"
                "===Physical and chemical===\nThe physical and chemical properties __NOEDITSECTION__ differ.")
    cleaned = clean_wikitext(wikitext)
    assert cleaned.paragraphs == [
        "Sodium and potassium are also essential elements, having major biological roles as electrolytes, and although "
        "the other alkali metals are not essential, they also have various effects on the body, both beneficial and "
        "harmful.", "The physical and chemical properties differ."]
    assert has_residue("harmful. __NOTOC__") and has_residue("x &#x2013; y")


def test_unbalanced_quotes_on_the_real_103_page_sample_lose_no_prose(enwiki_sample_103):
    """Unbalanced '' / ''' made mwparserfromhell misread what surrounds them: on 'Alaska' a table ran on to the next
    table's |} and swallowed 52 paragraphs uncounted; on 'Ambiguity' a [[File:…]] caption became prose; and 15
    paragraphs of 9 pages were dropped for the residue left behind."""
    with bz2.open(enwiki_sample_103) as fh:
        cleaned = {fields["title"]: clean_wikitext(wikitext)
                   for fields, wikitext, _ in iter_pages(fh, str(enwiki_sample_103)) if fields["ns"] == 0}
    assert any("Military bases are a significant component of the economy" in p for p in cleaned["Alaska"].paragraphs)
    assert not any("Pepe vio a Pablo" in p for p in cleaned["Ambiguity"].paragraphs)
    assert sum(page.dropped.get("markup-residue", 0) for page in cleaned.values()) == 0


@pytest.mark.parametrize("wikitext, expected", [
    ("Highways are often called ''trails''.", "Highways are often called trails."),
    ("A '''bold''' and '''''both''''' word.", "A bold and both word."),
    ("The ''''quoted'''' title.", "The 'quoted' title."),
    ("An unclosed '''bold run and more words.", "An unclosed bold run and more words."),
    ("Jehovah's Witnesses", "Jehovah's Witnesses"),
])
def test_bold_and_italic_quotes_render_as_mediawiki_does(wikitext, expected):
    assert clean_wikitext(wikitext).paragraphs == [expected]


@pytest.mark.parametrize("raw, expected", [
    ("word ( ) word", "word word"),
    ("end . . next", "end. next"),
    ("a , , b", "a, b"),
    ("x&nbsp;y &amp; z", "x y & z"),
])
def test_tidy_removes_punctuation_debris(raw, expected):
    assert tidy(raw) == expected


def test_sentence_split_keeps_abbreviations():
    assert split_sentences("Dr. Smith met the U.S. envoy on Jan. 5 in Washington. It was cold.") == [
        "Dr. Smith met the U.S. envoy on Jan. 5 in Washington.", "It was cold."]


def test_stopword_list_is_nltks_179():
    assert len(stopwords()) == 179 and {"the", "of", "wouldn't"} <= stopwords()


@pytest.mark.parametrize("text, span", [
    ("the massive figure", (4, 18)),
    ("massive figure 's", (0, 14)),
    ("( the red apple )", (6, 15)),
    ("both-hands grab", (0, 15)),  # one word: its stripped form "both-hands" is no stopword
    ("Don't  panic --", (7, 12)),
    ("of the", None),
])
def test_trim_words_strips_stopword_and_symbol_words_at_both_ends(text, span):
    assert trim_words(text) == span


@pytest.mark.parametrize("text, expected", [
    ("Massive Figure", ("massive figure", 0, 14)),
    ('"red  apple".', ("red apple", 1, 11)),
    ("figure", None),
    ("déjà vu", None),
    ("5 \u212a", ("5 k", 0, 3)),  # the Kelvin sign lower-cases to "k"
    ("harbour x\u0130", None),  # lower-casing lengthens "\u0130": offsets would not line up
])
def test_normalise_phrase_drops_unigrams_and_non_ascii(text, expected):
    assert normalise_phrase(text) == expected


@pytest.mark.parametrize("text, chunk, phrase", [
    ("He used a both-hands grab.", "a both-hands grab", "both-hands grab"),
    ("It was T-Bag's motivation.", "T-Bag's motivation", "t-bag's motivation"),
    ("See (the  Red Apple) there.", "(the  Red Apple)", "red apple"),
])
def test_chunk_phrase_trims_whitespace_words_and_keeps_offsets(text, chunk, phrase):
    start = text.index(chunk)
    found, phrase_start, phrase_end = chunk_phrase(text, start, start + len(chunk))
    assert found == phrase
    assert " ".join(text[phrase_start:phrase_end].lower().split()) == phrase


def test_chunk_phrase_is_none_when_one_word_is_left():
    assert chunk_phrase("all of the both-hands", 0, 21) is None


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def test_extract_phrases_noun_chunks_kind_from_root(nlp):
    text = "Isaac Newton saw the red apple in the Woolsthorpe Manor garden."
    found = {(p, k) for p, s, e, k in extract_phrases(nlp(text))}
    assert found == {("isaac newton", "PROPN"), ("red apple", "NOUN"), ("woolsthorpe manor garden", "NOUN")}
    for phrase, start, end, _ in extract_phrases(nlp(text)):
        assert text[start:end].lower() == phrase


PIC_EDGE = re.compile(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$")


def pic_phrase(chunk_text):
    """PiC's own normalisation of a noun chunk's text: whitespace words, lower-cased, trimmed, edge symbols off."""
    words = chunk_text.lower().split()
    while words and PIC_EDGE.sub("", words[0]) in stopwords() | {""}:
        words.pop(0)
    while words and PIC_EDGE.sub("", words[-1]) in stopwords() | {""}:
        words.pop()
    phrase = PIC_EDGE.sub("", " ".join(words))
    return phrase if len(phrase.split()) >= 2 and phrase.isascii() else None


def test_chunk_phrase_is_pics_phrase_on_every_noun_chunk_of_the_real_sample(nlp, enwiki_sample):
    texts = [s["text"] for page in iter_clean_pages(str(enwiki_sample)) for s in page_sentences(page)]
    chunks = [(doc.text, chunk) for doc in nlp.pipe(texts) for chunk in doc.noun_chunks]
    found = [(text, chunk, chunk_phrase(text, chunk.start_char, chunk.end_char)) for text, chunk in chunks]
    assert len(found) > 4000 and any(" " in chunk.text and occ for _, chunk, occ in found)
    for text, chunk, occurrence in found:
        assert (occurrence and occurrence[0]) == pic_phrase(chunk.text), chunk.text
        if occurrence:
            assert " ".join(text[occurrence[1]:occurrence[2]].lower().split()) == occurrence[0]


def test_spacy_runs_only_needed_components(nlp):
    assert nlp.pipe_names == ["tok2vec", "tagger", "parser", "picforge_pos_rules"]


@pytest.mark.parametrize("idx, n, window", [
    (10, 20, (8, 13)),  # two before, two after
    (0, 20, (0, 5)),
    (19, 20, (15, 20)),
    (1, 3, (0, 3)),
])
def test_passage_window_is_centred_with_two_after(idx, n, window):
    assert passage_window(idx, n) == window


def test_wic_words_from_official_zip(wic_zip):
    words = read_wic_words(str(wic_zip))
    assert len(words) == 2345 and "figure" in words and "bank" in words


def test_list_indent_definition_table_and_gallery_lines_are_dropped_and_counted():
    cleaned = clean_wikitext(
        "Intro line here.\n* item one\n# item two\n: indented\n; term : definition\n<ul><li>html item</li></ul>\n"
        "{| class=x\n|-\n| a || b\n|}\n<gallery>\nA.jpg|caption\n</gallery>\n\nProse again.")
    assert cleaned.paragraphs == ["Intro line here.", "Prose again."]
    assert cleaned.dropped == {"list": 3, "indent": 1, "definition": 1, "table": 4, "gallery": 3}
    assert [dropped_counter(reason) for reason in ("list", "citation")] == [
        "lines-dropped-list", "paragraphs-dropped-citation"]


def test_a_sentence_a_dropped_list_sat_in_is_not_joined_silently():
    cleaned = clean_wikitext("Before 1918, these five societies:\n* AIEE\n* ASME\nhad been members. They joined.\n\n"
                             "Symbolically:\n: P → Q\nThe name derives from Q.\n\nThree were named.\n* one\nNext one.")
    assert cleaned.paragraphs == ["Before 1918, these five societies: had been members. They joined.", "Symbolically:",
                                  "The name derives from Q.", "Three were named.", "Next one."]
    assert cleaned.missing_words == [[0, 34], [1, 13]]


def test_a_paragraph_introducing_a_dropped_formula_or_indent_is_flagged():
    cleaned = clean_wikitext("It is contraposition. Symbolically:\n\n<math>(P \\to Q)\\leftrightarrow x</math>\n\n"
                             "The name derives.\n\nFor example:\n\n:If Bill owns it.\n\nHe said:\n\nA kept paragraph.")
    assert cleaned.paragraphs == ["It is contraposition. Symbolically:", "The name derives.", "For example:",
                                  "He said:", "A kept paragraph."]
    assert cleaned.missing_words == [[0, 35], [2, 12]]
