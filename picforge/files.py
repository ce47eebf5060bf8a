"""The one atomic file write (a staging sibling renamed into place, on local disk or Beam FileSystems), the one way
an input is opened (a regular file, never a FIFO or device that would hang), and JSON reads whose errors name the
file and line."""
import contextlib
import errno
import json
import logging
import os
import re
import shutil
import stat
import threading

from picforge.errors import InputError

# Names of files being written; a stage folder may hold them (see RunDir.clear).
STAGING_PREFIX = "_staging-"
log = logging.getLogger(__name__)


# What to do when a write fails for one of these reasons (errno → the advice in its error line).
WRITE_FIXES = {errno.ENOSPC: "free space there or choose a target on another disk",
               errno.EDQUOT: "free space there or choose a target on another disk",
               errno.EROFS: "the file system is read-only: choose a writable target",
               errno.EACCES: "you may not write there: choose a target you can write to",
               errno.EPERM: "you may not write there: choose a target you can write to"}


def special_kind(mode):
    """What a file of this st_mode is when it is not a regular file or folder ('a FIFO', …), else None."""
    kinds = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), None)


def refuse_special(path, option="input"):
    """InputError unless the local `path` (symlinks followed) is a regular file or a folder, or does not exist: a
    FIFO, device or socket is refused before anything opens it (reading one would hang or never end)."""
    if "://" in str(path):
        return path
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return path  # the reader names a missing or unreadable path
    kind = special_kind(mode)
    if kind:
        raise InputError(f"{option} {path}: is {kind}, not a regular file or folder; give a regular file "
                         "(nothing was read)")
    return path


def open_input(path, mode="rb", *, encoding=None, newline=None, compression_type="uncompressed"):
    """The one way an input is opened for reading: a local path only when it is a regular file (checked on the open
    descriptor, without blocking, so a FIFO is refused at once, never waited on); a URL through Beam FileSystems."""
    if "://" in str(path):
        from apache_beam.io.filesystems import FileSystems

        return FileSystems.open(path, compression_type=compression_type)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
        kind = special_kind(info.st_mode)
        if kind:
            raise InputError(f"{path}: is {kind}, not a regular file; give a regular file (nothing was read)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, mode, encoding=encoding, newline=newline)
    except BaseException:
        os.close(fd)
        raise


def write_error(err, path):
    """An InputError of one line for the OSError `err` met writing `path`: the target named, and what to do."""
    fix = WRITE_FIXES.get(err.errno, "check the target and its permissions")
    return InputError(f"{path}: cannot write ({err.strerror or err}); {fix}")


@contextlib.contextmanager
def writing_to(path):
    """Turn a full disk, a read-only file system or a refused permission met while writing `path` into one line
    naming `path` (the target, never the source a copy read) and what to do."""
    try:
        yield
    except OSError as err:
        if err.errno not in WRITE_FIXES:
            raise
        raise write_error(err, path) from None


def write_atomically(path, data):
    """Write bytes (or UTF-8 text) as `path` so that readers see the old file or the whole new one, never a part.

    Local paths are written to a temporary sibling, fsynced and renamed over `path`; gs://, s3:// and other
    Beam FileSystems paths to a staging sibling, then renamed.
    """
    data = data.encode("utf-8") if isinstance(data, str) else data
    if "://" in path:
        from apache_beam.io.filesystems import FileSystems

        folder, name = path.rsplit("/", 1)
        staging = f"{folder}/{STAGING_PREFIX}{name}"
        with FileSystems.create(staging, compression_type="uncompressed") as fh:
            fh.write(data)
        if FileSystems.exists(path):
            FileSystems.delete([path])
        FileSystems.rename([staging], [path])
        return
    folder = os.path.dirname(os.path.abspath(path))
    staging = os.path.join(folder, f"{STAGING_PREFIX}{os.getpid()}.{threading.get_ident()}-{os.path.basename(path)}")
    try:
        with writing_to(path):
            os.makedirs(folder, exist_ok=True)
            with open(staging, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(staging, path)
    except BaseException:
        if os.path.exists(staging):
            os.unlink(staging)
        raise


def remove_leftovers(folder, prefixes, owner_alive=lambda name: False):
    """Delete the entries of local `folder` whose names start with one of `prefixes` and whose writer is gone
    (`owner_alive(name)` False): what a process killed mid-write (kill -9) left behind. Returns the names removed."""
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith(tuple(prefixes)) and not owner_alive(n))
    except FileNotFoundError:
        return []
    for name in names:
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
    if names:
        log.warning("%s: removed %s, left by a picforge process that was killed", folder, ", ".join(names))
    return names


def pid_alive(name):
    """True when the process whose id follows `-pid` in `name` (as `pid_tag` writes it) is still running."""
    found = re.search(r"-pid(\d+)-", name)
    if found is None:
        return False
    try:
        os.kill(int(found.group(1)), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def pid_tag():
    """The tag naming this process in a staging name (`-pid1234-`), which `pid_alive` reads back."""
    return f"-pid{os.getpid()}-"


def read_json(path, fix):
    """The JSON document at `path`; an undecodable one is an InputError naming the file, line and `fix`."""
    with open_input(path) as fh:
        data = fh.read()
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as err:
        raise InputError(f"{path}: byte {err.start}: not UTF-8 text; {fix}") from None
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: line {err.lineno}: not valid JSON ({err.msg}); {fix}") from None


def read_jsonl(path, fix):
    """The records of a JSON Lines file (blank lines skipped); a line that is not JSON is an InputError naming the
    file, line and `fix`."""
    records = []
    with open_input(path) as fh:
        for line_no, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line.decode("utf-8-sig")))
            except (UnicodeDecodeError, json.JSONDecodeError) as err:
                raise InputError(f"{path}: line {line_no}: not valid JSON ({getattr(err, 'msg', err)}); {fix}") from None
    return records
