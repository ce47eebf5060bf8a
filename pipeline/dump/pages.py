"""Pages of a pages-articles dump: the fields of a <page> element, why a page is skipped, the article record."""
import hashlib
import re

DEFAULT_MAX_PAGE_BYTES = 4 * 1024 * 1024  # MediaWiki caps articles at 2 MiB; larger is a broken dump
PAGE_URL = "https://en.wikipedia.org/wiki?curid={}"
DISAMBIGUATION = re.compile(
    r"\{\{\s*(disambiguation|disambig|dab|disamb|hndis|geodis|numberdis|mathdab|schooldis|shipindex|"
    r"set index article|surname|given name)\s*[|}]",
    re.IGNORECASE,
)


def local_name(tag):
    return tag.rsplit("}", 1)[-1]


def _child_text(elem, name):
    for child in elem:
        if local_name(child.tag) == name:
            return child.text or ""
    return None


# MediaWiki's page, revision and namespace ids are 32-bit; anything else in <id>/<ns> is damage.
MAX_ID = 2**31 - 1


def dump_number(text, default):
    """The integer in an <id>/<ns> element (`default` when absent), None when it is not one picforge can store."""
    if text is None or not text.strip():
        return default
    text = text.strip()
    if not text.lstrip("-").isdigit() or len(text) > 11:
        return None
    value = int(text)
    return value if -MAX_ID <= value <= MAX_ID else None


def page_fields(page):
    """(fields, wikitext, is_redirect) of one parsed <page> element; a damaged <id> or <ns> is None."""
    revision = next((c for c in page if local_name(c.tag) == "revision"), None)
    wikitext = _child_text(revision, "text") if revision is not None else None
    fields = {
        "page_id": dump_number(_child_text(page, "id"), -1),
        "title": _child_text(page, "title") or "",
        "ns": dump_number(_child_text(page, "ns"), 0),
        "revision_id": dump_number(_child_text(revision, "id"), -1) if revision is not None else -1,
        "revision_timestamp": (_child_text(revision, "timestamp") or "").strip() if revision is not None else "",
    }
    is_redirect = any(local_name(c.tag) == "redirect" for c in page)
    return fields, wikitext or "", is_redirect


def classify_page(fields, wikitext, is_redirect, max_page_bytes=DEFAULT_MAX_PAGE_BYTES):
    """Why a page is skipped ('' to keep it): what stopped the reader (unparseable, too-large), bad-id, namespace,
    redirect, disambiguation, empty, too-large, invalid-utf8."""
    if fields.get("problem"):
        return fields["problem"]
    if fields["ns"] is None or fields["page_id"] is None or fields["page_id"] < 1 or fields["revision_id"] is None:
        return "bad-id"
    if fields["ns"] != 0:
        return "other-namespace"
    if is_redirect or wikitext.lstrip().lower().startswith("#redirect"):
        return "redirect"
    if not wikitext.strip():
        return "empty"
    if len(wikitext.encode("utf-8", errors="replace")) > max_page_bytes:
        return "too-large"
    if "\ufffd" in wikitext:
        return "invalid-utf8"
    if DISAMBIGUATION.search(wikitext) or fields["title"].endswith("(disambiguation)"):
        return "disambiguation"
    return ""


def article_record(fields, wikitext):
    """The record passed downstream: Article fields plus the wikitext for `clean`."""
    encoded = wikitext.encode("utf-8")
    return {
        "page_id": fields["page_id"],
        "title": fields["title"],
        "url": PAGE_URL.format(fields["page_id"]),
        "revision_id": fields["revision_id"],
        "revision_timestamp": fields["revision_timestamp"],
        "wikitext_sha1": hashlib.sha1(encoded).hexdigest(),
        "wikitext_bytes": len(encoded),
        "wikitext": wikitext,
    }


def article_fields(record):
    """An Article record (schemas/article) without the wikitext it travelled with."""
    return {k: v for k, v in record.items() if k != "wikitext"}


class SeenIds:
    """The page ids a reader has kept, one bit each (a dump's ids are dense, so this stays a few MB)."""

    def __init__(self):
        self.bits = bytearray()

    def add(self, page_id):
        """Record page_id; True when it was already there."""
        byte, bit = divmod(page_id, 8)
        if byte >= len(self.bits):
            self.bits.extend(bytes(max(byte + 1 - len(self.bits), len(self.bits))))
        seen = self.bits[byte] >> bit & 1
        self.bits[byte] |= 1 << bit
        return bool(seen)
