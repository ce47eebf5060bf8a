"""`picforge ARGS…` from a test: in this process (the exit code) or in a child process (code, stdout, stderr)."""
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
