"""An import killed half-way (SIGKILL in a subprocess) leaves the ledger as it was; re-running it gives
exactly the ledger of one clean import: nothing lost, nothing doubled."""
import os
import pathlib
import shutil
import signal
import subprocess
import sys

from picforge.ledger import Ledger
from tests.annotation.conftest import ledger_option, write_csv
from tests.annotation.test_expert import export, filled

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Runs `picforge annotate …`, killing itself with SIGKILL inside the import transaction once
# `record_answers` has been called CRASH_AFTER times.
DYING_IMPORT = """
import os, signal, sys
import picforge.cli
from picforge.ledger import LedgerSession

crash_after, calls = int(os.environ["CRASH_AFTER"]), []
record_answers = LedgerSession.record_answers

def record_then_die(self, *args, **kwargs):
    calls.append(1)
    if len(calls) > crash_after:
        os.kill(os.getpid(), signal.SIGKILL)
    return record_answers(self, *args, **kwargs)

LedgerSession.record_answers = record_then_die
sys.exit(picforge.cli.main(sys.argv[1:]))
"""


def run_import(argv, crash_after):
    env = dict(os.environ, PYTHONPATH=str(ROOT), CRASH_AFTER=str(crash_after))
    return subprocess.run([sys.executable, "-c", DYING_IMPORT, *argv], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def dump(run_dir, url, with_times=False):
    ledger = Ledger.for_run(run_dir, url)
    with ledger.read() as q:
        rows = q.dump(with_times=with_times)
    ledger.dispose()
    return rows


def exported_twin(annotate, run_dir, tmp_path, name, new_ledger_url):
    """A copy of the run directory with a ledger of its own and the same expert batches exported: (run, URL)."""
    twin_url = new_ledger_url()
    twin_run = str(tmp_path / name)
    shutil.copytree(run_dir, twin_run)
    export(annotate, twin_run, ledger_url=twin_url)
    return twin_run, twin_url


def test_killed_import_leaves_ledger_unchanged_and_rerun_matches_clean_import(annotate, run_dir, ledger_url,
                                                                              new_ledger_url, tmp_path):
    clean_run, clean_url = exported_twin(annotate, run_dir, tmp_path, "clean-run", new_ledger_url)
    out = export(annotate, run_dir)
    sheet = write_csv(tmp_path / "alice.csv", filled(f"{out}/expert-alice-001.csv"))
    before = dump(run_dir, ledger_url, with_times=True)
    argv = ["annotate", "ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", sheet]

    killed = run_import(argv, crash_after=2)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert dump(run_dir, ledger_url, with_times=True) == before     # the two rows written before the kill are gone

    assert run_import(argv, crash_after=10**6).returncode == 0
    assert annotate("ingest", "expert", "--run", clean_run, *ledger_option(clean_url), "--no-grammar", "--sheets", sheet) == 0
    after = dump(run_dir, ledger_url)
    assert after == dump(clean_run, clean_url)
    assert len(after["answers"]) == 9 and len(after["expert_annotations"]) == 3
    with_times = dump(run_dir, ledger_url, with_times=True)
    assert annotate(*argv[1:]) == 0                               # and once more: nothing changes
    assert dump(run_dir, ledger_url, with_times=True) == with_times


def test_overlapping_sheets_give_the_same_ledger_as_one_sheet(annotate, run_dir, ledger_url, new_ledger_url,
                                                              tmp_path):
    whole_run, whole_url = exported_twin(annotate, run_dir, tmp_path, "whole-run", new_ledger_url)
    out = export(annotate, run_dir)
    rows = filled(f"{out}/expert-alice-001.csv")
    first = write_csv(tmp_path / "first.csv", rows[:2])
    second = write_csv(tmp_path / "second.csv", rows[1:])
    whole = write_csv(tmp_path / "whole.csv", rows)
    for sheet in (first, second, first):
        assert annotate("ingest", "expert", "--run", run_dir, "--no-grammar", "--sheets", sheet) == 0
    assert annotate("ingest", "expert", "--run", whole_run, *ledger_option(whole_url), "--no-grammar", "--sheets", whole) == 0
    overlapping, single = dump(run_dir, ledger_url), dump(whole_run, whole_url)
    # The assignment remembers the last file name; everything else is identical.
    for rows_ in (overlapping, single):
        rows_["assignments"] = [r[:-1] for r in rows_["assignments"]]
    assert overlapping == single
