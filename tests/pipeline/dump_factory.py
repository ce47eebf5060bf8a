"""Write small synthetic Wikipedia `pages-articles` dumps (export-0.10 XML, optionally bz2) for tests."""
import bz2
import hashlib
from xml.sax.saxutils import escape, quoteattr

EXPORT_NS = "http://www.mediawiki.org/xml/export-0.10/"
TIMESTAMP = "2024-01-01T00:00:00Z"
NAMESPACES = ((-2, "Media"), (-1, "Special"), (0, ""), (1, "Talk"), (6, "File"), (10, "Template"), (14, "Category"))


def article_wikitext(paragraphs, categories=()):
    """Wikitext of an article: paragraphs separated by blank lines, then one [[Category:…]] link per category."""
    body = "\n\n".join(paragraphs)
    links = "\n".join(f"[[Category:{name}]]" for name in categories)
    return body + ("\n\n" + links if links else "")


def page_xml(title, page_id, wikitext, ns=0, redirect=None):
    """One <page> element; ns 0 is an article, `redirect` the target title of a redirect page."""
    encoded = wikitext.encode("utf-8")
    redirect = f"    <redirect title={quoteattr(redirect)} />\n" if redirect else ""
    return (
        "  <page>\n"
        f"    <title>{escape(title)}</title>\n"
        f"    <ns>{ns}</ns>\n"
        f"    <id>{page_id}</id>\n"
        f"{redirect}"
        "    <revision>\n"
        f"      <id>{page_id * 10 + 1}</id>\n"
        f"      <timestamp>{TIMESTAMP}</timestamp>\n"
        "      <contributor>\n        <username>picforge-test</username>\n        <id>1</id>\n      </contributor>\n"
        "      <model>wikitext</model>\n      <format>text/x-wiki</format>\n"
        f'      <text bytes="{len(encoded)}" xml:space="preserve">{escape(wikitext)}</text>\n'
        f"      <sha1>{hashlib.sha1(encoded).hexdigest()}</sha1>\n"
        "    </revision>\n"
        "  </page>\n"
    )


def dump_xml(pages):
    """The export document (str) of `pages`: dicts with title, page_id, wikitext and optional ns, redirect."""
    namespaces = "".join(
        f'      <namespace key="{key}" case="first-letter">{name}</namespace>\n' if name
        else f'      <namespace key="{key}" case="first-letter" />\n'
        for key, name in NAMESPACES
    )
    header = (
        f'<mediawiki xmlns="{EXPORT_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'xsi:schemaLocation="{EXPORT_NS} http://www.mediawiki.org/xml/export-0.10.xsd" version="0.10" xml:lang="en">\n'
        "  <siteinfo>\n    <sitename>Wikipedia</sitename>\n    <dbname>enwiki</dbname>\n"
        "    <base>https://en.wikipedia.org/wiki/Main_Page</base>\n    <generator>MediaWiki 1.42</generator>\n"
        f"    <case>first-letter</case>\n    <namespaces>\n{namespaces}    </namespaces>\n  </siteinfo>\n"
    )
    return header + "".join(page_xml(**page) for page in pages) + "</mediawiki>\n"


def write_dump(path, pages, compress=True):
    """Write `pages` as a pages-articles dump at `path` (bz2 when `compress`; the name must then end in .bz2)."""
    if compress != str(path).endswith(".bz2"):
        raise ValueError(f"{path}: name a compressed dump *.xml.bz2 and an uncompressed one *.xml "
                         "(Beam picks the codec from the extension)")
    data = dump_xml(pages).encode("utf-8")
    with open(path, "wb") as out:
        out.write(bz2.compress(data) if compress else data)
    return str(path)
