"""Stage `clean`: wikitext → plain prose paragraphs and visible categories (mwparserfromhell)."""
import html
import logging
import re
from collections import Counter
from typing import NamedTuple

import apache_beam as beam
import mwparserfromhell
from apache_beam.metrics import Metrics
from mwparserfromhell.nodes import Argument, Comment, ExternalLink, Heading, HTMLEntity, Tag, Template, Text, Wikilink

from picforge.progress import Progress
from pipeline.inline_templates import SUPERSCRIPT_DIGITS, TEMPLATE_GAP, render, renders

STAGE = "clean"
log = logging.getLogger(__name__)
GAP = "\ue000"  # placeholder where markup that renders words (a formula) left a hole
MISSING = "\ue001"  # a gap inside a sentence: words went missing there
TEMPLATE_MISSING = "\ue003"  # a template gap inside a sentence: the template's words are lost there
LINE_MARK = "\ue004"  # starts a rendered line that is not prose; the next character names its kind
# Lines that are not prose, as PiC's WikiExtractor drops them (its `compact()`): list items (`*`, `#`), indented
# lines (`:`), definition lines (`;`) and table lines; tables, galleries and captions never reach a line.
LINE_KINDS = {"*": "list", "#": "list", ":": "indent", ";": "definition", "|": "table", "!": "table", "{": "table",
              "}": "table"}
MARKED_KINDS = {'"': "quotation", "^": "pseudo-heading"}  # lines the renderer marks itself (LINE_MARK and the key)
DROPPED_BLOCK = LINE_MARK + "}"  # where the renderer dropped a table or gallery (its lines counted already)
# Reasons counted per line (`clean/lines-dropped-<reason>`); the others per paragraph (`paragraphs-dropped-…`).
LINE_REASONS = {"list", "indent", "definition", "table", "gallery", "quotation", "pseudo-heading"}
# Block quotations are dropped, each as one line of its own (docs/mining.md says why): the words around one are
# never joined, and the sentence that led into it is flagged.
QUOTATION_TEMPLATES = {"quote", "cquote", "quotation", "quote box", "quote box2", "rquote", "pull quote",
                       "centered pull quote", "blockquote", "block quote", "bquote", "quote frame", "gquote",
                       "poem quote", "verse translation", "talkquote"}
QUOTATION_TAGS = {"blockquote", "poem"}
QUOTATION_BLOCK = "\n" + LINE_MARK + '"\n'
# A line that is bold text alone ('''Kukës Airport''') is a heading made by hand, not prose: marked before parsing.
# It starts on the quotes, so the search skips every other line start (5x faster than starting on `^`).
PSEUDO_HEADING = re.compile(r"'''(?<=^''')(''|)(?!')[^'\n]+(?<!')'''\1[ \t]*:?[ \t]*$", re.MULTILINE)
# Paragraphs that are a note or introduce a listing, not prose: "Sources: Census.gov", "Note: …", "The listing
# below follows …", "The following list is of …" (a paragraph of one sentence naming a list or table).
NOTE_LINE = re.compile(r"^(?:sources?|notes?|data|key|legend|credits?|n\.\s?b\.?)\s*:", re.IGNORECASE)
LISTING_LINE = re.compile(
    r"^(?:the|this|a|below|following)\b[^.!?]{0,40}?\b(?:lists?|listing|tables?|charts?|timeline)\b[^.!?]{0,25}?"
    r"\b(?:below|above|follows|following)\b|^(?:the|this)\s+following\s+(?:lists?|listing|tables?|charts?)\b|"
    r"^(?:below|following)\s+(?:is|are)\s+(?:a|an|the)\b", re.IGNORECASE)
COLON_END = re.compile(r":$")
QUOTATION_LEAD_IN = "quotation-lead-in"  # counted with the drops: sentences flagged for leading into a quotation
ONE_SENTENCE = re.compile(r"^[^.!?]*(?:[.!?:][\"”’)]*)?$")
# The last sentence before a block quotation led into it when it names the quoting ("Knox wrote.", "… read as
# follows.") or does not end as a sentence does ("Knox wrote:", "… said,").
LEAD_IN = re.compile(
    r"\b(?:wrote|writes|said|says|stated|states|declared|noted|commented|added|concluded|explained|explains|"
    r"predicted|argued|remarked|recalled|observed|radioed|read|reads|continued|replied|follows|following|"
    r"this\s+way|these\s+words|in\s+part)\W*$|[^.!?\"”’)\]]$", re.IGNORECASE)

DROPPED_TAGS = {
    "ref", "references", "table", "tr", "td", "th", "caption", "gallery", "imagemap",
    "timeline", "score", "syntaxhighlight", "source", "pre", "code", "graph", "mapframe", "maplink",
    "templatedata", "categorytree", "inputbox", "noinclude", "includeonly", "onlyinclude",
}
# Formula tags: plain-text formulas (`<math>A</math>`, `<chem>H2O</chem>`) are kept, others leave a gap.
FORMULA_TAGS = {"math", "chem", "ce", "hiero"}
SIMPLE_FORMULA = re.compile(r"[\w .,+\-=()/]+")
LINE_BREAK_TAGS = {"br", "p", "hr"}
LIST_TAGS = {"li", "dd", "dt"}  # `*`/`#`, `:` and `;` in wiki markup, or their HTML tags
LINE_COUNTED_TAGS = {"table": "table", "gallery": "gallery"}
# Section titles that are lists, not prose ("References", "Selected bibliography", "Notes and references", …):
# one or more reference-list words, optionally qualified and joined by "and"/"&"/",". Such a section covers its
# subsections ("Further reading › Biographies").
_LIST_WORD = (r"(?:(?:selected|secondary|primary|general|specific|further|other|additional|cited|external)\s+)*"
              r"(?:references?|notes?|footnotes?|citations?|sources?|bibliograph(?:y|ies)|further\s+reading|"
              r"external\s+links?|see\s+also|works\s+cited|literature|filmography|discography|gallery|awards|"
              r"works|publications|reading\s+list|links)")
NON_PROSE_SECTION = re.compile(rf"^{_LIST_WORD}(?:\s*(?:,|and|&)\s*{_LIST_WORD})*$", re.IGNORECASE)
# A paragraph shaped like a citation (outside the reference sections): identifiers and access/archive notes.
CITATION_LINE = re.compile(
    r"\b(?:ISBN|ISSN|OCLC|LCCN)\b[\s:-]*[\dX]|\bdoi\s*:\s*10\.|\bRetrieved(?:\s+on)?\s+(?:\d|[A-Z][a-z]+\s+\d)|"
    r"Archived from the original|\bArchived\s+\d{4}-\d\d-\d\d\b",
)
FILE_NAMESPACES = {"file", "image", "media"}
CATEGORY_NAMESPACE = "category"
# Hidden/maintenance categories (the dump cannot tell us which are __HIDDENCAT__; these patterns can).
MAINTENANCE_CATEGORY = re.compile(
    r"^(all |)(articles|pages|wikipedia|cs1|webarchive|use |template|redirects|short description|"
    r"good articles|featured articles|accuracy disputes|coordinates|commons category|official website)"
    r"|stub(s)?$|(wikidata|maintenance|tracking)",
    re.IGNORECASE,
)
# Inline templates that are invisible in the rendered page (citations, maintenance tags, anchors).
INVISIBLE_TEMPLATE = re.compile(
    r"^(cite|citation|sfn|efn|refn|harv|r$|rp$|ref|note|citation needed|cn$|fact$|clarify|dubious|verify|when$|"
    r"who$|which$|by whom|better source|failed verification|anchor|dead link|update|vague|according to whom|"
    r"page needed|full citation|original research|or$|lead|nbsp|zwsp|•|dot|·|pad|clear|-$|toc)",
    re.IGNORECASE,
)
# MediaWiki's behaviour switches (__TOC__, __NOTOC__, …): page settings, never prose.
BEHAVIOUR_SWITCH = re.compile(
    r"__(?:NOTOC|FORCETOC|TOC|NOEDITSECTION|NEWSECTIONLINK|NONEWSECTIONLINK|NOGALLERY|HIDDENCAT|"
    r"EXPECTUNUSEDCATEGORY|NOCONTENTCONVERT|NOCC|NOTITLECONVERT|NOTC|INDEX|NOINDEX|STATICREDIRECT|DISAMBIG|"
    r"EXPECTED_UNCONNECTED_PAGE|NOGLOBAL|ARCHIVEDTALK|START|END)__",
    re.IGNORECASE,
)
RESIDUE = re.compile(
    r"\[\[|\]\]|\{\{|\}\}|\{\||\|\}|&[a-zA-Z]{2,8};|&#x?[0-9a-f]+;|<\s*/?\s*[a-zA-Z!][^>]*>|^\s*category:|''|"
    + BEHAVIOUR_SWITCH.pattern,
    re.IGNORECASE | re.MULTILINE,
)
SPACES = re.compile(r"[ \t\u00a0\u2009\u202f]+")
# Footnotes the renderer drops: <ref …/>, and <ref …>…</ref> holding no other ref. `strip_refs` removes a run of
# them before parsing (about 30% of the cleaner's CPU on the 103-page sample) where the text around them cannot
# join into new markup: a word or closing punctuation before, on the same line; a space, punctuation or the end after.
_ONE_REF = r"<ref(?:\s[^<>]*?)?/>|<ref(?:\s[^<>]*)?(?<!/)>[^<]*(?:<(?!/?ref[\s>/])[^<]*)*</ref\s*>"
ANY_REF = re.compile(r"<ref[^>]*/>|<ref.*?</ref\s*>", re.IGNORECASE | re.DOTALL)
REF_RUN = re.compile(rf"(?<=[\w.,;:!?)\]}}>'\"%”’» \t])(?:{_ONE_REF})+(?=[\s.,;:!?)(\"”’]|\Z)", re.IGNORECASE)
# Where a <ref> is text to the parser, so it stays: comments and the tags whose content mwparserfromhell leaves
# unparsed (its PARSER_BLACKLIST); an unclosed one runs to the end of the page.
UNPARSED_REGION = re.compile(
    r"<!--.*?(?:-->|\Z)|<(categorytree|ce|chem|gallery|graph|hiero|imagemap|inputbox|math|nowiki|pre|score|section|"
    r"source|syntaxhighlight|templatedata|timeline)\b.*?(?:</\1\s*>|\Z)",
    re.IGNORECASE | re.DOTALL,
)
# Bold/italic quote runs, left to the renderer rather than parsed into tags: an unbalanced run makes
# mwparserfromhell misread the structure around it (a table that swallows the prose after it).
STYLE_QUOTES = re.compile(r"'{2,}")


def _style_quotes(run):
    """What a run of apostrophes leaves as text, as MediaWiki renders it: '' italic, ''' bold, ''''' both (nothing);
    four keep one apostrophe, more than five keep the extra ones."""
    n = len(run.group())
    return "'" if n == 4 else "'" * (n - 5) if n > 5 else ""


def _template_name(template):
    return str(template.name).strip().replace("_", " ").lower()


def _link_namespace(title):
    """The namespace prefix of a link title (lower-case), '' for an ordinary article link."""
    title = title.strip()
    if ":" not in title or title.startswith(":"):
        return ""
    prefix = title.split(":", 1)[0].strip().lower()
    return prefix


class _Renderer:
    """Walks parsed wikicode and renders visible prose, collecting categories."""

    def __init__(self):
        self.categories = []
        self.dropped_lines = Counter()  # {reason: lines} of tables and galleries the renderer drops whole

    def render(self, wikicode):
        out = []
        for node in wikicode.nodes:
            is_marker = isinstance(node, Tag) and node.wiki_markup and str(node.tag).lower() in LIST_TAGS
            out.append(self.list_marker(node, out) if is_marker else self.node(node))
        return "".join(out)

    @staticmethod
    def list_marker(tag, rendered):
        """A `*`, `#`, `:` or `;` marker: at the start of a line it marks the line as not prose (LINE_MARK and the
        marker); a nested marker (`**`, `#:`) or the `:` of `; term : definition` adds nothing."""
        before = next((piece for piece in reversed(rendered) if piece), "")
        if before and not before.endswith("\n"):
            return ""
        return LINE_MARK + str(tag.wiki_markup)[0]

    def node(self, node):
        if isinstance(node, Text):
            return STYLE_QUOTES.sub(_style_quotes, node.value)
        if isinstance(node, HTMLEntity):
            return node.normalize()
        if isinstance(node, Wikilink):
            return self.wikilink(node)
        if isinstance(node, Template):
            return self.template(node)
        if isinstance(node, Tag):
            return self.tag(node)
        if isinstance(node, Heading):
            return f"\n\n{GAP}HEADING {node.level} " + self.render(node.title).strip() + "\n\n"
        if isinstance(node, ExternalLink):
            return self.render(node.title) if node.title else ""
        if isinstance(node, (Comment, Argument)):
            return ""
        return ""

    def wikilink(self, link):
        title = str(link.title)
        namespace = _link_namespace(title)
        if namespace == CATEGORY_NAMESPACE:
            name = title.split(":", 1)[1].split("|", 1)[0].strip().replace("_", " ")
            if name and name not in self.categories:
                self.categories.append(name)
            return ""
        if namespace in FILE_NAMESPACES or (namespace and len(namespace) <= 3) or namespace in {"wikt", "wiktionary", "s", "commons"}:
            return ""  # files, interlanguage and interwiki links are not prose
        if link.text is not None:
            return self.render(link.text)
        return title.lstrip(":").split("#", 1)[0] or title.lstrip(":")

    def template(self, template):
        name = _template_name(template)
        if name in QUOTATION_TEMPLATES:
            return QUOTATION_BLOCK
        if not renders(name):  # invisible ones render nothing, others leave a gap (words lost inside a sentence)
            return "" if INVISIBLE_TEMPLATE.match(name) else TEMPLATE_GAP
        params = [self.render(p.value).strip() for p in template.params if not p.showkey]
        named = {str(p.name).strip().lower(): self.render(p.value).strip() for p in template.params if p.showkey}
        return render(name, params, named)

    def tag(self, tag):
        name = str(tag.tag).strip().lower()
        if name in LINE_COUNTED_TAGS:
            lines = ANY_REF.sub("", str(tag)).split("\n")  # its own lines, not those of a footnote in it
            self.dropped_lines[LINE_COUNTED_TAGS[name]] += sum(1 for line in lines if line.strip())
        if name in LINE_COUNTED_TAGS:
            return DROPPED_BLOCK + "\n"  # a line of its own (tables start a line): it ends the paragraph
        if name in DROPPED_TAGS:
            return ""
        if name in QUOTATION_TAGS:
            return QUOTATION_BLOCK
        if name in LIST_TAGS:  # an HTML list item, <dd> or <dt>: a line that is not prose
            return "\n" + LINE_MARK + {"li": "*", "dd": ":", "dt": ";"}[name] + self.render(tag.contents) + "\n"
        contents = self.render(tag.contents) if tag.contents else ""
        if name in FORMULA_TAGS:
            return contents if SIMPLE_FORMULA.fullmatch(contents.strip()) else GAP
        if name == "sup":  # exponents and ordinals are words; footnote letters are not
            if re.fullmatch(r"[\d+\-−]+", contents):
                return contents.translate(SUPERSCRIPT_DIGITS)
            return contents if contents in {"st", "nd", "rd", "th"} else ""
        if name in LINE_BREAK_TAGS:
            return "\n" + contents + "\n"
        return contents


# A sentence end or colon with a word straight after it ("in 2011.Albania", "Tarkovsky:"Tarkovsky"): where a removed
# link, file, footnote or template sat between them, or the article's own typo. A space goes between.
# It starts on the punctuation and looks back only there (5x faster than starting on a lookbehind).
GLUED = re.compile(r"[.!?:;](?<=[a-z\d%)\]][.!?]|[a-z\d)\]][:;])(?:(?<=[.!?])[\"”’])?(?=[\"“]?[A-Z][a-z])")


def tidy(text):
    """Normalise spacing and the punctuation debris that removed markup leaves behind."""
    text = html.unescape(text)
    text = SPACES.sub(" ", text)
    text = re.sub(r"\(\s*[,;:]?\s*\)|\[\s*\]", "", text)  # emptied brackets
    text = re.sub(r"\(\s*[,;:]\s*", "(", text)
    text = re.sub(r"\s*[,;:]\s*\)", ")", text)
    text = re.sub(r"\s+([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r"([(\[])\s+", r"\1", text)
    text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text)
    text = re.sub(r"\.(?:\s+\.)+", ".", text)  # ". ." left by removed markup
    text = re.sub(r"(?<!\.)\.\.(?!\.)", ".", text)  # ".." too; a real ellipsis "..." stays as written
    text = re.sub(r",\.", ".", text)
    text = GLUED.sub(r"\g<0> ", text)
    text = SPACES.sub(" ", text)
    return text.strip()


GAPS = re.compile(f"([{GAP}{TEMPLATE_GAP}])")
NOT_WORDS = re.compile(f"[{GAP}{TEMPLATE_GAP}{LINE_MARK}*#;:]")  # what a line holding no words is made of
MISSING_MARK = {GAP: MISSING, TEMPLATE_GAP: TEMPLATE_MISSING}
MISSING_MARKS = f"[{MISSING}{TEMPLATE_MISSING}]"


def mark_missing_words(line):
    """The line with each gap that sits inside a sentence (a word before it, no sentence end between) turned
    into its missing-words mark (MISSING, or TEMPLATE_MISSING for a template's) and every other gap removed."""
    out = []
    for piece_no, piece in enumerate(GAPS.split(line)):
        if piece_no % 2:
            before = re.sub(MISSING_MARKS, "", "".join(out))
            out.append(MISSING_MARK[piece] if re.search(r"\w[^.!?]*$", before) else "")
        else:
            out.append(piece)
    return "".join(out)


def take_missing_words(paragraph):
    """(paragraph without missing-words marks, char offsets where words went missing, offsets where a template's
    words were lost); a bracket that held only the missing words goes with them, as the page would read without it."""
    paragraph = re.sub(rf"\s*\(\s*{MISSING_MARKS}\s*\)", "", paragraph)
    paragraph = re.sub(rf"\(\s*{MISSING_MARKS}\s*[,;:]\s*", "(", paragraph)
    paragraph = re.sub(rf"\s*[,;:]\s*{MISSING_MARKS}\s*\)", ")", paragraph)
    text, offsets = [], {MISSING: [], TEMPLATE_MISSING: []}
    pieces = re.split(f"({MISSING_MARKS})", paragraph)
    for piece_no, piece in enumerate(pieces):
        if piece_no % 2:
            offsets[piece].append(piece_no)  # placeholder, fixed below once the neighbours are joined
            continue
        if piece_no:
            if text and text[-1].endswith(" ") and (not piece or piece[0] in " ,.;:!?)"):
                text[-1] = text[-1][:-1]
            elif text and text[-1].endswith(("(", "[")):
                piece = piece.lstrip()
            mark = pieces[piece_no - 1]
            offsets[mark][-1] = sum(map(len, text))
        text.append(piece)
    return "".join(text).rstrip(), offsets[MISSING], offsets[TEMPLATE_MISSING]


class CleanText(NamedTuple):
    """A page's prose paragraphs, visible categories, [paragraph, offset] of each place where words went missing
    (an unrenderable formula) and of each where a template's words were lost, and {reason: lines or paragraphs
    dropped} (`LINE_REASONS` by line; markup-residue, citation, list-section)."""

    paragraphs: list
    categories: list
    missing_words: list
    template_words_lost: list
    dropped: dict


SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*$")


def dropped_counter(reason):
    """The `clean` counter name of a drop reason: `lines-dropped-…` for a line kind, `broken-quotation-lead-in` for
    the sentences that led into a dropped quotation, else `paragraphs-dropped-…`."""
    if reason == QUOTATION_LEAD_IN:
        return "broken-" + reason
    return f"{'lines' if reason in LINE_REASONS else 'paragraphs'}-dropped-{reason}"


def line_kind(line):
    """The kind of a rendered, stripped line that is not prose ('list', 'indent', 'definition', 'table', or
    'quotation' and 'pseudo-heading' as the renderer marked them), '' for a prose line: WikiExtractor's rule on the
    line's first character (a horizontal rule counts as table debris)."""
    if line[0] == LINE_MARK:
        return LINE_KINDS.get(line[1]) or MARKED_KINDS.get(line[1], "")
    return LINE_KINDS.get(line[0], "table" if line.startswith("----") else "")


def is_list_section(title):
    """True for a section title naming a reference list, not prose ("References and further reading")."""
    return bool(NON_PROSE_SECTION.match(" ".join(title.split())))


def strip_refs(wikitext):
    """`wikitext` without the footnotes `REF_RUN` finds outside `UNPARSED_REGION`s: the same prose once rendered."""
    pieces, done = [], 0
    for region in UNPARSED_REGION.finditer(wikitext):
        pieces += [REF_RUN.sub("", wikitext[done:region.start()]), region.group()]
        done = region.end()
    pieces.append(REF_RUN.sub("", wikitext[done:]))
    return "".join(pieces)


def clean_wikitext(wikitext):
    """Render wikitext to prose paragraphs with no markup residue (paragraphs that keep any are dropped)."""
    renderer = _Renderer()
    marked = PSEUDO_HEADING.sub(lambda bold: LINE_MARK + "^" + bold.group(), strip_refs(wikitext))
    parsed = mwparserfromhell.parse(marked, skip_style_tags=True)
    rendered = BEHAVIOUR_SWITCH.sub("", renderer.render(parsed)).replace(DROPPED_BLOCK, "\n" + DROPPED_BLOCK)
    rendered = rendered.replace("\n\n" + DROPPED_BLOCK, "\n" + DROPPED_BLOCK)  # a block starts its own line
    paragraphs, current, missing_words, template_words_lost = [], [], [], []
    list_section_level = None  # level of the reference-list section we are inside, None in prose
    dropped = Counter(renderer.dropped_lines)

    intro = [None]  # the paragraph just kept, while no prose line has followed it: it may introduce what comes next

    def intro_lost(lead_in=COLON_END):
        """The paragraph just kept introduced what was dropped after it ("Symbolically:", "Knox wrote:"), as
        `lead_in` tells from its end: its last sentence is flagged (missing words)."""
        end = [intro[0], len(paragraphs[intro[0]])] if intro[0] is not None else None
        if end and lead_in.search(paragraphs[intro[0]]) and end not in missing_words[-1:]:
            missing_words.append(end)
            if lead_in is LEAD_IN:
                dropped[QUOTATION_LEAD_IN] += 1
        intro[0] = None

    def flush():
        if current:
            paragraph, offsets, template_offsets = take_missing_words(tidy(" ".join(current)))
            intro[0] = None
            reason = not_prose_reason(paragraph)
            if reason:
                dropped[reason] += 1
            elif re.search(r"[A-Za-z]", paragraph):
                missing_words.extend([len(paragraphs), offset] for offset in offsets)
                template_words_lost.extend([len(paragraphs), offset] for offset in template_offsets)
                intro[0] = len(paragraphs)
                paragraphs.append(paragraph)
            current.clear()

    for raw_line in rendered.split("\n"):
        if raw_line.startswith(GAP + "HEADING "):
            flush()
            level, title = raw_line[len(GAP + "HEADING "):].split(" ", 1)
            if list_section_level is None or int(level) <= list_section_level:
                list_section_level = int(level) if is_list_section(title) else None
            continue
        line = raw_line.strip()
        words = NOT_WORDS.sub("", line)
        if not words.strip():
            flush()  # a blank line (or an empty list item) ends the paragraph
            if line:  # a block that renders no words (a display formula): a paragraph leading to it lost them
                intro_lost()
            continue
        if list_section_level is not None:
            dropped["list-section"] += line != DROPPED_BLOCK  # a table there was counted as table lines
            continue
        kind = line_kind(line)
        if kind:  # list, indent, definition, table and quotation lines are not prose (WikiExtractor drops the first)
            lead_in = LEAD_IN if kind == "quotation" else COLON_END
            intro_lost(lead_in)
            if current and (not SENTENCE_END.search(current[-1]) or lead_in.search(current[-1])):
                if not current[-1].endswith(MISSING):  # "… societies:" introduced the dropped lines: words lost
                    current[-1] += MISSING
                    if lead_in is LEAD_IN:
                        dropped[QUOTATION_LEAD_IN] += 1
            else:
                flush()
            dropped[kind] += line != DROPPED_BLOCK
            continue
        if current and current[-1].endswith(MISSING) and not line[0].islower():
            flush()  # after a dropped list, a new sentence starts a new paragraph; "had been …" goes on the last
        intro[0] = None
        current.append(mark_missing_words(line))
    flush()
    categories = [c for c in renderer.categories if not MAINTENANCE_CATEGORY.search(c)]
    return CleanText(paragraphs, categories, missing_words, template_words_lost, dict(dropped))


def not_prose_reason(paragraph):
    """Why a rendered paragraph is not kept as prose ('' to keep it): markup residue, a citation, a note
    ("Sources: …") or a one-sentence listing line ("The following list is of …")."""
    if RESIDUE.search(paragraph):
        return "markup-residue"
    if CITATION_LINE.search(paragraph):
        return "citation"
    if NOTE_LINE.match(paragraph):
        return "note"
    if LISTING_LINE.match(paragraph) and ONE_SENTENCE.match(paragraph):
        return "listing"
    return ""


def has_residue(text):
    """True if text still holds wiki/HTML markup (used by tests and the build's final check)."""
    return bool(RESIDUE.search(text))


class CleanPages(beam.PTransform):
    """Article records with wikitext → Page records (clean paragraphs, visible categories)."""

    def expand(self, articles):
        return articles | "clean wikitext" >> beam.FlatMap(_clean_article, Progress(STAGE, "pages cleaned"))


def _clean_article(article, progress):
    progress.tick()
    try:
        paragraphs, categories, missing_words, template_words_lost, dropped = clean_wikitext(article["wikitext"])
    except Exception as err:  # a parser failure on one page must not stop the run
        Metrics.counter(STAGE, "skipped-parse-error").inc()
        log.warning("page %s (%r): wikitext parse failed: %s", article["page_id"], article["title"], err)
        return
    if not paragraphs:
        Metrics.counter(STAGE, "skipped-no-prose").inc()
        return
    Metrics.counter(STAGE, "pages").inc()
    for reason, count in dropped.items():
        Metrics.counter(STAGE, dropped_counter(reason)).inc(count)
    if missing_words:
        Metrics.counter(STAGE, "pages-with-missing-words").inc()
        Metrics.counter(STAGE, "missing-words").inc(len(missing_words))
    if template_words_lost:
        Metrics.counter(STAGE, "template-words-lost").inc(len(template_words_lost))
    yield {
        "page_id": article["page_id"],
        "title": article["title"],
        "url": article["url"],
        "text": "\n\n".join(paragraphs),
        "categories": categories,
        "paragraphs": paragraphs,
        "missing_words": missing_words,
        "template_words_lost": template_words_lost,
    }


def iter_clean_pages(path, max_pages=None):
    """{page_id, paragraphs, missing_words, template_words_lost} of one dump file's kept articles with prose, streamed without Beam
    (for benches and checks); at most `max_pages` of them."""
    from pipeline.dump.pages import classify_page
    from pipeline.dump.reader import read_pages

    kept = 0
    for fields, wikitext, is_redirect in read_pages(path):
        if max_pages and kept >= max_pages:
            return
        if classify_page(fields, wikitext, is_redirect):
            continue
        cleaned = clean_wikitext(wikitext)
        if cleaned.paragraphs:
            kept += 1
            yield {"page_id": fields["page_id"], "paragraphs": cleaned.paragraphs,
                   "missing_words": cleaned.missing_words, "template_words_lost": cleaned.template_words_lost}
