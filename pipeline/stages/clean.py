"""Stage `clean`: wikitext → plain prose paragraphs and visible categories (mwparserfromhell)."""
import html
import logging
import re
from typing import NamedTuple

import apache_beam as beam
import mwparserfromhell
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from mwparserfromhell.nodes import Argument, Comment, ExternalLink, Heading, HTMLEntity, Tag, Template, Text, Wikilink

STAGE = "clean"
log = logging.getLogger(__name__)
GAP = "\ue000"  # placeholder where an unrenderable inline template left a hole in a sentence

DROPPED_TAGS = {
    "ref", "references", "table", "tr", "td", "th", "caption", "gallery", "math", "chem", "ce", "imagemap",
    "timeline", "score", "syntaxhighlight", "source", "pre", "code", "graph", "mapframe", "maplink",
    "templatedata", "categorytree", "inputbox", "hiero", "poem", "noinclude", "includeonly", "onlyinclude", "sup",
}
LINE_BREAK_TAGS = {"br", "p", "li", "dd", "dt", "hr"}
NON_PROSE_SECTIONS = {
    "references", "external links", "see also", "further reading", "notes", "bibliography", "sources",
    "citations", "footnotes", "notes and references", "references and notes", "works cited", "literature",
    "filmography", "discography", "gallery", "awards", "works", "publications",
}
FILE_NAMESPACES = {"file", "image", "media"}
CATEGORY_NAMESPACE = "category"
# Hidden/maintenance categories (the dump cannot tell us which are __HIDDENCAT__; these patterns can).
MAINTENANCE_CATEGORY = re.compile(
    r"^(all |)(articles|pages|wikipedia|cs1|webarchive|use |template|redirects|short description|"
    r"good articles|featured articles|accuracy disputes|coordinates|commons category|official website)"
    r"|stub(s)?$|(wikidata|maintenance|tracking)",
    re.IGNORECASE,
)
# Inline templates that render visible words: name → function(params) -> text.
_first = lambda params: params[0] if params else ""  # noqa: E731
RENDERED_TEMPLATES = {
    "nowrap": _first, "nobr": _first, "small": _first, "smaller": _first, "big": _first, "em": _first,
    "abbr": _first, "visible anchor": _first, "ill": _first, "interlanguage link": _first, "lang": lambda p: p[-1] if p else "",
    "transl": lambda p: p[-1] if p else "", "ipa": lambda p: "", "convert": lambda p: " ".join(p[:2]),
    "cvt": lambda p: " ".join(p[:2]), "nbsp": lambda p: " ", "snd": lambda p: " – ", "ndash": lambda p: "–",
    "mdash": lambda p: "—", "spaced ndash": lambda p: " – ", "'": lambda p: "'", "!": lambda p: "|",
    "sortname": lambda p: " ".join(p[:2]), "as of": lambda p: "As of " + " ".join(p[:1]), "frac": lambda p: "/".join(p[:2]),
    "math": _first, "mvar": _first, "var": _first, "not a typo": _first, "sic": _first, "quote": _first,
    "angbr": lambda p: "⟨" + _first(p) + "⟩", "circa": lambda p: "c. " + _first(p), "c.": lambda p: "c. " + _first(p),
    "us$": lambda p: "US$" + _first(p), "usd": lambda p: "US$" + _first(p), "gbp": lambda p: "£" + _first(p),
    "£": lambda p: "£" + _first(p), "€": lambda p: "€" + _first(p), "inr": lambda p: "₹" + _first(p),
}
# Inline templates that are invisible in the rendered page (citations, maintenance tags, anchors).
INVISIBLE_TEMPLATE = re.compile(
    r"^(cite|citation|sfn|efn|refn|harv|r$|rp$|ref|note|citation needed|cn$|fact$|clarify|dubious|verify|when$|"
    r"who$|which$|by whom|better source|failed verification|anchor|dead link|update|vague|according to whom|"
    r"page needed|full citation|original research|or$|lead|nbsp|zwsp|•|dot|·|pad|clear|-$|toc)",
    re.IGNORECASE,
)
RESIDUE = re.compile(
    r"\[\[|\]\]|\{\{|\}\}|\{\||\|\}|&[a-zA-Z]{2,8};|&#\d+;|<\s*/?\s*[a-zA-Z!][^>]*>|^\s*category:|''",
    re.IGNORECASE | re.MULTILINE,
)
SPACES = re.compile(r"[ \t\u00a0\u2009\u202f]+")


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
            return node.value
        if isinstance(node, HTMLEntity):
            return node.normalize()
        if isinstance(node, Wikilink):
            return self.wikilink(node)
        if isinstance(node, Template):
            return self.template(node)
        if isinstance(node, Tag):
            return self.tag(node)
        if isinstance(node, Heading):
            return "\n\n" + GAP + "HEADING " + self.render(node.title).strip() + "\n\n"
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
        if name in RENDERED_TEMPLATES:
            return RENDERED_TEMPLATES[name](params)
        if name.startswith("lang-") or name.startswith("lang "):
            return params[-1] if params else ""
        if INVISIBLE_TEMPLATE.match(name):
            return ""
        return GAP  # unknown template: a gap if it sat inside a sentence, nothing if it stood alone

    def tag(self, tag):
        name = str(tag.tag).strip().lower()
        if name in DROPPED_TAGS:
            return ""
        if name in LINE_BREAK_TAGS:
            return "\n" + (self.render(tag.contents) if tag.contents else "") + "\n"
        return self.render(tag.contents) if tag.contents else ""


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
    text = re.sub(r"\.(\s*\.)+", ".", text)  # ". ." and ".." (keep a real ellipsis "...")
    text = re.sub(r",\.", ".", text)
    text = SPACES.sub(" ", text)
    return text.strip()


def _line_has_gap(line):
    """True when a gap placeholder sits between words of the same line (a word went missing)."""
    for match in re.finditer(GAP, line):
        before, after = line[: match.start()].replace(GAP, ""), line[match.end():].replace(GAP, "")
        if re.search(r"\w[^.!?]*$", before) and re.match(r"^\s*[\w,;:)]", after):
            return True
    return False


class CleanText(NamedTuple):
    """A page's prose paragraphs, visible categories, lines with missing words, and paragraphs dropped for residue."""

    paragraphs: list
    categories: list
    missing_words: int
    residue_paragraphs: int


def clean_wikitext(wikitext):
    """Render wikitext to prose paragraphs with no markup residue (paragraphs that keep any are dropped)."""
    renderer = _Renderer()
    rendered = renderer.render(mwparserfromhell.parse(wikitext))
    paragraphs, current, in_prose_section = [], [], True
    missing_words = residue = 0

    def flush():
        nonlocal residue
        if current:
            paragraph = tidy(" ".join(current))
            if RESIDUE.search(paragraph):
                residue += 1
            elif re.search(r"[A-Za-z]", paragraph):
                paragraphs.append(paragraph)
            current.clear()

    for raw_line in rendered.split("\n"):
        if raw_line.startswith(GAP + "HEADING "):
            flush()
            in_prose_section = raw_line[len(GAP + "HEADING "):].strip().lower() not in NON_PROSE_SECTIONS
            continue
        line = raw_line.strip()
        if not line.replace(GAP, "").strip():
            flush()
            continue
        if not in_prose_section:
            continue
        if line[0] in "*#;:|!{" or line.startswith("----"):
            flush()  # list items, indented blocks and table debris are their own paragraphs (or dropped)
            line = line.lstrip("*#;: ")
            if line.startswith(("|", "!", "{")) or not line:
                continue
            if _line_has_gap(line):
                missing_words += 1
            current.append(line.replace(GAP, ""))
            flush()
            continue
        if _line_has_gap(line):
            missing_words += 1
        current.append(line.replace(GAP, ""))
    flush()
    categories = [c for c in renderer.categories if not MAINTENANCE_CATEGORY.search(c)]
    return CleanText(paragraphs, categories, missing_words, residue)


def has_residue(text):
    """True if text still holds wiki/HTML markup (used by tests and the build's final check)."""
    return bool(RESIDUE.search(text))


class CleanPages(beam.PTransform):
    """Article records with wikitext → Page records (clean paragraphs, visible categories)."""

    def expand(self, articles):
        return articles | "clean wikitext" >> beam.FlatMap(_clean_article)


def _clean_article(article):
    try:
        paragraphs, categories, missing_words, residue = clean_wikitext(article["wikitext"])
    except Exception as err:  # a parser failure on one page must not stop the run
        Metrics.counter(STAGE, "skipped-parse-error").inc()
        log.warning("page %s (%r): wikitext parse failed: %s", article["page_id"], article["title"], err)
        return
    if not paragraphs:
        Metrics.counter(STAGE, "skipped-no-prose").inc()
        return
    Metrics.counter(STAGE, "pages").inc()
    if residue:
        Metrics.counter(STAGE, "paragraphs-dropped-markup-residue").inc(residue)
    if missing_words:
        Metrics.counter(STAGE, "pages-with-missing-words").inc()
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
    """{page_id, paragraphs} of one dump file's kept articles with prose, streamed without Beam (for benches
    and checks); at most `max_pages` of them."""
    from pipeline.stages.read_dump import classify_page, read_pages

    kept = 0
    for fields, wikitext, is_redirect in read_pages(path):
        if max_pages and kept >= max_pages:
            return
        if classify_page(fields, wikitext, is_redirect):
            continue
        paragraphs = clean_wikitext(wikitext).paragraphs
        if paragraphs:
            kept += 1
            yield {"page_id": fields["page_id"], "paragraphs": paragraphs}
