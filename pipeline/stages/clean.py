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

STAGE = "clean"
log = logging.getLogger(__name__)
GAP = "\ue000"  # placeholder where an unrenderable inline template left a hole
MISSING = "\ue001"  # a gap inside a sentence: words went missing there

DROPPED_TAGS = {
    "ref", "references", "table", "tr", "td", "th", "caption", "gallery", "imagemap",
    "timeline", "score", "syntaxhighlight", "source", "pre", "code", "graph", "mapframe", "maplink",
    "templatedata", "categorytree", "inputbox", "poem", "noinclude", "includeonly", "onlyinclude",
}
# Formula tags: plain-text formulas (`<math>A</math>`, `<chem>H2O</chem>`) are kept, others leave a gap.
FORMULA_TAGS = {"math", "chem", "ce", "hiero"}
SIMPLE_FORMULA = re.compile(r"[\w .,+\-=()/]+")
LINE_BREAK_TAGS = {"br", "p", "li", "dd", "dt", "hr"}
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
# Inline templates that render visible words: name → function(positional params, named params) -> text.
# The list follows what the article prose of the 103-page enwiki sample uses (bench/inline_templates.py counts it).
SUPERSCRIPT_DIGITS = str.maketrans("0123456789+-−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻")
IPA_LABELS = {"lang", "pron", "local", "us", "uk", "also", "uk also", "us also", "ipa"}


def _first(params, _named):
    return params[0] if params else ""


def _last(params, _named):
    return params[-1] if params else ""


def _joined(params, _named):
    return "".join(params)


def _ipa_en(params, _named):
    """{{IPAc-en|…}}: the phonemes between slashes ('_' is a space), without its US/UK/lang labels."""
    phonemes = [p for p in params if p.lower() not in IPA_LABELS]
    return "/" + "".join(phonemes).replace("_", " ") + "/" if phonemes else ""


def _ipa(params, _named):
    """{{IPA-xx|…}} and {{IPA|…}}: the transcription between brackets (unless it brings its own)."""
    if not params or not params[0]:
        return ""
    return params[0] if params[0].startswith(("[", "/")) else "[" + params[0] + "]"


def _exponent(value):
    return "×10" + value.translate(SUPERSCRIPT_DIGITS)


def _val(params, named):
    """{{val|number|uncertainty|e=exponent|u=unit}}."""
    if not params:
        return ""
    text = params[0]
    if len(params) > 1:
        text += params[1] if params[1].startswith("(") else "±" + params[1]
    if named.get("e"):
        text += _exponent(named["e"])
    unit = named.get("u") or named.get("ul") or ""
    return text + (" " + unit if unit else "")


def _nihongo(params, _named):
    """{{nihongo|English|kanji|romaji|extra}} → English (kanji, romaji, extra)."""
    english, rest = (params[0] if params else ""), [p for p in params[1:4] if p]
    if not english:
        return rest[-1] + " (" + ", ".join(rest[:-1]) + ")" if len(rest) > 1 else "".join(rest)
    return english + (" (" + ", ".join(rest) + ")" if rest else "")


def _coord(params, _named):
    """{{coord|d|m|s|N|d|m|s|W}} (or decimal degrees) → 13°19′N 169°9′W."""
    marks, out, part = ("°", "′", "″"), [], []
    for value in params:
        if value.upper() in {"N", "S", "E", "W"}:
            out.append("".join(v + m for v, m in zip(part, marks)) + value.upper())
            part = []
        elif re.fullmatch(r"-?[\d.]+", value):
            part.append(value)
    if part:
        out.append("°, ".join(part) + "°")
    return " ".join(out)


def _gauge(params, _named):
    """{{RailGauge|1435mm}} → 1435 mm."""
    return re.sub(r"^([\d.,]+)\s*([a-z]+)$", r"\1 \2", params[0]) if params else ""


RENDERED_TEMPLATES = {
    "nowrap": _first, "nobr": _first, "small": _first, "smaller": _first, "big": _first, "em": _first,
    "abbr": _first, "visible anchor": _first, "vanchor": _first, "ill": _first, "interlanguage link": _first,
    "lang": _last, "transl": _last, "nq": _first, "linktext": _joined, "ipa": _ipa, "ipac-en": _ipa_en,
    "ipaslink": _ipa, "respell": lambda p, _: "-".join(p), "convert": lambda p, _: " ".join(p[:2]),
    "cvt": lambda p, _: " ".join(p[:2]), "nbsp": lambda p, _: " ", "thinsp": lambda p, _: " ",
    "spaces": lambda p, _: " ", "snd": lambda p, _: " – ", "ndash": lambda p, _: "–",
    "mdash": lambda p, _: "—", "spaced ndash": lambda p, _: " – ", "'": lambda p, _: "'",
    "'s": lambda p, _: "'s", "!": lambda p, _: "|", "eqm": lambda p, _: "⇌",
    "sortname": lambda p, _: " ".join(p[:2]), "as of": lambda p, _: "As of " + " ".join(p[:1]),
    "frac": lambda p, _: "/".join(p[:2]), "sfrac": lambda p, _: "/".join(p[:2]),
    "math": _first, "mvar": _first, "var": _first, "not a typo": _first, "sic": _first, "quote": _first,
    "chem": _joined, "chem2": _joined, "chemical formula": _joined, "sub": _first, "sup": _first,
    "carbon": lambda p, _: "C", "hydrogen": lambda p, _: "H", "oxygen": lambda p, _: "O",
    "nitrogen": lambda p, _: "N", "val": _val, "e": lambda p, _: _exponent(p[0]) if p else "",
    "nihongo": _nihongo, "coord": _coord, "railgauge": _gauge, "us patent": lambda p, _: "U.S. Patent " + _first(p, _),
    "angbr": lambda p, _: "⟨" + _first(p, _) + "⟩", "circa": lambda p, _: "c. " + _first(p, _),
    "c.": lambda p, _: "c. " + _first(p, _), "us$": lambda p, _: "US$" + _first(p, _),
    "usd": lambda p, _: "US$" + _first(p, _), "gbp": lambda p, _: "£" + _first(p, _),
    "£": lambda p, _: "£" + _first(p, _), "€": lambda p, _: "€" + _first(p, _),
    "inr": lambda p, _: "₹" + _first(p, _),
}
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

    def render(self, wikicode):
        return "".join(self.node(n) for n in wikicode.nodes)

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
        params = [self.render(p.value).strip() for p in template.params if not p.showkey]
        named = {str(p.name).strip().lower(): self.render(p.value).strip() for p in template.params if p.showkey}
        if name in RENDERED_TEMPLATES:
            return RENDERED_TEMPLATES[name](params, named)
        if name.startswith(("lang-", "lang ")):
            return params[-1] if params else ""
        if name.startswith("ipa-"):
            return _ipa(params, named)
        if INVISIBLE_TEMPLATE.match(name):
            return ""
        return GAP  # unknown template: a gap if it sat inside a sentence, nothing if it stood alone

    def tag(self, tag):
        name = str(tag.tag).strip().lower()
        if name in DROPPED_TAGS:
            return ""
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
    text = SPACES.sub(" ", text)
    return text.strip()


def mark_missing_words(line):
    """The line with each gap that sits inside a sentence (a word before it, no sentence end between) turned
    into a MISSING mark and every other gap removed."""
    out = []
    for piece_no, piece in enumerate(line.split(GAP)):
        if piece_no:
            before = "".join(out).replace(MISSING, "")
            out.append(MISSING if re.search(r"\w[^.!?]*$", before) else "")
        out.append(piece)
    return "".join(out)


def take_missing_words(paragraph):
    """(paragraph without MISSING marks, char offsets where words went missing); a bracket that held only the
    missing words goes with them, as the rendered page would read without it."""
    paragraph = re.sub(rf"\s*\(\s*{MISSING}\s*\)", "", paragraph)
    paragraph = re.sub(rf"\(\s*{MISSING}\s*[,;:]\s*", "(", paragraph)
    paragraph = re.sub(rf"\s*[,;:]\s*{MISSING}\s*\)", ")", paragraph)
    text, offsets = [], []
    for piece_no, piece in enumerate(paragraph.split(MISSING)):
        if piece_no:
            if text and text[-1].endswith(" ") and (not piece or piece[0] in " ,.;:!?)"):
                text[-1] = text[-1][:-1]
            elif text and text[-1].endswith(("(", "[")):
                piece = piece.lstrip()
            offsets.append(sum(map(len, text)))
        text.append(piece)
    return "".join(text).rstrip(), offsets


class CleanText(NamedTuple):
    """A page's prose paragraphs, visible categories, [paragraph, offset] of each place where an unrenderable
    inline template removed words, and {reason: lines or paragraphs dropped} (markup-residue, citation,
    list-section)."""

    paragraphs: list
    categories: list
    missing_words: list
    dropped: dict


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
    parsed = mwparserfromhell.parse(strip_refs(wikitext), skip_style_tags=True)
    rendered = BEHAVIOUR_SWITCH.sub("", renderer.render(parsed))
    paragraphs, current, missing_words = [], [], []
    list_section_level = None  # level of the reference-list section we are inside, None in prose
    dropped = Counter()

    def flush():
        if current:
            paragraph, offsets = take_missing_words(tidy(" ".join(current)))
            if RESIDUE.search(paragraph):
                dropped["markup-residue"] += 1
            elif CITATION_LINE.search(paragraph):
                dropped["citation"] += 1
            elif re.search(r"[A-Za-z]", paragraph):
                missing_words.extend([len(paragraphs), offset] for offset in offsets)
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
        if not line.replace(GAP, "").strip():
            flush()
            continue
        if list_section_level is not None:
            if line.replace(GAP, "").strip(" *#;:"):
                dropped["list-section"] += 1
            continue
        if line[0] in "*#;:|!{" or line.startswith("----"):
            flush()  # list items, indented blocks and table debris are their own paragraphs (or dropped)
            line = line.lstrip("*#;: ")
            if line.startswith(("|", "!", "{")) or not line:
                continue
            current.append(mark_missing_words(line))
            flush()
            continue
        current.append(mark_missing_words(line))
    flush()
    categories = [c for c in renderer.categories if not MAINTENANCE_CATEGORY.search(c)]
    return CleanText(paragraphs, categories, missing_words, dict(dropped))


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
        paragraphs, categories, missing_words, dropped = clean_wikitext(article["wikitext"])
    except Exception as err:  # a parser failure on one page must not stop the run
        Metrics.counter(STAGE, "skipped-parse-error").inc()
        log.warning("page %s (%r): wikitext parse failed: %s", article["page_id"], article["title"], err)
        return
    if not paragraphs:
        Metrics.counter(STAGE, "skipped-no-prose").inc()
        return
    Metrics.counter(STAGE, "pages").inc()
    for reason, count in dropped.items():
        Metrics.counter(STAGE, f"paragraphs-dropped-{reason}").inc(count)
    if missing_words:
        Metrics.counter(STAGE, "pages-with-missing-words").inc()
        Metrics.counter(STAGE, "missing-words").inc(len(missing_words))
    yield {
        "page_id": article["page_id"],
        "title": article["title"],
        "url": article["url"],
        "text": "\n\n".join(paragraphs),
        "categories": categories,
        "paragraphs": paragraphs,
        "missing_words": missing_words,
    }


def iter_clean_pages(path, max_pages=None):
    """{page_id, paragraphs, missing_words} of one dump file's kept articles with prose, streamed without Beam
    (for benches and checks); at most `max_pages` of them."""
    from pipeline.stages.read_dump import classify_page, read_pages

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
                   "missing_words": cleaned.missing_words}
