"""Issue 44, classes 1 and 2, through `picforge`: the output guard knows files by what they are (device and inode,
every spelling of a ledger URL, $PICFORGE_LEDGER), a verb replaces in its own run only the files it wrote, and every
run a verb writes carries the one run marker and lock (picforge.runlock): a run of another kind is never an output,
`--force` included, and two writers of one run are refused."""
import os
import subprocess
import sys

import pytest

from picforge.ledger import Ledger
from picforge import cli, runlock
from picforge.paths import declared_output
from picforge.runlock import LOCK_FILE
from tests.cli_helpers import ROOT, picforge_in_child, verbs
from tests.reliability.test_destructive_paths import tree_digest
from tests.reliability.test_output_guard import argv_writing
from tests.stsb_context.openai_server import FakeOpenAI
from tests.test_cli import a_release

STSB_KEY = "sk-test-guard-key"


def ledger_run(folder):
    """A run folder holding a real SQLite ledger (what `annotate` verbs make), with one batch recorded."""
    folder.mkdir(parents=True, exist_ok=True)
    ledger = Ledger(f"sqlite:///{folder / 'ledger.sqlite'}")
    with ledger.transaction() as session:
        session.add_batch("b1", "expert", meta={"annotator": "a1"})
    ledger.dispose()
    return folder


def refused(argv, capsys, says="nothing was written"):
    """Run `picforge argv` here; assert it is refused in one line saying `says`; return the line."""
    assert cli.main([str(a) for a in argv]) == 2, argv
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err, (argv, err)
    return err


def test_a_ledger_or_input_under_another_name_is_never_an_output(tmp_path, capsys, monkeypatch):
    run = ledger_run(tmp_path / "run")
    ledger = run / "ledger.sqlite"
    outside = tmp_path / "l.sqlite"
    outside.write_bytes(ledger.read_bytes())
    link = tmp_path / "x.md"
    os.link(ledger, link)  # a hard link to the run's own ledger, outside the run
    reject = tmp_path / "reject.csv"
    reject.write_text("assignment_id,feedback\nA1,no\n")
    reject_link = tmp_path / "reject-link.csv"
    os.link(reject, reject_link)
    before = {path: path.read_bytes() for path in (ledger, outside, reject)}
    refused(["annotate", "report", "--run", run, "--out", link], capsys, "hard link")
    for url in (f"sqlite:///{outside}?timeout=5", f"sqlite+pysqlite:///{outside}", f"sqlite:///{outside}"):
        err = refused(["annotate", "report", "--run", run, "--ledger", url, "--out", outside], capsys)
        assert "is the ledger" in err, err
    monkeypatch.setenv("PICFORGE_LEDGER", f"sqlite:///{outside}?timeout=5")
    assert "PICFORGE_LEDGER" in refused(["annotate", "report", "--run", run, "--out", outside], capsys)
    monkeypatch.delenv("PICFORGE_LEDGER")
    err = refused(["annotate", "mturk", "review", "--run", run, "--batch", "b1", "--reject", reject,
                   "--out", reject_link], capsys)
    assert "under another name" in err or "hard link" in err, err
    assert {path: path.read_bytes() for path in before} == before
    assert cli.main(["annotate", "report", "--run", str(run), "--ledger", f"sqlite:///{outside}?timeout=5"]) == 0
    assert "# Annotation report" in capsys.readouterr().out  # the ledger still opens: nothing wrote over it


def test_a_verb_replaces_in_its_run_only_the_files_it_wrote(tmp_path, capsys):
    run = ledger_run(tmp_path / "run")
    batch_input = run / "mturk" / "r1" / "r1_input.csv"
    batch_input.parent.mkdir(parents=True)
    batch_input.write_text("HIT,items\n")
    err = refused(["annotate", "mturk", "review", "--run", run, "--batch", "b1", "--out", batch_input], capsys)
    assert "did not write" in err and batch_input.read_text() == "HIT,items\n"
    report = run / "reports" / "report.md"
    for _ in range(2):  # its own file: written, then replaced whole by the same verb
        assert cli.main(["annotate", "report", "--run", str(run), "--out", str(report)]) == 0
    assert report.read_text().startswith("# Annotation report")
    assert not [name for name in os.listdir(report.parent) if name != "report.md"]  # no staging file left


def test_every_declared_file_output_refuses_a_hard_link_and_a_file_of_its_run_it_did_not_write(tmp_path, capsys):
    run = ledger_run(tmp_path / "run")
    link = tmp_path / "link.out"
    os.link(run / "ledger.sqlite", link)
    release = a_release(tmp_path / "rel")
    before = tree_digest(run)
    checked = []
    for words, parser in verbs():
        for action in parser._actions:
            spec = declared_output(action)
            if spec is None or spec.kind != "file":
                continue
            places = [str(link)]
            for owned in spec.owns:  # a file already in the area the verb writes, which it did not write
                planted = run / owned / f"planted-{len(checked)}.txt"
                planted.parent.mkdir(parents=True, exist_ok=True)
                planted.write_text("someone else's\n")
                places.append(str(planted))
            for place in places:
                argv = argv_writing(words, parser, action, run, place, release)
                assert cli.main(argv) == 2, argv
                err = capsys.readouterr().err
                assert "nothing was written" in err and "Traceback" not in err, (argv, err)
                checked.append(" ".join(words + [action.option_strings[0]]))
    assert len(set(checked)) >= 8, checked  # every verb's file outputs (report, review, save, gold, evaluate…)
    assert {k: v for k, v in tree_digest(run).items() if "planted-" not in k} == before
    assert all(open(path).read() == "someone else's\n" for path in (run.glob("**/planted-*")))


@pytest.fixture
def stsb_server(monkeypatch):
    """A local OpenAI-compatible server answering every STS-B row (0.3 s a request), the key in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", STSB_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    server = FakeOpenAI({}, api_key=STSB_KEY, delay=0.3).start()
    yield server
    server.stop()


@pytest.fixture
def eight_stsb_rows(stsb_file, tmp_path):
    """Eight real STS-B test rows in the official headerless layout."""
    path = tmp_path / "sts-test.csv"
    path.write_text("\n".join(stsb_file.read_text(encoding="utf-8").splitlines()[1:9]) + "\n", encoding="utf-8")
    return path


def stsb_argv(stsb, out, server, seed):
    return [sys.executable, "-m", "picforge.cli", "stsb-context", "generate", "--stsb", str(stsb), "--out", str(out),
            "--base-url", server.base_url, "--seed", str(seed), "--concurrency", "1"]


def test_two_writers_of_one_companion_run_one_is_refused_and_the_run_is_a_run(eight_stsb_rows, stsb_server,
                                                                             tmp_path, capsys):
    out = tmp_path / "stsb"
    env = dict(os.environ, PYTHONPATH=ROOT)
    writers = [subprocess.Popen(stsb_argv(eight_stsb_rows, out, stsb_server, seed), cwd=ROOT, env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE) for seed in (1, 2)]
    results = [(writer.wait(timeout=300), writer.stderr.read()) for writer in writers]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refusal = next(err for code, err in results if code == 2)
    assert "picforge stsb-context generate (pid" in refusal and "is writing this run" in refusal, refusal
    assert (out / LOCK_FILE).read_text() == "picforge stsb-context"  # the marker names what made the run
    runlock.acquire(str(out), "picforge stsb-context (a writer in the test process)")
    try:  # a verb adding to the run it made is refused at once while another process writes the run
        code, _, err = picforge_in_child("stsb-context", "export", "validation", "--run", out, timeout=120)
    finally:
        runlock.release(str(out))
    assert code == 2 and "a writer in the test process" in err and "is writing this run" in err, err

    # The companion's run is a run: no other verb writes into it, --force included.
    mined = ledger_run(tmp_path / "mined")
    parts = sorted((out / "generations").glob("part-*.parquet"))
    assert parts
    before = tree_digest(out)
    for argv in (["annotate", "report", "--run", mined, "--out", out / "generations" / "_manifest.json"],
                 ["annotate", "mturk", "gold", "--run", mined, "--out", parts[0]],
                 ["build", "--run", mined, "--out", out, "--force"],
                 ["pearl", "build", "--run", mined, "--out", out],
                 ["mcphrasy", "groups", "--run", mined, "--out", out]):
        refused(argv, capsys)
    assert tree_digest(out) == before and (out / "cache").is_dir()
