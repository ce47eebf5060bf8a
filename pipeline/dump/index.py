"""Multistream dumps: the index Wikimedia publishes beside a dump, its stream offsets checked against the dump,
and the parts (whole files or streams) a read is split into."""

from apache_beam.io.filesystems import FileSystems

from picforge.bounded_read import bounded_lines
from picforge.errors import InputError
from picforge.progress import log as progress_log

MULTISTREAM_SUFFIX = "-multistream.xml.bz2"
INDEX_SUFFIXES = ("-multistream-index.txt.bz2", "-multistream-index.txt")


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
            lines = bounded_lines(fh, index, fix="pass the multistream index of the dump (OFFSET:ID:TITLE lines)")
            return stream_offsets((line.decode("utf-8") for _, line in lines), index)
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
