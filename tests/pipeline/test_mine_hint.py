"""`mine`'s closing hint: annotation's next step once a run has a ledger, without loading annotation (SQLAlchemy,
the rounds) for a run that has none."""
import json
import subprocess
import sys

from tests.conftest import ROOT

CHILD = ("import json, sys\nfrom pipeline.cli.mine import annotation_hint\nbefore = annotation_hint(sys.argv[1])\n"
         "loaded = sorted(m for m in ('sqlalchemy', 'annotation.next_step') if m in sys.modules)\n"
         "from picforge.ledger import Ledger\nLedger.for_run(sys.argv[1]).dispose()\n"
         "print(json.dumps({'fresh': before, 'loaded': loaded, 'with_ledger': annotation_hint(sys.argv[1])}))")


def test_annotation_hint_loads_annotation_only_for_a_run_with_a_ledger(tmp_path):
    child = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == 0, child.stderr
    seen = json.loads(child.stdout.splitlines()[-1])
    assert seen["fresh"] is None and seen["loaded"] == []
    assert seen["with_ledger"].startswith("next: picforge annotate ") and f"--run {tmp_path}" in seen["with_ledger"]
