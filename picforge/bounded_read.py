"""Reading files people give within byte bounds checked before the bytes are held: a whole file and each of its
lines as they arrive, each zip member by its declared size, so no file, line or member past its bound is held."""
from apache_beam.io.filesystems import FileSystems

from picforge.errors import InputError
from picforge.files import open_input

READ_BYTES = 2**20  # read at once: a line is checked against its bound after at most this much more of it
MAX_TEXT_BYTES = 64 * 2**20  # a text file people give (STS-B, SimLex, lists): far more than any of them holds
# A line of text: far above any real row (an STS-B pair, a 4,096-dimension word vector), and within the csv
# module's own field limit (131,072 characters), so a line within it never fails there instead.
MAX_LINE_BYTES = 128 * 1024


def bounded_lines(fh, path, max_line_bytes=MAX_LINE_BYTES, fix="check that it is the right file"):
    """(line number, line bytes with its newline) of an open binary file, read a piece at a time; InputError naming
    the file and line as soon as a line passes `max_line_bytes`, before more of it is read."""
    pending, line_no = b"", 0
    while chunk := fh.read(READ_BYTES):
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        for line in lines:
            line_no += 1
            _check_line(path, line_no, len(line) + 1, max_line_bytes, fix)
            yield line_no, line + b"\n"
        _check_line(path, line_no + 1, len(pending), max_line_bytes, fix)
    if pending:
        yield line_no + 1, pending


def _check_line(path, line_no, size, max_line_bytes, fix):
    if size > max_line_bytes:
        raise InputError(f"{path}: line {line_no} is longer than {max_line_bytes:,} bytes, longer than any line such a "
                         f"file holds; {fix}")


def read_bounded(path, max_bytes=MAX_TEXT_BYTES, max_line_bytes=None, fix="check that it is the right file"):
    """The bytes of a file (local, gs:// or s3://), refused naming it once they pass `max_bytes`, or (text, when
    `max_line_bytes` is given) once one line passes it, naming the line; missing or unreadable files named too."""
    if not FileSystems.exists(path):
        raise InputError(f"{path}: no such file; check the path")
    try:
        with open_input(path) as fh:
            pieces = (line for _, line in bounded_lines(fh, path, max_line_bytes, fix)) if max_line_bytes else \
                iter(lambda: fh.read(READ_BYTES), b"")
            data, size = [], 0
            for piece in pieces:
                size += len(piece)
                if size > max_bytes:
                    raise InputError(f"{path}: larger than {max_bytes:,} bytes, more than any such file holds; {fix}")
                data.append(piece)
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory; give the file") from None
    except OSError as err:
        raise InputError(f"{path}: cannot be read ({err.strerror or err}); check the path and its permissions") \
            from None
    return b"".join(data)


def read_member(path, archive, member, max_bytes, fix):
    """The bytes of one zip member, refused by its declared size before any is unpacked (zipfile never unpacks more
    than a member declares: one that holds more fails its CRC check)."""
    declared = archive.getinfo(member).file_size
    if declared > max_bytes:
        raise InputError(f"{path}:{member}: unpacks to {declared:,} bytes, more than the {max_bytes // 2**20} MiB such "
                         f"a file holds; {fix}")
    with archive.open(member) as fh:
        return fh.read()
