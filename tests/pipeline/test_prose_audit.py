"""An independent audit of the 103-page sample's kept sentences against their own page's wikitext: they come from
prose lines, not list, indent, definition or table lines (WikiExtractor's `compact()` rules, restated here rather
than taken from the cleaner), and no sentence joins the words on either side of a template that renders words."""
import collections
import re

import pytest

from pipeline.stages.clean import iter_clean_pages
from pipeline.dump_input import read_pages
from pipeline.dump_pages import classify_page
from pipeline.stages.sentences import page_sentences

WORD = re.compile(r"[^\W_]+")
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
FOOTNOTE = re.compile(r"<ref[^>/]*/>|<ref[^>]*>.*?</ref\s*>", re.DOTALL | re.IGNORECASE)
LINK = re.compile(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]")
# Templates that render nothing on the page (citations, footnotes, maintenance tags) or only a space: the words
# around them may meet. Every other template renders words, so the words around it must not be joined.
INVISIBLE = re.compile(
    r"(?:cite|citation|sfn|efn|refn|harv|rp|r|cn|fact|citation needed|clarify|dubious|verify|when|who|which|"
    r"by whom|better source|failed verification|anchor|dead link|update|vague|according to whom|page needed|"
    r"full citation|original research|or|nbsp|zwsp|spaces|thinsp|pad|clear|toc|refimprove|more citations needed|"
    r"vanchor|visible anchor)\b", re.IGNORECASE)
TEMPLATE = re.compile(r"\{\{([^{}|]*)(?:\|[^{}]*)?\}\}")


def one_line_templates(wikitext):
    """The wikitext with each template's line breaks turned into spaces, so a template's text sits on the line
    where the template starts (WikiExtractor expands or drops templates before it looks at lines)."""
    out, depth, i = [], 0, 0
    while i < len(wikitext):
        pair = wikitext[i:i + 2]
        if pair in {"{{", "}}"}:
            depth = depth + 1 if pair == "{{" else max(depth - 1, 0)
            out.append(pair)
            i += 2
            continue
        out.append(" " if wikitext[i] == "\n" and depth else wikitext[i])
        i += 1
    return "".join(out)


def is_one_template(line):
    """True if the line is a single template, `{{` to its own `}}` (a block such as a quote box or an infobox)."""
    depth = 0
    for i in range(0, len(line) - 1):
        if line[i:i + 2] == "{{" and (i == 0 or line[i - 1] != "{"):
            depth += 1
        elif line[i:i + 2] == "}}" and (i == 0 or line[i - 1] != "}"):
            depth -= 1
            if depth == 0:
                return line.startswith("{{") and i + 2 == len(line)
    return False


def line_kinds(wikitext):
    """(kind, line) of each line of the wikitext (comments and footnotes out, templates on one line), kind
    'prose' or what WikiExtractor drops it as: a line starting with `*`/`#` (list), `:` (indent), `;`
    (definition), `|`/`!` or inside `{| … |}` (table), a template alone (template), inside a `<gallery>` (gallery), or a
    `== heading ==`."""
    table_depth, in_gallery = 0, False
    for line in one_line_templates(FOOTNOTE.sub(" ", COMMENT.sub("", wikitext))).split("\n"):
        stripped = line.strip()
        if stripped.startswith("{|"):
            table_depth += 1
        if table_depth:
            kind = "table"
        elif "<gallery" in stripped.lower() or in_gallery:
            kind, in_gallery = "gallery", "</gallery>" not in stripped.lower()
        elif stripped[:1] in {"*", "#"}:
            kind = "list"
        elif stripped[:1] == ":":
            kind = "indent"
        elif stripped[:1] == ";":
            kind = "definition"
        elif stripped[:1] in {"|", "!"}:
            kind = "table"
        elif is_one_template(stripped):
            kind = "template"
        elif re.fullmatch(r"=+.*=+", stripped):
            kind = "heading"
        else:
            kind = "prose"
        if stripped.startswith("|}") and table_depth:
            table_depth -= 1
        yield kind, line


def words(text):
    """Lower-case words of a wikitext line as a reader sees them: footnotes out, links by their shown text."""
    return [w.lower() for w in WORD.findall(LINK.sub(r"\1", FOOTNOTE.sub(" ", text)))]


def five_grams(tokens):
    return {tuple(tokens[i:i + 5]) for i in range(len(tokens) - 4)}


def joined_across_templates(wikitext):
    """{(word before, word after)} of each word-rendering template that sits between two words of a prose line
    (its own words, once rendered, stand between them), when the two words never meet elsewhere on the page."""
    pairs = set()
    for kind, line in line_kinds(wikitext):
        if kind != "prose":
            continue
        text = FOOTNOTE.sub("", line)
        for template in TEMPLATE.finditer(text):
            if INVISIBLE.match(template.group(1).strip()):
                continue
            before = re.search(r"([^\W_]+)[ \t]*$", LINK.sub(r"\1", text[:template.start()]))
            after = re.match(r"[ \t]*([^\W_]+)", LINK.sub(r"\1", text[template.end():]))
            if before and after:
                pairs.add((before.group(1).lower(), after.group(1).lower()))
    page_bigrams = set()
    for kind, line in line_kinds(TEMPLATE.sub(" templateshownhere ", wikitext)):
        tokens = words(line)
        page_bigrams.update(zip(tokens, tokens[1:]))
    return pairs - page_bigrams


@pytest.fixture(scope="module")
def audited_pages(enwiki_sample_103):
    """(wikitext, kept sentences) of each article of the real sample that keeps prose."""
    wikitexts = {fields["page_id"]: text for fields, text, redirect in read_pages(str(enwiki_sample_103))
                 if not classify_page(fields, text, redirect)}
    return [(wikitexts[page["page_id"]], [s["text"] for s in page_sentences(page) if not s["broken"]])
            for page in iter_clean_pages(str(enwiki_sample_103))]


def test_kept_sentences_come_from_prose_lines_of_their_own_page(audited_pages):
    """A sentence comes from a non-prose line when more of its word 5-grams are found in such lines than in prose
    lines; it is counted under the kind of line holding most of them."""
    kept, from_kind = 0, collections.Counter()
    for wikitext, sentences in audited_pages:
        grams = collections.defaultdict(set)
        for kind, line in line_kinds(wikitext):
            grams[kind].update(five_grams(words(line)))
        other = set().union(*(g for kind, g in grams.items() if kind != "prose"))
        for sentence in sentences:
            own = five_grams(words(sentence))
            kept += 1
            if len(own & other) > len(own & grams["prose"]):
                from_kind[max((k for k in grams if k != "prose"), key=lambda k: len(own & grams[k]))] += 1
    assert kept > 10000
    lines_wikiextractor_drops = sum(n for kind, n in from_kind.items() if kind != "template")
    assert lines_wikiextractor_drops / kept <= 0.005, from_kind
    assert from_kind["template"] / kept <= 0.01, from_kind  # quotations in block templates ({{quote}}) are prose


def test_no_sentence_joins_the_words_around_a_word_rendering_template(audited_pages):
    joined = []
    for wikitext, sentences in audited_pages:
        pairs = joined_across_templates(wikitext)
        for sentence in sentences:
            tokens = [w.lower() for w in WORD.findall(sentence)]
            joined += [(pair, sentence) for pair in pairs & set(zip(tokens, tokens[1:]))]
    assert joined == []


def test_the_audit_sees_lists_tables_and_joins():
    wikitext = "Prose line one.\n* a list item\n: indent\n; term\n{|\n| cell\n|}\nSize {{convert|25|cm}} wide."
    assert [kind for kind, _ in line_kinds(wikitext)] == [
        "prose", "list", "indent", "definition", "table", "table", "table", "prose"]
    assert joined_across_templates(wikitext) == {("size", "wide")}
