"""Where outputs may go: never over, inside or around an input, never into a run or release a verb does not own.

Every output option is added with add_output, which declares it on its argparse action; `picforge.cli` passes
each parsed command line through guard_outputs before the verb runs, so no verb can skip the check.
"""
import glob
import json
import logging
import os
import posixpath
import re
import stat
import warnings
from dataclasses import dataclass
from urllib.parse import unquote

from picforge import runlock
from picforge.errors import InputError
from picforge.files import refuse_special

RELEASE_MANIFEST = "MANIFEST.json"
PRODUCER = "picforge"  # the MANIFEST.json field `producer` of every release picforge writes
STAGE_MANIFEST = "_manifest.json"
LEDGER_FILE = "ledger.sqlite"  # a run's annotation ledger (SQLite, the default)
RUN_MARKERS = (runlock.LOCK_FILE, LEDGER_FILE)
READS_FILE = ".picforge-reads.json"  # the files earlier verbs of a run read, kept in the run
LEDGER_VARIABLE = "PICFORGE_LEDGER"  # the environment variable naming the ledger's URL when --ledger is not given
# an SQLite URL of any driver (sqlite://, sqlite+pysqlite://, …): group 1 the file, without the query
SQLITE_URL = re.compile(r"^sqlite(?:\+\w+)?://(?:/([^?]*))?(?:\?.*)?$")


@dataclass(frozen=True)
class Output:
    """What an output option writes: a `file`, a `folder` of files, a `run` (stages added to a run directory) or a
    `release` (a folder replaced whole); `owns` are the sub-paths of the verb's own run it may be written under;
    `shared_with` the options that may name the same run (one the verb reads its earlier stages from)."""

    kind: str
    owns: tuple = ()
    shared_with: tuple = ()


def add_output(parser, *flags, kind, owns=(), shared_with=(), **kwargs):
    """Add an output option (argparse's add_argument arguments) declared as `kind`, so guard_outputs checks it."""
    assert kind in ("file", "folder", "run", "release"), kind
    action = parser.add_argument(*flags, **kwargs)
    action.picforge_output = Output(kind, tuple(owns), tuple(shared_with))
    return action


def declared_output(action):
    """The Output an argparse action was declared with by add_output, or None."""
    return getattr(action, "picforge_output", None)


def _location(path):
    """A comparable form of a local path (absolute, symlinks resolved) or a URL (no trailing slash)."""
    path = str(path)
    if "://" in path:
        return path.rstrip("/")
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))


def _inside(a, b):
    """True if location a lies strictly inside location b."""
    sep = "/" if "://" in b else os.sep
    return a.startswith(b.rstrip(sep) + sep)


def identity(path):
    """What a local file is, whatever its name: (st_dev, st_ino), symlinks followed; None when it does not exist."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def overlaps(a, b):
    """True if a and b are the same place, or one lies inside the other."""
    a, b = _location(a), _location(b)
    return a == b or _inside(a, b) or _inside(b, a)


def sqlite_file(url):
    """The local file an SQLite URL names, in every spelling SQLAlchemy accepts (`sqlite:///rel`, `sqlite:////abs`,
    a driver such as `sqlite+pysqlite://`, a query such as `?timeout=5`), else None (not SQLite, or in memory)."""
    found = SQLITE_URL.match(url)
    return unquote(found.group(1)) if found and found.group(1) else None


def input_locations(value):
    """The places an argument value names: a URL as text, an SQLite URL's file, or a local path and every match of
    its glob (existing ones only: what is not there cannot be written over)."""
    if not isinstance(value, str) or not value or "\0" in value:
        return []
    if SQLITE_URL.match(value):
        value = sqlite_file(value)
        if value is None:
            return []
    elif "://" in value:
        return [value.rstrip("/")] if re.match(r"^(gs|s3|hf)://", value) else []
    found = [value] if os.path.lexists(value) else []
    if glob.has_magic(value):
        found += glob.glob(value, recursive=True)
    return sorted({_location(p) for p in found})


def refuse_overlap(output, inputs, option="--out"):
    """InputError before anything is written if `output` is, contains or sits inside one of `inputs`
    ({what: path or glob}); the message names both and the fix."""
    for what, path in inputs.items():
        for place in input_locations(path) or ([_location(path)] if path else []):
            _refuse_if_overlapping(output, place, f"{what} {path}", option)


def _refuse_if_overlapping(output, place, what, option):
    where = _location(output)
    if not (where == place or _inside(where, place) or _inside(place, where)):
        return
    relation = "is" if where == place else "sits inside" if _inside(where, place) else "contains"
    raise InputError(f"{output}: the output {relation} the {what}; choose a {option} outside it "
                     "(nothing was written)")


def _refuse_same_file(output, where, inputs, option):
    """InputError when the existing local `output` is one of `inputs` under another name (same device and inode) or
    a file with more than one name, any of which an input may be (a hard link)."""
    found = identity(where)
    if found is None or os.path.isdir(where):
        return
    for place, (_, what) in inputs.items():
        if identity(place) == found:
            raise InputError(f"{output}: is the {what} under another name (the same file); choose a {option} that "
                             "names a new file (nothing was written)")
    links = os.stat(where).st_nlink
    if links > 1:
        raise InputError(f"{output}: is a hard link ({links} names for one file, which may be an input or a run's "
                         f"own file); choose a {option} that names a new file (nothing was written)")


def is_run(folder):
    """True for a local run directory: it holds picforge's run marker or ledger, or a completed stage (a run an
    earlier picforge wrote without a marker)."""
    if any(os.path.exists(os.path.join(folder, marker)) for marker in RUN_MARKERS):
        return True
    try:
        return any(os.path.isfile(os.path.join(folder, name, STAGE_MANIFEST)) for name in os.listdir(folder))
    except OSError:
        return False


def is_release(folder):
    """True for a local folder holding a MANIFEST.json (a release, picforge's or another's)."""
    return os.path.isfile(os.path.join(folder, RELEASE_MANIFEST))


def _owned(where, run, owns):
    relative = os.path.relpath(where, run).replace(os.sep, "/")
    return any(relative == sub or relative.startswith(sub + "/") for sub in owns)


def check_output(output, spec, inputs, option, own_runs=(), verb=None):
    """InputError unless `output` (an Output `spec`) may be written: it is, holds or sits in none of `inputs`
    ({location: (option, what)}), is no file an earlier verb of `own_runs` read, and lies in no release and in no
    run but one of `own_runs` under a sub-path `spec.owns`."""
    where = _location(output)
    for place, (flag, what) in inputs.items():
        if place == where and flag in spec.shared_with:
            continue  # a run reads its own earlier stages
        if _inside(where, place) and place in own_runs and _owned(where, place, spec.owns):
            continue
        _refuse_if_overlapping(output, place, what, option)
    if "://" in where:
        return
    _refuse_same_file(output, where, inputs, option)
    for run in own_runs:
        record = _reads_record(run)
        if where in record["read"] and record["written"].get(where) != verb:
            raise InputError(f"{output}: an earlier verb of the run {run} read this file; choose a {option} that "
                             "names a new file (nothing was written)")
        if spec.kind == "file" and _inside(where, run) and os.path.lexists(where) and \
                record["written"].get(where) != verb:
            raise InputError(f"{output}: a file of the run {run} that `picforge {verb}` did not write (a verb "
                             f"replaces only the files it wrote); choose a {option} that names a new file "
                             "(nothing was written)")
    if os.path.isdir(where) and spec.kind in ("file", "folder") and (is_run(where) or is_release(where)):
        raise InputError(f"{output}: is a picforge run or release folder; choose a {option} outside it "
                         "(nothing was written)")
    if spec.kind == "run" and is_release(where) or spec.kind == "release" and is_run(where):
        raise InputError(f"{output}: is a {'release' if spec.kind == 'run' else 'run'} folder, not a "
                         f"{spec.kind}; choose another {option} (nothing was written; --force does not change "
                         "this)")
    # a run of another kind is no run output, but one the verb reads and adds to (`shared_with`)
    shared = [place for place, (flag, _) in inputs.items() if flag in spec.shared_with]
    adds_to = where in shared
    writer = runlock.run_command(where) if spec.kind == "run" and not adds_to else None
    if writer and verb and writer != f"picforge {verb.split()[0]}":
        raise InputError(f"{output}: is a run `{writer}` wrote; `picforge {verb}` writes only its own kind of run: "
                         f"choose another {option} (nothing was written; --force does not change this)")
    folder = os.path.dirname(where)
    while folder != os.path.dirname(folder):
        if is_release(folder):
            raise InputError(f"{output}: sits inside the release {folder}, which only `picforge build` or `release publish` "
                             f"writes; choose a {option} outside it (nothing was written)")
        run = os.path.dirname(folder) if os.path.isfile(os.path.join(folder, STAGE_MANIFEST)) else folder
        if is_run(run) and not (run in own_runs and _owned(where, run, spec.owns)):
            places = f" (this verb writes only under {', '.join(spec.owns)} of its own run)" if spec.owns else ""
            raise InputError(f"{output}: sits inside the run {run}, whose files this verb does not write{places}; "
                             f"choose a {option} outside it (nothing was written)")
        folder = os.path.dirname(folder)


def parsed_paths(args, actions):
    """([(option, value, Output)] of the declared outputs given, {location: (option, what)} of every other argument
    value naming an existing path, glob or bucket URL) of a parsed command line."""
    outputs, inputs = [], {}
    for action in actions:
        value = getattr(args, action.dest, None)
        flag = max(action.option_strings, key=len) if action.option_strings else action.dest
        spec = declared_output(action)
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if not isinstance(item, str) or not item:
                continue
            if spec:
                outputs.append((flag, item, spec))
            else:
                for place in input_locations(item):
                    inputs.setdefault(place, (flag, f"{flag.lstrip('-').replace('_', ' ')} {item}"))
    if hasattr(args, "ledger") and not getattr(args, "ledger", None) and os.environ.get(LEDGER_VARIABLE):
        for place in input_locations(os.environ[LEDGER_VARIABLE]):  # the ledger a verb opens without --ledger
            inputs.setdefault(place, (f"${LEDGER_VARIABLE}", f"ledger ${LEDGER_VARIABLE}"))
    return outputs, inputs


def own_runs(args, outputs):
    """The local runs a verb writes into: its --run and its run outputs."""
    named = [getattr(args, "run", None)] + [value for _, value, spec in outputs if spec.kind == "run"]
    return tuple(_location(r) for r in named if isinstance(r, str) and "://" not in r)


def guard_outputs(args, actions, stages=()):
    """InputError before a verb runs if one of its inputs (every path-valued argument that is not an output) is a
    FIFO, device or socket, or if one of its declared outputs (and `stages`, [(option, place, Output)] it writes in
    its run without an option of their own) is, holds or sits in one of its inputs (globs, symlinks, hard links and
    every spelling of a ledger URL resolved), is a file an earlier verb of its run read or a file of its run it did
    not write, or lies in a run or release folder it does not own."""
    outputs, inputs = parsed_paths(args, actions)
    outputs += list(stages)
    for place, (flag, _) in inputs.items():
        refuse_special(place, flag)
    runs = own_runs(args, outputs)
    seen = {}
    for option, value, spec in outputs:
        where = _location(value)
        if where in seen:
            raise InputError(f"{value}: named by both {seen[where]} and {option}; give each output its own path")
        seen[where] = option
        check_output(value, spec, inputs, option, runs, verb_name(args))


def verb_name(args):
    """The words that name a parsed command's verb, e.g. 'annotate mturk save'."""
    return " ".join(w for w in (getattr(args, k, None) for k in ("command", "verb", "target")) if isinstance(w, str))


def _reads_record(run):
    """The local `run`'s READS_FILE: {"read": [files its verbs read], "written": {file outside the run: the verb that
    wrote it}}; the verb that wrote a file may write it again (a re-poll adds to what it saved) after a later verb
    read it, no other verb may."""
    try:
        with open(os.path.join(run, READS_FILE), encoding="utf-8") as fh:
            record = json.load(fh)
    except (OSError, ValueError):
        return {"read": [], "written": {}}
    return record if isinstance(record, dict) else {"read": record, "written": {}}


def record_reads(args, actions):
    """Add the regular files a verb that finished read (outside its run) to each of its local runs' READS_FILE, so
    no later verb writes over them, and the files it wrote, with its name."""
    outputs, inputs = parsed_paths(args, actions)
    runs = [run for run in own_runs(args, outputs) if is_run(run)]
    wrote = {_location(value): verb_name(args) for _, value, spec in outputs if spec.kind == "file"}
    for run in runs:
        record = _reads_record(run)
        files = {place for place in inputs if os.path.isfile(place) and not _inside(place, run)}
        written = {place: verb for place, verb in wrote.items() if os.path.isfile(place)}
        if not files - set(record["read"]) and written.items() <= record["written"].items():
            continue
        path = os.path.join(run, READS_FILE)
        try:
            partial = f"{path}.{os.getpid()}.partial"  # two verbs finishing at once each write their own
            with open(partial, "w", encoding="utf-8") as fh:
                json.dump({"read": sorted(set(record["read"]) | files),
                           "written": dict(sorted({**record["written"], **written}.items()))}, fh, indent=1)
            os.replace(partial, path)
        except OSError as err:  # the verb's work is done; a read-only run only loses this record
            logging.getLogger(__name__).warning("%s: the files this verb read were not recorded (%s)", path, err)


def plain_file(path, root):
    """`path` if it is a regular file with one name (no symlink, hard link, device or FIFO) and no folder between
    `root` (the release it belongs to) and it is a link; else InputError naming it."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: missing from {root}; rebuild it") from None
    what = ("a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file" if not stat.S_ISREG(info.st_mode)
            else f"a hard link ({info.st_nlink} names)" if info.st_nlink > 1 else None)
    folder = os.path.dirname(os.path.abspath(path))
    while what is None and folder.startswith(os.path.abspath(root) + os.sep):
        if os.path.islink(folder):
            path, what = folder, "a symbolic link"
        folder = os.path.dirname(folder)
    if what:
        raise InputError(f"{path}: is {what}; the release {root} may hold only plain files (a link could publish or "
                         "read a file from outside it): replace it with a copy or rebuild the release")
    return path


def plain_tree(root):
    """`root` if every entry under it is a plain file or a real folder (plain_file), else InputError naming the first
    link or special file."""
    for folder, dirs, names in os.walk(root):
        for name in sorted(names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]):
            plain_file(os.path.join(folder, name), root)
    return root


def release_leftovers(folder):
    """The files in local `folder` that replacing it with a release would lose: none for an empty folder or a release
    picforge wrote (its MANIFEST.json says `producer: picforge` and lists every other file), else every file not
    listed (all of them when there is no such manifest)."""
    found = sorted(os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/")
                   for root, dirs, names in os.walk(folder) for name in names + [d for d in dirs if
                                                                                 os.path.islink(os.path.join(root, d))])
    try:
        with open(os.path.join(folder, RELEASE_MANIFEST), encoding="utf-8") as fh:
            manifest = json.load(fh)
        listed = set(manifest["files"]) if manifest.get("producer") == PRODUCER else set()
    except (OSError, ValueError, KeyError, TypeError):
        listed = set()
    if listed:
        listed.add(RELEASE_MANIFEST)
    return [name for name in found if name not in listed]


def refuse_replacing(folder, option, *, kind="published", force=None):
    """InputError unless the local `folder` may be replaced whole: it is missing, empty or a release picforge wrote
    with nothing added, or `force` is true (None: the verb has no --force); the message names what would be lost."""
    if "://" in folder or not os.path.lexists(folder):
        return
    if not os.path.isdir(folder) or os.path.islink(folder):
        raise InputError(f"{option} {folder}: is a file or a link, not a release folder; name a new or empty folder "
                         "(nothing was moved or written)")
    lost = [] if force else release_leftovers(folder)
    if lost:
        shown = ", ".join(lost[:10]) + (f" and {len(lost) - 10} more" if len(lost) > 10 else "")
        fix = "pass --force to replace it anyway" if force is not None else "move them out"
        raise InputError(f"{option} {folder}: holds files that are not a {kind} release; {fix} or choose another "
                         f"{option} (replacing it would delete {shown}; nothing was written)")


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


# The "[[]" of an escaped "[" is the one way Beam's patterns match a "[", and Python's re, which Beam compiles them
# with, reads it as a possible nested set: a FutureWarning for every run path holding "[", about nothing.
warnings.filterwarnings("ignore", "Possible nested set", FutureWarning, r"apache_beam\.io\.filesystem")
