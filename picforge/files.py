"""The one atomic file write (a staging sibling renamed into place, on local disk or Beam FileSystems), and JSON
reads whose errors name the file and line."""
import contextlib
import json
import logging
import os
import re
import shutil
import threading

from picforge.errors import InputError

# Names of files being written; a stage folder may hold them (see RunDir.clear).
STAGING_PREFIX = "_staging-"
log = logging.getLogger(__name__)


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
    os.makedirs(folder, exist_ok=True)
    staging = os.path.join(folder, f"{STAGING_PREFIX}{os.getpid()}.{threading.get_ident()}-{os.path.basename(path)}")
    try:
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
    with open(path, "rb") as fh:
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
    with open(path, "rb") as fh:
        for line_no, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line.decode("utf-8-sig")))
            except (UnicodeDecodeError, json.JSONDecodeError) as err:
                raise InputError(f"{path}: line {line_no}: not valid JSON ({getattr(err, 'msg', err)}); {fix}") from None
    return records
