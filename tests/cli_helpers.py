"""`picforge ARGS…` from a test: in this process (the exit code) or in a child process (code, stdout, stderr); every
verb picforge registers, with its parser."""
import argparse
import os
import subprocess
import sys
import threading
import time

from picforge import cli
from picforge import verbs as registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def picforge(*argv):
    """`picforge ARGS…` in this process; the exit code."""
    return cli.main([str(a) for a in argv])


def picforge_in_child(*argv, timeout=900, **kwargs):
    """`picforge ARGS…` in a child process run from the repository root: (exit code, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-m", "picforge.cli", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, **kwargs)
    return done.returncode, done.stdout, done.stderr


def silences(argv):
    """(exit code, [(seconds without a line on stderr or stdout, the line that ended it)]) of `picforge argv` in a
    child process whose output is piped (off a terminal, as CI, nohup and Dataflow see it)."""
    child = subprocess.Popen([sys.executable, "-m", "picforge.cli", *map(str, argv)], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stamps = [(time.monotonic(), "(started)")]
    lock = threading.Lock()

    def read(stream):
        for line in stream:
            with lock:
                stamps.append((time.monotonic(), line.rstrip()))

    readers = [threading.Thread(target=read, args=(s,)) for s in (child.stdout, child.stderr)]
    for reader in readers:
        reader.start()
    code = child.wait(timeout=3600)
    for reader in readers:
        reader.join()
    stamps.sort()
    stamps.append((time.monotonic(), "(ended)"))
    return code, [(b[0] - a[0], f"{a[1]} -> {b[1]}") for a, b in zip(stamps, stamps[1:])]


def verb_parser(words):
    """The argparse parser `picforge WORDS…` reaches, built as the command line builds it."""
    parser = cli.build_parser(words[0])
    for word in words:
        parser = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)][0].choices[word]
    return parser


def verbs():
    """(words, parser) of every verb the registry holds (picforge.verbs), named as the core names it (its short form
    where it has one), e.g. (['annotate', 'mturk', 'gold'], its parser)."""
    return [(list(words), verb_parser(words)) for words in sorted(
        registry.canonical_words(verb) for verb in registry.every_verb())]
