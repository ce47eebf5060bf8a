"""An independent audit of the 103-page sample against its own page's wikitext: kept sentences come from prose lines,
not list, indent, definition or table lines (WikiExtractor's `compact()` rules, restated here rather than taken from the
cleaner), no sentence joins the words on either side of a template that renders words, and the passages and PR-page
paragraphs built from them read whole (issue 45's rules on quotations, glued sentences, cuts, notes and pointers)."""
import collections
import random
import re

import pytest

from pipeline.stages.clean import iter_clean_pages
from pipeline.dump.pages import classify_page
from pipeline.dump.reader import read_pages
from pipeline.stages.select import clean_passage
from picforge.sentence_split import split_sentences
from pipeline.stages.sentences import page_sentences
from release.build import page_without_broken, random_window
from release.inputs import Anchor

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
def audited_records(enwiki_sample_103):
    """(wikitext, clean page, sentence records) of each article of the real sample that keeps prose."""
    wikitexts = {fields["page_id"]: text for fields, text, redirect in read_pages(str(enwiki_sample_103))
                 if not classify_page(fields, text, redirect)}
    return [(wikitexts[page["page_id"]], page, list(page_sentences(page)))
            for page in iter_clean_pages(str(enwiki_sample_103))]


@pytest.fixture(scope="module")
def audited_pages(audited_records):
    """(wikitext, kept sentences) of each article of the real sample that keeps prose."""
    return [(wikitext, [s["text"] for s in sentences if not s["broken"]])
            for wikitext, _, sentences in audited_records]


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


# Issue 45's rules for what removed elements leave, restated here from the issue rather than taken from the cleaner.
# Two sentences (or a colon and what follows) with no space between: "in 2011.Albania", "Tarkovsky:"Tarkovsky".
GLUED = re.compile(r"[a-z\d%)\]][.!?][\"”’]?[A-Z][a-z]|[a-z\d)\]][:;][\"“]?[A-Z][a-z]")
# A note or a line announcing a listing, not prose.
NOTE_OR_LISTING = re.compile(r"^(?:sources?|notes?|key|legend)\s*:|\bthe following (?:list|table|listing)s?\b|"
                             r"\b(?:list|listing|table)s? (?:below|above|follows)\b", re.IGNORECASE)
# A sentence that ends on no sentence end (a formula, list or quotation went after it) or a paragraph that starts
# in lower case (it went before it).
NO_END = re.compile(r"[^.!?…\"'”’)\]][\"'”’)\]]*$")
LOWER_START = re.compile(r"^[\"“(]?[a-z]")
# A pointer to a table, chart, figure or diagram, which cleaning always removes.
POINTER = re.compile(r"\b(?:table|chart|diagram|graph|map|image|illustration|figure)s?\s+(?:below|above|at the "
                     r"(?:left|right))\b|\b(?:see|shown in) the (?:\w+ )?(?:table|chart|diagram|graph|illustration|"
                     r"figure)s?\b|\bthis (?:chart|table|diagram|graph)\b|\bis a (?:chart|table|diagram|graph) of\b",
                     re.IGNORECASE)
QUOTATION_BLOCK = re.compile(r"<blockquote[^>]*>(.*?)</blockquote>|<poem[^>]*>(.*?)</poem>|\{\{\s*(?:quote|cquote|"
                             r"quotation|quote box|rquote|pull quote|centered pull quote|blockquote|bquote)\s*\|",
                             re.DOTALL | re.IGNORECASE)
BOLD_LINE = re.compile(r"^'''([^'\n]+)'''\s*:?\s*$", re.MULTILINE)


def template_text(wikitext, start):
    """The template opening at `start`, to its own closing braces."""
    depth, i = 0, start
    while i < len(wikitext) - 1:
        pair = wikitext[i:i + 2]
        depth += {"{{": 1, "}}": -1}.get(pair, 0)
        i += 2 if pair in {"{{", "}}"} else 1
        if depth == 0:
            break
    return wikitext[start:i]


def quotation_grams(wikitext):
    """Word 5-grams of the page's block quotations ({{quote}} and its kin, <blockquote>, <poem>)."""
    grams = set()
    for block in QUOTATION_BLOCK.finditer(COMMENT.sub("", wikitext)):
        text = block.group(1) or block.group(2) or template_text(wikitext, block.start())
        grams |= five_grams(words(text))
    return grams


def reading_rows(sentences):
    """(text, first of its paragraph, inside a quotation before it, inside one after it and not its paragraph's last)
    of each (paragraph, text) of a page in order: “ opens a quotation, ” closes it, a straight quote closes an open one
    or opens one; a quotation never closed ends with its paragraph."""
    rows, inside = [], False
    for n, (paragraph, text) in enumerate(sentences):
        first = n == 0 or sentences[n - 1][0] != paragraph
        last = n == len(sentences) - 1 or sentences[n + 1][0] != paragraph
        before = inside and not first
        inside = before
        for mark in re.findall('["“”]', text):
            inside = mark == "“" or (mark == '"' and not inside)
        rows.append((text, first, before, inside and not last))
    return rows


def audit_passage(rows, quotation, headings):
    """{finding} of one passage, given as `reading_rows`, against the rules: glued, note-or-listing, pseudo-heading,
    unmarked-quotation, split-quotation (it starts or ends inside a quotation), cut, pointer."""
    found = {"split-quotation"} if rows[0][2] or rows[-1][3] else set()
    for text, first, _, _ in rows:
        own = five_grams(words(text))
        found |= {name for name, hit in (
            ("glued", GLUED.search(text)), ("note-or-listing", NOTE_OR_LISTING.search(text)),
            ("pseudo-heading", text.strip(" :.") in headings),
            ("unmarked-quotation", own and len(own & quotation) * 2 >= len(own) and not re.search('["“”]', text)),
            ("cut", NO_END.search(text) or (first and LOWER_START.match(text))),
            ("pointer", POINTER.search(text))) if hit}
    return found


def passages_of(page, sentences, rng):
    """(kind, `reading_rows`) of the passages the builders make of one page: select's 5-sentence window around every
    sentence that can hold a phrase, 11-sentence PR-pass/PSD windows around three sentences drawn with `rng`, and
    each paragraph of the PR-page context."""
    rows = reading_rows([(s["paragraph"], s["text"]) for s in sentences])
    broken = {s["idx"] for s in sentences if s["broken"]}
    whole = [s["idx"] for s in sentences if not s["broken"]]
    for idx in whole:
        reason, window = clean_passage(idx, len(sentences), broken)
        if not reason:
            yield "select", rows[window[0]:window[1]]
    text = "\n\n".join(page["paragraphs"])
    for idx in rng.sample(whole, min(3, len(whole))):
        anchor = Anchor(page["page_id"], text, tuple(s["text"] for s in sentences), idx, 0, 1, frozenset(broken))
        start, end = random_window(anchor, 11, rng)
        yield "PR-pass/PSD", rows[start:end]
    if whole:
        anchor = Anchor(page["page_id"], text, tuple(s["text"] for s in sentences), whole[0], 0, 1, frozenset(broken))
        for paragraph in page_without_broken(anchor)[0].split("\n\n"):
            yield "PR-page", reading_rows([(0, sentence) for sentence in split_sentences(paragraph)])


def test_passages_and_pr_page_paragraphs_read_whole(audited_records):
    """Issue 45 on the sample: no passage or PR-page paragraph holds glued sentences, a note or listing line, a
    pseudo-heading or an unmarked block quotation, or starts or ends inside a quotation; one in 400 at most holds a
    cut sentence or a pointer to a removed figure."""
    rng = random.Random(45)
    findings, counted = collections.defaultdict(list), collections.Counter()
    for wikitext, page, sentences in audited_records:
        quotation = quotation_grams(wikitext)
        headings = {m.group(1).strip() for m in BOLD_LINE.finditer(wikitext)}
        for kind, passage in passages_of(page, sentences, rng):
            counted[kind] += 1
            for finding in audit_passage(passage, quotation, headings):
                findings[finding].append((kind, page["page_id"], " ".join(row[0] for row in passage)[:200]))
    assert min(counted.values()) >= 100 and sum(counted.values()) >= 400, counted
    for rule in ("glued", "note-or-listing", "pseudo-heading", "unmarked-quotation", "split-quotation"):
        assert findings[rule] == [], rule
    cut_or_pointer = findings["cut"] + findings["pointer"]
    assert len(cut_or_pointer) * 400 <= sum(counted.values()), (counted, cut_or_pointer)


def test_the_passage_audit_sees_each_rule():
    quotation = quotation_grams("He wrote:\n{{quote|I believe his blindness was a blessing in disguise.}}")
    cases = {
        ("It grew in 2011.Albania and Croatia talk.",): {"glued"},
        ("Sources: Census.gov.",): {"note-or-listing"},
        ("Kukës Airport.",): {"pseudo-heading"},
        ("I believe his blindness was a blessing in disguise.",): {"unmarked-quotation"},
        ('He said "one.', 'Two."', "After."): set(),
        ('He said "one.',): {"split-quotation"},
        ("Two.”", "After."): {"split-quotation"},
        ("For a more concrete example suppose that",): {"cut"},
        ("The diagram at the left shows it.",): {"pointer"},
        ("A whole sentence.",): set(),
    }
    page = reading_rows([(0, "Before."), (0, 'He said "one.'), (0, "Two.”"), (0, "After.")])
    cut_from_page = {('He said "one.',): page[1:2], ("Two.”", "After."): page[2:]}
    for texts, expected in cases.items():
        passage = cut_from_page.get(texts) or reading_rows([(0, text) for text in texts])
        assert audit_passage(passage, quotation, {"Kukës Airport"}) == expected, texts
