"""Reading dump files: format from the first bytes, bz2/gzip decompressed in small pieces, multistream byte ranges,
and the <page> elements of the XML in constant memory."""
import bz2
import codecs
import itertools
import re
import xml.etree.ElementTree as ET
import zlib

from apache_beam.io.filesystems import FileSystems

from picforge.errors import InputError
from pipeline.dump.pages import DEFAULT_MAX_PAGE_BYTES, page_fields

RAW_READ_BYTES = 64 * 1024  # compressed bytes fed at once: a damaged block loses only what follows it
DECODED_CHUNK_BYTES = 256 * 1024  # decoded bytes handed on at once, so none wait behind a damaged block
MAGIC = ((b"BZh", "bz2"), (b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), (b"7z\xbc\xaf", "7z"),
         (b"PK\x03\x04", "zip"), (b"\x28\xb5\x2f\xfd", "zstd"))
EXTENSION_FORMAT = {".bz2": "bz2", ".gz": "gzip", ".xml": "xml"}


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
        raise InputError(f"{path}: cannot be read ({err.strerror or err}); check the path and its permissions") \
            from None
    problem = format_problem(path, dump_format(head))
    if problem:
        raw.close()
        raise InputError(problem)
    return raw, dump_format(head)


def read_pages(path, max_page_bytes=DEFAULT_MAX_PAGE_BYTES):
    """(fields, wikitext, is_redirect) of each page of one dump file, decompressed in small pieces."""
    raw, fmt = open_dump(path)
    with raw:
        yield from iter_pages(decompressed_chunks(raw, fmt), path, max_page_bytes)


class ByteRange:
    """The bytes `start` to `end` of an open raw file, read like a file (what decompressed_chunks reads from)."""

    def __init__(self, raw, start, end):
        raw.seek(start)
        self.raw, self.left = raw, end - start

    def read(self, size):
        block = self.raw.read(min(size, self.left)) if self.left > 0 else b""
        self.left -= len(block)
        return block


def read_stream_pages(path, start, end, max_page_bytes=DEFAULT_MAX_PAGE_BYTES):
    """(fields, wikitext, is_redirect) of each page in the bz2 streams at bytes `start` to `end` of a multistream
    dump."""
    with FileSystems.open(path, compression_type="uncompressed") as raw:
        name = f"{path} (stream at byte {start:,})"
        yield from iter_pages(decompressed_chunks(ByteRange(raw, start, end), "bz2"), name, max_page_bytes)


PAGE_START = re.compile(r"<page[\s>]")
PAGE_END = "</page>"
XML_BYTES_PER_TEXT_BYTE = 6  # the most one wikitext byte takes in the dump's XML (a quote written as &quot;)
PAGE_XML_OVERHEAD = 2**20  # a page's XML beyond its wikitext: title, ids, contributor, comment, hashes


def page_xml_bound(max_page_bytes):
    """The most characters of XML a page whose wikitext is within `max_page_bytes` can take."""
    return max_page_bytes * XML_BYTES_PER_TEXT_BYTE + PAGE_XML_OVERHEAD


def skipped_page(problem, xml_head, detail):
    """(fields, '', False) of a page read no further: `problem` (unparseable, too-large) and `detail` in its fields,
    with the id and title its XML shows, so the reader counts and names it."""
    number = re.search(r"<id>\s*(\d{1,10})\s*</id>", xml_head)
    title = re.search(r"<title>([^<]{0,300})</title>", xml_head)
    fields = {"page_id": int(number[1]) if number else None, "title": title[1] if title else "", "ns": 0,
              "revision_id": -1, "problem": problem, "detail": detail}
    return fields, "", False


def parse_page(xml, line):
    """(fields, wikitext, is_redirect) of one <page> element's XML starting at `line` of its file; an unparseable
    one (a NUL or other character XML forbids, a broken tag) becomes a skipped_page naming where it broke."""
    try:
        return page_fields(ET.fromstring(xml))
    except ET.ParseError as err:
        at_line, column = err.position
        reason = str(err).split(":", 1)[0]
        return skipped_page("unparseable", xml[:4096], f"{reason} at line {line + at_line - 1}, column {column + 1}")


def iter_pages(chunks, path="<stream>", max_page_bytes=DEFAULT_MAX_PAGE_BYTES):
    """Yield (fields, wikitext, is_redirect) for each <page> of XML arriving as byte chunks, one page in memory.

    Each page is parsed on its own, so one that cannot be parsed costs that page only (fields["problem"] says why,
    like a page whose XML passes `page_xml_bound`, dropped as it arrives); invalid UTF-8 bytes become U+FFFD. A
    truncated or damaged compressed stream, or a file ending inside a page, raises DumpFileError naming the file
    and the last good page.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    bound = page_xml_bound(max_page_bytes)
    buffer, line, last_page = "", 1, None
    in_page = oversized = False  # inside a <page>; that page passed the bound and is being skipped
    head = ""  # the first characters of an oversized page (its id and title)
    try:
        for chunk in itertools.chain(chunks, [None]):
            buffer += decoder.decode(chunk or b"", final=chunk is None)
            while True:
                if not in_page:
                    start = PAGE_START.search(buffer)
                    keep = start.start() if start else max(len(buffer) - len("<page "), 0)
                    line += buffer.count("\n", 0, keep)
                    buffer = buffer[keep:]
                    if not start:
                        break
                    in_page, scan_from = True, 0
                end = buffer.find(PAGE_END, scan_from)
                if end < 0:
                    if len(buffer) > bound:
                        head = head or buffer[:4096]
                        oversized = True
                        line += buffer.count("\n", 0, len(buffer) - len(PAGE_END))
                        buffer = buffer[-len(PAGE_END):]
                    scan_from = max(len(buffer) - len(PAGE_END), 0)
                    break
                end += len(PAGE_END)
                page = (skipped_page("too-large", head, f"its XML passes {bound:,} characters") if oversized
                        else parse_page(buffer[:end], line))
                line += buffer.count("\n", 0, end)
                buffer, in_page, oversized, head = buffer[end:], False, False, ""
                if not page[0].get("problem"):
                    last_page = page[0]["page_id"]
                yield page
        if in_page:
            raise DumpFileError(f"{path}: the file ends inside a page (line {line}); last complete page id: "
                                f"{last_page}. The file is truncated: re-download it (pages read before are kept).")
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


def located_pages(part, parts_done, parts_total, max_page_bytes=DEFAULT_MAX_PAGE_BYTES):
    """((fields, wikitext, is_redirect), fraction of the input read) of each page of a dump part: a whole file
    (path, None, size), its fraction the compressed bytes read, or one multistream dump's stream (path, start, end),
    its fraction the parts read before it."""
    path, start, end = part
    if start is not None:
        for page in read_stream_pages(path, start, end, max_page_bytes):
            yield page, parts_done / parts_total
        return
    raw, fmt = open_dump(path)
    with raw:
        for page in iter_pages(decompressed_chunks(raw, fmt), path, max_page_bytes):
            yield page, raw.tell() / end if end else None


def expand_inputs(pattern):
    """The sorted (path, size in bytes) of the files matching a path or glob (local, gs://, s3://); a clear error
    when none match or one is no dump."""
    files = sorted((m.path, m.size_in_bytes) for m in FileSystems.match([pattern])[0].metadata_list)
    if not files:
        raise InputError(f"{pattern}: no dump file matches; pass a pages-articles .xml or .xml.bz2 path or glob")
    for path, _ in files:
        open_dump(path)[0].close()
    return files
