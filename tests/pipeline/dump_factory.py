"""Write small synthetic Wikipedia `pages-articles` dumps (export-0.10 XML, optionally bz2) for tests."""
import bz2
import hashlib
import pathlib
import re
from xml.sax.saxutils import escape, quoteattr, unescape

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


def planted_pages():
    """Pages where "massive figure" and "record high" carry two senses on pages of unrelated categories,
    "interest rate" repeats with one sense (filtered as similar), "Green Harbour" is a proper noun
    (dropped), and one page has a template hole in a sentence (dropped for missing words)."""
    def page(page_id, title, sentences, categories):
        body = " ".join(sentences[1:])
        cats = "\n".join(f"[[Category:{c}]]" for c in categories)
        return {"title": title, "page_id": page_id,
                "wikitext": f"{{{{Short description|{title}}}}}\n{sentences[0]}<ref>{{{{cite web|title=x}}}}</ref>"
                            f"\n\n{body}\n\n== References ==\n{{{{Reflist}}}}\n\n{cats}\n"}

    return [
        page(101, "Northwind quarterly earnings", [
            "Northwind Holdings publishes its audited accounts every spring.",
            "The chief accountant presents the ledger to the shareholders in the annual meeting.",
            "Analysts reported a massive figure of four billion dollars in quarterly losses.",
            "The central bank raised the interest rate by half a point in March.",
            "Traders sold the shares quickly once the dividend was suspended.",
            "The company also recorded a record high of ninety points on the bond index.",
            "Auditors later questioned the valuation of its overseas subsidiaries.",
            "Green Harbour Capital bought a large stake in the firm during the crisis.",
        ], ["Corporate finance", "Stock market", "Accounting"]),
        page(102, "Marble temple of Ardos", [
            "The ruined sanctuary stands on a limestone hill above the olive groves.",
            "Pilgrims climbed the stone stairs to leave small offerings at the altar.",
            "The temple entrance holds a massive figure carved from white marble by ancient artisans.",
            "Archaeologists uncovered painted pottery beneath the collapsed colonnade.",
            "A bronze lamp once burned beside the goddess through the winter festivals.",
            "Archivists stored every record high on wooden shelves in the damp cellar.",
            "Restorers replaced the broken columns with careful copies in the last century.",
        ], ["Ancient Greek sculpture", "Archaeological sites in Greece", "Temples"]),
        page(103, "Rates newsletter", [
            "The weekly newsletter summarises decisions of the monetary committee.",
            "The central bank lifted the interest rate by a quarter point in June.",
            "Mortgage lenders followed the decision within a few days.",
            "Green Harbour Capital published a short comment on the decision that week.",
            "Savers welcomed the change while borrowers complained about repayments.",
        ], ["Corporate finance", "Banking", "Monetary policy"]),
        page(104, "Harbour festival", [
            "The harbour festival draws fishing crews from the whole northern coast.",
            "Visitors admired a massive figure {{Convert-like|broken}} of the sea god on the pier.",
            "Children paint wooden boats and race them across the shallow basin.",
            "A brass band plays sea shanties until the lanterns are lit at dusk.",
            "Local cooks serve grilled sardines from long tables beside the water.",
        ], ["Festivals in Norway", "Maritime culture"]),
    ]


def two_phrase_pages():
    """Four pages where "massive figure" (pages 11, 12) and "perfect pitch" (13, 14) each join two pages of
    unrelated categories in different senses."""
    return [
        dict(title="Temple of Ardos", page_id=11, wikitext=article_wikitext([
            "The ruined sanctuary stands on a limestone hill above the olive groves. "
            "Pilgrims climbed the stone stairs to leave small offerings at the altar.",
            "The temple entrance holds a massive figure carved from white marble by ancient artisans. "
            "Archaeologists uncovered painted pottery beneath the collapsed colonnade. "
            "A bronze lamp once burned beside the goddess through the winter festivals."],
            ["Ancient Greek sculpture", "Archaeological sites in Greece"])),
        dict(title="Northwind Holdings", page_id=12, wikitext=article_wikitext([
            "Northwind Holdings publishes its audited accounts every spring. "
            "The central bank raised the interest rate by half a point in March.",
            "Analysts reported a massive figure of four billion dollars in quarterly losses. "
            "Traders sold the shares quickly once the dividend was suspended. "
            "Auditors later questioned the valuation of its overseas subsidiaries."],
            ["Corporate finance", "Stock market"])),
        dict(title="St Cecilia's organ", page_id=13, wikitext=article_wikitext([
            "The cathedral organ was rebuilt after a fire destroyed the old choir loft. "
            "The singer with perfect pitch tuned the old church organ before the evening service. "
            "Visitors may hear recitals on the first Sunday of each month."],
            ["Church music", "Pipe organs"])),
        dict(title="Westbury cricket ground", page_id=14, wikitext=article_wikitext([
            "The ground opened in 1881 and hosted county matches every summer. "
            "Groundskeepers mowed the perfect pitch before the national cricket final began. "
            "The central bank lifted the interest rate by a quarter point in June. "
            "A new pavilion replaced the wooden stand in 1994."],
            ["Cricket grounds in England", "Sports venues"])),
    ]


def write_multistream(source, dump, pages_per_stream=100):
    """Write the bz2 pages-articles dump `source` as a Wikimedia multistream dump `dump` (…-multistream.xml.bz2)
    and its index beside it: the header, then `pages_per_stream` pages per bz2 stream, then one stream closing the
    root; the index lists `offset:page_id:title` of each page. Returns the index path."""
    xml = bz2.decompress(pathlib.Path(source).read_bytes()).decode("utf-8")
    pages = list(re.finditer(r"[ \t]*<page>.*?</page>\n?", xml, re.DOTALL))
    header, footer = xml[:pages[0].start()], xml[pages[-1].end():]
    index_lines, offset = [], 0
    with open(dump, "wb") as out:
        offset += out.write(bz2.compress(header.encode("utf-8")))
        for first in range(0, len(pages), pages_per_stream):
            group = pages[first:first + pages_per_stream]
            for page in group:
                page_id = re.search(r"<id>(\d+)</id>", page.group()).group(1)
                title = unescape(re.search(r"<title>(.*?)</title>", page.group()).group(1))
                index_lines.append(f"{offset}:{page_id}:{title}\n")
            offset += out.write(bz2.compress("".join(p.group() for p in group).encode("utf-8")))
        out.write(bz2.compress(footer.encode("utf-8")))
    index = str(dump).replace("-multistream.xml.bz2", "-multistream-index.txt.bz2")
    pathlib.Path(index).write_bytes(bz2.compress("".join(index_lines).encode("utf-8")))
    return index
