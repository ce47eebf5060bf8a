"""Write small pages-articles (export-0.10) XML dumps for tests, optionally bz2-compressed."""
import bz2
import hashlib
from xml.sax.saxutils import escape

HEADER = ('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" '
          'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="0.10" xml:lang="en">\n'
          "  <siteinfo><sitename>Wikipedia</sitename><dbname>enwiki</dbname></siteinfo>\n")
PAGE = """  <page>
    <title>{title}</title>
    <ns>{ns}</ns>
    <id>{page_id}</id>{redirect}
    <revision>
      <id>{revision_id}</id>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text bytes="{size}" xml:space="preserve">{text}</text>
      <sha1>{sha1}</sha1>
    </revision>
  </page>
"""


def page_xml(title, page_id, wikitext, ns=0, redirect=None):
    """One <page> element of the export format."""
    return PAGE.format(
        title=escape(title), ns=ns, page_id=page_id, revision_id=page_id * 10 + 1,
        redirect=f'\n    <redirect title="{escape(redirect)}" />' if redirect else "",
        size=len(wikitext.encode("utf-8")), text=escape(wikitext),
        sha1=hashlib.sha1(wikitext.encode("utf-8")).hexdigest())


def dump_bytes(pages):
    """The XML bytes of a dump holding `pages` (dicts with title, page_id, wikitext, optional ns/redirect)."""
    return (HEADER + "".join(page_xml(**page) for page in pages) + "</mediawiki>\n").encode("utf-8")


def write_dump(path, pages, compress=True):
    """Write a dump of `pages` to `path` (bz2-compressed when `compress`) and return the path."""
    data = dump_bytes(pages)
    with open(path, "wb") as fh:
        fh.write(bz2.compress(data) if compress else data)
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
