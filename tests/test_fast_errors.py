"""A wrong path is reported as the command starts: before Beam, torch or spaCy are imported (they take 9-11 s)."""
import json
import os
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, SHIPPED_DATA

HEAVY = ("apache_beam", "torch", "spacy", "sentence_transformers")
# Runs the command as the console script does, then reports which heavy modules it had imported.
CHILD = ("import json, sys\nfrom picforge.cli import main\ncode = main(sys.argv[1:])\n"
         f"print(json.dumps({{'code': code, 'heavy': [m for m in {HEAVY!r} if m in sys.modules]}}))")


@pytest.mark.parametrize("argv, message", [
    (["build", "--run", "runs/nope", "--out", "{tmp}/release"], "--run runs/nope: no such run directory"),
    (["mine", "--input", str(SHIPPED_DATA / "enwiki-sample-103pages.xml.bz2"), "--wic", "{tmp}/WiC.zip", "--out",
      "{tmp}/run"], "{tmp}/WiC.zip: no such path; give the official WiC_dataset.zip"),
    (["release", "evaluate", "--release", "{tmp}/no-release"], "{tmp}/no-release: no such path; give the release folder"),
    (["annotate", "report", "--run", "{tmp}/no-run"], "--run {tmp}/no-run: no such run directory"),
])
def test_a_wrong_path_is_reported_before_heavy_imports(tmp_path, argv, message):
    argv = [arg.format(tmp=tmp_path) for arg in argv]
    started = time.monotonic()
    child = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=ROOT, capture_output=True, text=True,
                           timeout=60)
    seconds = time.monotonic() - started
    assert message.format(tmp=tmp_path) in child.stderr
    assert json.loads(child.stdout.splitlines()[-1]) == {"code": 2, "heavy": []}
    # Under 2 s on an idle core; a machine busier than its cores stretches every process alike.
    crowding = max(1.0, os.getloadavg()[0] / os.cpu_count())
    assert seconds < 2 * crowding, f"{argv[0]} took {seconds:.1f} s to report a wrong path (load x{crowding:.1f})"
