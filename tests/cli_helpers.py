"""`picforge ARGS…` from a test: in this process (the exit code) or in a child process (code, stdout, stderr); every
verb picforge registers, with its parser."""
import argparse
import os
import subprocess
import sys

from picforge import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def picforge(*argv):
    """`picforge ARGS…` in this process; the exit code."""
    return cli.main([str(a) for a in argv])


def picforge_in_child(*argv, timeout=900, **kwargs):
    """`picforge ARGS…` in a child process run from the repository root: (exit code, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-m", "picforge.cli", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, **kwargs)
    return done.returncode, done.stdout, done.stderr


def verbs():
    """(words, parser) of every verb picforge registers, e.g. (['annotate', 'mturk', 'gold'], its parser)."""
    found = []

    def walk(parser, words):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or not subs[0].required:  # a command that runs without a verb (`stsb-context`) is a verb too
            found.append((words, parser))
        for sub in subs:
            for name, child in sub.choices.items():
                walk(child, words + [name])

    for command in cli.commands():
        top = cli.build_parser(command)
        walk([a for a in top._actions if isinstance(a, argparse._SubParsersAction)][0].choices[command], [command])
    return found
