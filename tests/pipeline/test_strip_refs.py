"""Footnotes removed before parsing: the same prose as the parsed-and-dropped path, on the real sample and on the
places where removal could join text into new markup."""
import re

import pytest

from pipeline.stages import clean
from pipeline.stages.clean import strip_refs
from pipeline.dump.pages import classify_page
from pipeline.dump.reader import read_pages

REF_OPENING = re.compile(r"<ref[\s>/]", re.IGNORECASE)


@pytest.mark.parametrize("wikitext, stripped", [
    ("A fact.<ref>{{cite web |url=https://example.org |title=T}}</ref> Next.", "A fact. Next."),
    ('A fact,<ref name="a" /> more<REF group=n>note <i>x</i></REF >.', "A fact, more."),
    ("Runs of them.<ref>a</ref><ref name=b/><ref>c</ref>\nNext line.", "Runs of them.\nNext line."),
    ("See <references/> and <ref name=x/>.", "See <references/> and ."),  # <references/> is another tag
])
def test_footnotes_between_words_and_punctuation_go(wikitext, stripped):
    assert strip_refs(wikitext) == stripped


@pytest.mark.parametrize("wikitext", [
    "x <!-- y.<ref>z</ref> --> w",                        # inside a comment it is text
    "x<ref>a <!-- b</ref> -->c</ref>.",                   # a comment splits the footnote
    "<nowiki>a.<ref>x</ref> b</nowiki>",                  # unparsed tag content
    "<math>a.<ref>x</ref> b",                              # an unclosed unparsed tag runs to the end
    "Lead.\n<ref>a</ref>* item",                           # at a line start: `*` would become a list
    "[[A|b<ref>x</ref>]] and {{t|b<ref>x</ref>|c}}",       # removal would touch link or template syntax
    "'<ref>x</ref>'",                                      # two quotes would join into italics
    "a<ref>b<ref>c</ref>d</ref>.",                         # nested: left to the parser
    "a.<ref>never closed. More text.",                     # unclosed
])
def test_footnotes_that_removal_could_change_stay(wikitext):
    assert strip_refs(wikitext) == wikitext


def test_real_articles_render_the_same_with_footnotes_removed_first(enwiki_sample_103, monkeypatch):
    articles = [text for fields, text, redirect in read_pages(str(enwiki_sample_103))
                if not classify_page(fields, text, redirect)]
    cleaned = [clean.clean_wikitext(text) for text in articles]
    monkeypatch.setattr(clean, "strip_refs", lambda text: text)
    assert [clean.clean_wikitext(text) for text in articles] == cleaned
    footnotes = sum(len(REF_OPENING.findall(text)) for text in articles)
    left = sum(len(REF_OPENING.findall(strip_refs(text))) for text in articles)
    assert len(articles) == 69 and footnotes > 5000 and left < footnotes / 10
