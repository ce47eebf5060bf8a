"""Stage `read-dump`: stream namespace-0 articles out of pages-articles XML dumps."""
import codecs
import hashlib
import logging
import re
import xml.etree.ElementTree as ET

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from picforge.errors import InputError

STAGE = "read-dump"
CHUNK_BYTES = 1 << 20
DEFAULT_MAX_PAGE_BYTES = 4 * 1024 * 1024  # MediaWiki caps articles at 2 MiB; larger is a broken dump
PAGE_URL = "https://en.wikipedia.org/wiki?curid={}"
DISAMBIGUATION = re.compile(
    r"\{\{\s*(disambiguation|disambig|dab|disamb|hndis|geodis|numberdis|mathdab|schooldis|shipindex|"
    r"set index article|surname|given name)\s*[|}]",
    re.IGNORECASE,
)
log = logging.getLogger(__name__)


def _local(tag):
    return tag.rsplit("}", 1)[-1]


def _child_text(elem, name):
    for child in elem:
        if _local(child.tag) == name:
            return child.text or ""
    return None


def page_fields(page):
    """(fields, wikitext, is_redirect) of one parsed <page> element."""
    revision = next((c for c in page if _local(c.tag) == "revision"), None)
    wikitext = _child_text(revision, "text") if revision is not None else None
    fields = {
        "page_id": int(_child_text(page, "id") or -1),
        "title": _child_text(page, "title") or "",
        "ns": int(_child_text(page, "ns") or 0),
        "revision_id": int(_child_text(revision, "id") or -1) if revision is not None else -1,
    }
    is_redirect = any(_local(c.tag) == "redirect" for c in page)
    return fields, wikitext or "", is_redirect


def classify_page(fields, wikitext, is_redirect, max_page_bytes=DEFAULT_MAX_PAGE_BYTES):
    """Why a page is skipped ('' to keep it): namespace, redirect, disambiguation, empty, too-large, invalid-utf8."""
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
        "wikitext_sha1": hashlib.sha1(encoded).hexdigest(),
        "wikitext_bytes": len(encoded),
        "wikitext": wikitext,
    }


def article_fields(record):
    """An Article record (schemas/article) without the wikitext it travelled with."""
    return {k: v for k, v in record.items() if k != "wikitext"}


class DumpFileError(Exception):
    """A dump file that could not be read to its end (truncated, malformed)."""


def iter_pages(stream, path="<stream>"):
    """Yield (fields, wikitext, is_redirect) for each <page> of a binary XML stream, in constant memory.

    Invalid UTF-8 bytes become U+FFFD (so one bad page never stops the file); a truncated compressed
    stream or malformed XML raises DumpFileError naming the file, line and last good page.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    parser = ET.XMLPullParser(events=("start", "end"))
    root = None
    last_page = None
    try:
        while True:
            chunk = stream.read(CHUNK_BYTES)
            final = not chunk
            parser.feed(decoder.decode(chunk, final=final))
            for event, elem in parser.read_events():
                if event == "start":
                    if root is None:
                        root = elem
                    continue
                if _local(elem.tag) != "page":
                    continue
                fields, wikitext, is_redirect = page_fields(elem)
                last_page = fields["page_id"]
                yield fields, wikitext, is_redirect
                root.clear()
            if final:
                parser.close()
                return
    except ET.ParseError as err:
        line, column = err.position
        raise DumpFileError(
            f"{path}: malformed XML at line {line}, column {column} ({err.msg if hasattr(err, 'msg') else err}); "
            f"last complete page id: {last_page}. Re-download the file or split out the damaged part."
        ) from err
    except (EOFError, OSError) as err:
        raise DumpFileError(
            f"{path}: compressed stream ends early ({err}); last complete page id: {last_page}. "
            "The file is truncated: re-download it (pages read before this point are kept)."
        ) from err


class _ReadDumpFiles(beam.DoFn):
    """Read a group of dump files, in order, into article records, counting every skipped page by reason."""

    def __init__(self, max_pages, max_page_bytes):
        self.max_pages = max_pages
        self.max_page_bytes = max_page_bytes
        self.pages = Metrics.counter(STAGE, "pages-read")
        self.kept = Metrics.counter(STAGE, "articles")
        self.bad_files = Metrics.counter(STAGE, "files-unreadable")

    def process(self, paths):
        kept = 0
        for path in paths:
            for record in self._read_file(path):
                yield record
                kept += 1
                if self.max_pages and kept >= self.max_pages:
                    return

    def _read_file(self, path):
        try:
            with FileSystems.open(path) as stream:  # compression from the extension (.bz2, .gz)
                for fields, wikitext, is_redirect in iter_pages(stream, path):
                    self.pages.inc()
                    reason = classify_page(fields, wikitext, is_redirect, self.max_page_bytes)
                    if reason:
                        Metrics.counter(STAGE, f"skipped-{reason}").inc()
                        if reason in ("too-large", "invalid-utf8"):
                            log.warning("%s: page %s (%r) skipped: %s", path, fields["page_id"], fields["title"], reason)
                        continue
                    self.kept.inc()
                    yield article_record(fields, wikitext)
        except DumpFileError as err:
            self.bad_files.inc()
            log.error("%s", err)


def expand_inputs(pattern):
    """The sorted files matching a path or glob (local, gs://, s3://); a clear error when none match."""
    files = sorted(m.path for m in FileSystems.match([pattern])[0].metadata_list)
    if not files:
        raise InputError(f"{pattern}: no dump file matches; pass a pages-articles .xml or .xml.bz2 path or glob")
    return files


class ReadDump(beam.PTransform):
    """pages-articles XML(.bz2) files → article records (namespace 0, no redirects/disambiguation/empties).

    Files are read in parallel; with `max_pages` they are read one after another, in sorted order, so the run
    keeps the first N articles of the whole input.
    """

    def __init__(self, file_pattern, max_pages=None, max_page_bytes=DEFAULT_MAX_PAGE_BYTES):
        super().__init__()
        self.files = expand_inputs(file_pattern)
        self.max_pages = max_pages
        self.max_page_bytes = max_page_bytes

    def expand(self, pbegin):
        return (
            pbegin
            | "dump files" >> beam.Create([tuple(self.files)] if self.max_pages else [(path,) for path in self.files])
            | "parse pages" >> beam.ParDo(_ReadDumpFiles(self.max_pages, self.max_page_bytes))
            | "spread pages" >> beam.Reshuffle()
        )
