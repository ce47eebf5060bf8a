"""The one run marker and lock: every local run a verb writes (mined, annotation, every companion's) holds
`.picforge.lock`, which names the command that writes it (`picforge mine`); while a process writes the run it holds
an exclusive flock on that file, so a second writer is refused at once (the lock goes with the process, even on
kill -9). Inside `verb_holds` (the CLI runs every verb in one) a run locked once stays locked until the verb ends."""
import contextlib
import fcntl
import os

from picforge.errors import InputError
from picforge.files import writing_to

LOCK_FILE = ".picforge.lock"
_held = {}  # real path of a locked run → its open lock file
_scope = []  # (the verb being run, whether it makes runs) while verb_holds is active


def marker(root):
    """The path of a local run's marker and lock file."""
    return os.path.join(root, LOCK_FILE)


def run_command(root):
    """The command a local run's marker names as the one that made it (`picforge mine`), or None (no marker, an
    old one, or a run a library call made)."""
    try:
        with open(marker(root), encoding="utf-8") as fh:
            return _command(fh.read(200))
    except (OSError, UnicodeDecodeError):
        return None


def _command(text):
    """`picforge COMMAND` from a marker's text (`picforge mine (pid 12)`), else None."""
    words = text.split(" (pid")[0].split()
    return " ".join(words[:2]) if len(words) >= 2 and words[0] == "picforge" and words[1][0].isalnum() else None


def acquire(root, verb):
    """Lock the local run `root` for `verb` unless this process holds it already; True when newly locked. A run
    another process writes is an InputError naming that process."""
    key = os.path.realpath(root)
    if key in _held:
        return False
    with writing_to(root):
        os.makedirs(root, exist_ok=True)
        fh = open(marker(root), "a+", encoding="utf-8")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read().strip() or "another process"
        fh.close()
        raise InputError(f"{root}: {holder} is writing this run; wait for it to finish or choose another "
                         "--out (nothing was written)") from None
    fh.seek(0)
    # the run keeps naming the command that made it: a verb that makes runs, or a library call naming itself
    maker = _command(fh.read(200)) or (_command(verb) if not _scope or _scope[1] else None) or ""
    fh.seek(0)
    fh.truncate()
    fh.write(f"{verb} (pid {os.getpid()})")
    fh.flush()
    _held[key] = (fh, maker)
    return True


def release(root):
    """Unlock a run this process holds, leaving its marker naming the command that made it."""
    fh, maker = _held.pop(os.path.realpath(root))
    fh.seek(0)
    fh.truncate()
    fh.write(maker)
    fh.close()


def in_verb():
    """The verb being run (its command words), or None outside verb_holds."""
    return _scope[0] if _scope else None


@contextlib.contextmanager
def verb_holds(verb, makes_runs):
    """Run a verb: every run it locks stays locked, naming `verb`, until it ends; a new run's marker names the verb
    as its maker only when it `makes_runs` (declares a run output), so adding a stage to a run changes no maker."""
    _scope[:] = [verb, makes_runs]
    try:
        yield
    finally:
        _scope.clear()
        for root in [os.path.dirname(fh.name) for fh, _ in _held.values()]:
            release(root)
