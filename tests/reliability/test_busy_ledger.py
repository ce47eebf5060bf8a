"""A second command on a ledger another process is writing waits its turn with a message, or gives up with one
line: never a SQLAlchemy traceback."""
import os
import subprocess
import sys

from picforge import ledger
from picforge import cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOLD = ("import sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('BEGIN IMMEDIATE')\n"
        "print('holding', flush=True)\n"
        "sys.stdin.readline()\n"
        "conn.execute('COMMIT')\n")


def hold_ledger(run):
    """A real process holding the run's SQLite ledger in a write transaction until a line arrives on its stdin."""
    ledger.Ledger.for_run(str(run)).dispose()  # the file and its tables exist, as after any earlier command
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(run / ledger.LEDGER_FILE)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "holding"
    return holder


def test_a_second_command_waits_for_a_busy_ledger_and_says_so(tmp_path):
    run = tmp_path / "run"
    holder = hold_ledger(run)
    second = subprocess.Popen([sys.executable, "-m", "picforge.cli", "annotate", "report", "--run", str(run)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = next(line for line in iter(second.stderr.readline, "") if "ledger" in line)
        assert "another picforge command is writing to the ledger; waiting" in said
    finally:
        holder.communicate("done\n")  # the first command finishes; the second goes on
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert "Traceback" not in err and "# Annotation report" in out


def test_a_ledger_busy_too_long_is_one_line(tmp_path, monkeypatch, capsys):
    run = tmp_path / "run"
    monkeypatch.setattr(ledger, "BUSY_WAIT_SECONDS", 1)
    holder = hold_ledger(run)
    try:
        code = cli.main(["annotate", "report", "--run", str(run)])
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err
    assert code == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("picforge: error:") and "ledger.sqlite: the ledger stayed busy for 1 s" in last
