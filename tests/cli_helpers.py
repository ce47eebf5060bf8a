"""`picforge ARGS…` from a test: in this process (the exit code) or in a child process (code, stdout, stderr); every
verb picforge registers, with its parser."""
import argparse
import os
import subprocess
import sys

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
