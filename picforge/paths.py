"""Where outputs may go: never over, inside or around an input, never outside the folder named."""
import os
import posixpath
import re

from picforge.errors import InputError


def _location(path):
    """A comparable form of a local path (resolved) or a URL (no trailing slash)."""
    path = str(path)
    if "://" in path:
        return path.rstrip("/")
    return os.path.realpath(os.path.abspath(path))


def overlaps(a, b):
    """True if a and b are the same place, or one lies inside the other."""
    a, b = _location(a), _location(b)
    sep = "/" if "://" in a else os.sep
    return a == b or a.startswith(b.rstrip(sep) + sep) or b.startswith(a.rstrip(sep) + sep)


def refuse_overlap(output, inputs, option="--out"):
    """InputError before anything is written if `output` is, contains or sits inside one of `inputs`
    ({what: path}); the message names both and the fix."""
    for what, path in inputs.items():
        if path and overlaps(output, path):
            a, b = _location(output), _location(path)
            relation = "is" if a == b else "sits inside" if a.startswith(b) else "contains"
            raise InputError(f"{output}: the output {relation} the {what} {path}; choose a {option} outside it "
                             "(nothing was written)")


def plain_name(name, what):
    """`name` if it is one plain path component (no '/', '\\', '..', not absolute), else InputError."""
    if not name or name in {".", ".."} or "/" in name or "\\" in name or os.path.isabs(name) or "\0" in name:
        raise InputError(f"{name!r}: a {what} must be a plain name, without '/', '\\', '..' or an absolute path")
    return name


def relative_entry(entry, where):
    """A file path listed in `where` (a manifest) if it stays inside its folder, else InputError."""
    parts = entry.replace("\\", "/").split("/")
    if not entry or entry.startswith(("/", "\\")) or posixpath.isabs(entry) or ".." in parts or ":" in parts[0]:
        raise InputError(f"{where}: entry {entry!r} points outside the release folder; rebuild the release "
                         "instead of editing its manifest")
    return entry


def glob_escape(path):
    """`path` as a FileSystems.match pattern that matches only itself ('run[1]' is a name, not a glob)."""
    return re.sub(r"([*?\[\]])", r"[\1]", path)
