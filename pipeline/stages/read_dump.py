"""Stage `read-dump`: stream namespace-0 articles out of pages-articles XML dumps."""
import bz2
import codecs
import hashlib
import logging
import re
import xml.etree.ElementTree as ET
import zlib

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from picforge.embedded_runner import Spread
from picforge.errors import InputError
from picforge.progress import Progress, log as progress_log

STAGE = "read-dump"
RAW_READ_BYTES = 64 * 1024  # compressed bytes fed at once: a damaged block loses only what follows it
DECODED_CHUNK_BYTES = 256 * 1024  # decoded bytes handed on at once, so none wait behind a damaged block
MAGIC = ((b"BZh", "bz2"), (b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), (b"7z\xbc\xaf", "7z"),
         (b"PK\x03\x04", "zip"), (b"\x28\xb5\x2f\xfd", "zstd"))
EXTENSION_FORMAT = {".bz2": "bz2", ".gz": "gzip", ".xml": "xml"}
MULTISTREAM_SUFFIX = "-multistream.xml.bz2"
INDEX_SUFFIXES = ("-multistream-index.txt.bz2", "-multistream-index.txt")
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
    revision = next((c for c in page if _local(c.tag) == "revision"), None)
    wikitext = _child_text(revision, "text") if revision is not None else None
    fields = {
        "page_id": dump_number(_child_text(page, "id"), -1),
        "title": _child_text(page, "title") or "",
        "ns": dump_number(_child_text(page, "ns"), 0),
        "revision_id": dump_number(_child_text(revision, "id"), -1) if revision is not None else -1,
    }
    is_redirect = any(_local(c.tag) == "redirect" for c in page)
    return fields, wikitext or "", is_redirect


def classify_page(fields, wikitext, is_redirect, max_page_bytes=DEFAULT_MAX_PAGE_BYTES):
    """Why a page is skipped ('' to keep it): bad-id, namespace, redirect, disambiguation, empty, too-large,
    invalid-utf8."""
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
        "wikitext_sha1": hashlib.sha1(encoded).hexdigest(),
        "wikitext_bytes": len(encoded),
        "wikitext": wikitext,
    }


def article_fields(record):
    """An Article record (schemas/article) without the wikitext it travelled with."""
    return {k: v for k, v in record.items() if k != "wikitext"}


class DumpFileError(Exception):
    """A dump file that could not be read to its end (truncated, damaged, malformed)."""


def dump_format(head):
    """What a file holds, from its first bytes: 'bz2', 'gzip', 'xml', another format's name, or 'unknown'."""
    for magic, name in MAGIC:
        if head.startswith(magic):
            return name
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return "xml"
    return "empty" if not head else "unknown"


def format_problem(path, fmt):
    """Why a file of format `fmt` named `path` is not read as a dump ('' when it is fine), with the fix."""
    if fmt not in ("bz2", "gzip", "xml"):
        what = {"empty": "an empty file", "unknown": "neither XML nor bzip2/gzip"}.get(fmt, f"{fmt}-compressed")
        return (f"{path}: not a pages-articles dump (it is {what}); pass the .xml, .xml.bz2 or .xml.gz file "
                "(decompress other formats first)")
    claimed = next((f for ext, f in EXTENSION_FORMAT.items() if path.endswith(ext)), fmt)
    if claimed != fmt:
        right = {"bz2": ".xml.bz2", "gzip": ".xml.gz", "xml": ".xml"}[fmt]
        return f"{path}: the name says {claimed} but the file is {fmt}; rename it to end in {right}"
    return ""


def decompressed_chunks(raw, fmt):
    """The decoded bytes of a raw dump stream in small pieces (bz2 and gzip, several streams each).

    A damaged or truncated block raises OSError/EOFError only after every byte before it was yielded.
    """
    if fmt == "xml":
        while block := raw.read(RAW_READ_BYTES):
            yield block
        return
    new_decoder = bz2.BZ2Decompressor if fmt == "bz2" else lambda: zlib.decompressobj(wbits=31)
    decoder, data = new_decoder(), raw.read(RAW_READ_BYTES)
    while True:
        try:
            out = decoder.decompress(data, DECODED_CHUNK_BYTES)
        except zlib.error as err:
            raise OSError(f"damaged gzip data ({err})") from None
        data = getattr(decoder, "unconsumed_tail", b"")
        if out:
            yield out
        if decoder.eof:
            data = decoder.unused_data or raw.read(RAW_READ_BYTES)
            if not data:
                return
            decoder = new_decoder()
        elif not data and len(out) < DECODED_CHUNK_BYTES and getattr(decoder, "needs_input", True):
            data = raw.read(RAW_READ_BYTES)
            if not data:
                raise EOFError("the file ends inside a compressed block")


def open_dump(path):
    """(raw stream, format) of a dump file whose name and content agree; InputError naming the file otherwise."""
    try:
        raw = FileSystems.open(path, compression_type="uncompressed")
        head = raw.read(8)
        raw.seek(0)
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory; pass the dump file inside it, or a glob such as "
                         f"{path.rstrip('/')}/*.xml.bz2") from None
    except OSError as err:
        raise InputError(f"{path}: cannot be read ({err.strerror or err}); check the path and its permissions") from None
    problem = format_problem(path, dump_format(head))
    if problem:
        raw.close()
        raise InputError(problem)
    return raw, dump_format(head)


def read_pages(path):
    """(fields, wikitext, is_redirect) of each page of one dump file, decompressed in small pieces."""
    raw, fmt = open_dump(path)
    with raw:
        yield from iter_pages(decompressed_chunks(raw, fmt), path)


def index_beside(path):
    """The multistream index Wikimedia publishes beside `path` (…-multistream.xml.bz2 →
    …-multistream-index.txt.bz2, or the .txt), or None."""
    if not path.endswith(MULTISTREAM_SUFFIX):
        return None
    stem = path[:-len(MULTISTREAM_SUFFIX)]
    return next((c for c in (stem + suffix for suffix in INDEX_SUFFIXES) if FileSystems.exists(c)), None)


def stream_offsets(lines, index):
    """The sorted distinct byte offsets of the page streams in index `lines` (`offset:page_id:title`); an
    InputError naming the index and line when one is not of that shape."""
    offsets = set()
    for line_no, line in enumerate(lines, 1):
        offset, _, rest = line.partition(":")
        if not line.strip():
            continue
        if not offset.isdigit() or ":" not in rest:
            raise InputError(f"{index}: line {line_no} is not `offset:page_id:title` ({line[:80]!r}); pass the "
                             "multistream index published with the dump, or move it away to read the dump whole")
        offsets.add(int(offset))
    return sorted(offsets)


def stream_ranges(offsets, size):
    """[(start, end)] byte ranges of the page streams: each offset to the next, the last to the end of the file
    (the closing stream after it holds only `</mediawiki>`); the header stream before the first is left out."""
    return list(zip(offsets, offsets[1:] + [size]))


def read_index(index):
    """The stream offsets of a multistream index (bz2 or plain text) named `index`."""
    try:
        with FileSystems.open(index, compression_type="auto") as fh:
            return stream_offsets(codecs.iterdecode(iter(fh.readline, b""), "utf-8"), index)
    except (OSError, EOFError, UnicodeDecodeError) as err:
        raise InputError(f"{index}: the multistream index cannot be read ({err}); re-download it, or move it away "
                         "to read the dump whole") from None


def multistream_parts(path, size, index):
    """(path, start, end) of each page stream of a multistream dump, checked against the dump: InputError when an
    offset is past the end of the dump or not the start of a bz2 stream (an index of another dump)."""
    offsets = read_index(index)
    if not offsets:
        raise InputError(f"{index}: the multistream index lists no page; pass the index of {path}")
    for offset in (offsets[0], offsets[-1]):
        with FileSystems.open(path, compression_type="uncompressed") as raw:
            raw.seek(offset)
            if offset >= size or raw.read(3) != b"BZh":
                raise InputError(f"{index}: offset {offset} is not the start of a bz2 stream in {path}, so the "
                                 "index belongs to another dump; use the index of the same dump and date, or move "
                                 "it away to read the dump whole")
    return [(path, start, end) for start, end in stream_ranges(offsets, size)]


class ByteRange:
    """The bytes `start` to `end` of an open raw file, read like a file (what decompressed_chunks reads from)."""

    def __init__(self, raw, start, end):
        raw.seek(start)
        self.raw, self.left = raw, end - start

    def read(self, size):
        block = self.raw.read(min(size, self.left)) if self.left > 0 else b""
        self.left -= len(block)
        return block


def rooted(chunks):
    """The XML of page streams inside one <mediawiki> root: the pages of a stream have none of their own, and the
    last stream of a dump closes the root itself."""
    yield b"<mediawiki>"
    tail = b""
    for chunk in chunks:
        yield chunk
        tail = (tail + chunk)[-64:]
    if not tail.rstrip().endswith(b"</mediawiki>"):
        yield b"</mediawiki>"


def read_stream_pages(path, start, end):
    """(fields, wikitext, is_redirect) of each page in the bz2 streams at bytes `start` to `end` of a multistream
    dump."""
    with FileSystems.open(path, compression_type="uncompressed") as raw:
        name = f"{path} (stream at byte {start:,})"
        yield from iter_pages(rooted(decompressed_chunks(ByteRange(raw, start, end), "bz2")), name)


def iter_pages(chunks, path="<stream>"):
    """Yield (fields, wikitext, is_redirect) for each <page> of XML arriving as byte chunks, in constant memory.

    Invalid UTF-8 bytes become U+FFFD (so one bad page never stops the file); a truncated or damaged
    compressed stream or malformed XML raises DumpFileError naming the file, line and last good page.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    parser = ET.XMLPullParser(events=("start", "end"))
    root = None
    last_page = None
    chunks = iter(chunks)
    try:
        while True:
            chunk = next(chunks, b"")
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
    except EOFError as err:
        raise DumpFileError(
            f"{path}: compressed stream ends early ({err}); last complete page id: {last_page}. "
            "The file is truncated: re-download it (pages read before this point are kept)."
        ) from err
    except OSError as err:
        raise DumpFileError(
            f"{path}: damaged compressed data ({err}); last complete page id: {last_page}. "
            "Pages before the damage are kept; re-download the file to read the rest."
        ) from err


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


def located_pages(part, parts_done, parts_total):
    """((fields, wikitext, is_redirect), fraction of the input read) of each page of a dump part: a whole file
    (path, None, size), its fraction the compressed bytes read, or one multistream dump's stream (path, start, end),
    its fraction the parts read before it."""
    path, start, end = part
    if start is not None:
        for page in read_stream_pages(path, start, end):
            yield page, parts_done / parts_total
        return
    raw, fmt = open_dump(path)
    with raw:
        for page in iter_pages(decompressed_chunks(raw, fmt), path):
            yield page, raw.tell() / end if end else None


class _ReadDumpParts(beam.DoFn):
    """Read groups of dump parts (whole files or multistream streams), in order, into article records, counting
    every skipped page by reason; a progress line every 30 s says how much of the input is left."""

    def __init__(self, max_pages, max_page_bytes, parts_total):
        self.max_pages, self.max_page_bytes, self.parts_total = max_pages, max_page_bytes, parts_total
        self.pages = Metrics.counter(STAGE, "pages-read")
        self.kept = Metrics.counter(STAGE, "articles")
        self.bad_files = Metrics.counter(STAGE, "files-unreadable")

    def setup(self):
        self.seen = SeenIds()
        self.parts_done = 0
        self.progress = Progress(STAGE, "pages read")

    def process(self, parts):
        kept = 0
        for part in parts:
            for record in self._read_part(part):
                yield record
                kept += 1
                if self.max_pages and kept >= self.max_pages:
                    return
            self.parts_done += 1

    def _read_part(self, part):
        try:
            for (fields, wikitext, is_redirect), fraction in located_pages(part, self.parts_done, self.parts_total):
                self.pages.inc()
                self.progress.tick(fraction=fraction)
                reason = classify_page(fields, wikitext, is_redirect, self.max_page_bytes)
                if not reason and self.seen.add(fields["page_id"]):
                    reason = "duplicate-id"
                if reason:
                    Metrics.counter(STAGE, f"skipped-{reason}").inc()
                    if reason in ("too-large", "invalid-utf8", "bad-id", "duplicate-id"):
                        log.warning("%s: page %s (%r) skipped: %s", part[0], fields["page_id"], fields["title"],
                                    reason)
                    continue
                self.kept.inc()
                yield article_record(fields, wikitext)
        except (DumpFileError, InputError) as err:
            self.bad_files.inc()
            log.error("%s", err)


def expand_inputs(pattern):
    """The sorted (path, size in bytes) of the files matching a path or glob (local, gs://, s3://); a clear error
    when none match or one is no dump."""
    files = sorted((m.path, m.size_in_bytes) for m in FileSystems.match([pattern])[0].metadata_list)
    if not files:
        raise InputError(f"{pattern}: no dump file matches; pass a pages-articles .xml or .xml.bz2 path or glob")
    for path, _ in files:
        open_dump(path)[0].close()
    return files


def dump_parts(files, sequential):
    """The parts to read: each multistream dump with its index beside it as its streams (unless `sequential`),
    every other file whole, as (path, None, size)."""
    parts = []
    for path, size in files:
        index = None if sequential else index_beside(path)
        if index:
            streams = multistream_parts(path, size, index)
            progress_log.info("%s: read as %s bz2 streams (index %s)", path, f"{len(streams):,}", index)
            parts += streams
        else:
            parts.append((path, None, size))
    return parts


class ReadDump(beam.PTransform):
    """pages-articles XML(.bz2) files → article records (namespace 0, no redirects/disambiguation/empties).

    Files, and the streams of a multistream dump whose index sits beside it, are read in parallel; with
    `max_pages` files are read whole, one after another, in sorted order, so the run keeps the first N articles
    of the whole input.
    """

    def __init__(self, file_pattern, max_pages=None, max_page_bytes=DEFAULT_MAX_PAGE_BYTES):
        super().__init__()
        self.parts = dump_parts(expand_inputs(file_pattern), sequential=bool(max_pages))
        self.max_pages = max_pages
        self.max_page_bytes = max_page_bytes

    def expand(self, pbegin):
        groups = [tuple(self.parts)] if self.max_pages else [(part,) for part in self.parts]
        return (
            pbegin
            | "dump parts" >> beam.Create(groups)
            | "spread parts" >> Spread()
            | "parse pages" >> beam.ParDo(_ReadDumpParts(self.max_pages, self.max_page_bytes, len(self.parts)))
            | "spread pages" >> Spread()
        )
