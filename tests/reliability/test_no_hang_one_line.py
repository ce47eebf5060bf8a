"""Issue 44, classes 3 and 8, through `picforge`: every input is opened only when it is a regular file (a FIFO is
refused at once, never waited on), and every failure takes one error path: a damaged or unwritable store, a full
disk or a read-only target is one line naming the path and what to do; read-only verbs create nothing; an empty
input is refused; an unsupported URL scheme is refused as the options are parsed; a sheet's bad byte is named at its
offset in the file, and --encoding is honoured."""
import argparse
import codecs
import os
import shutil
import subprocess
import threading

import pytest

from picforge import cli
from picforge.paths import declared_output
from tests.cli_helpers import picforge_in_child, verbs
from tests.pipeline.test_download import DumpServer, serve
from tests.reliability.test_destructive_paths import tree_digest
from tests.reliability.test_guard_by_identity import ledger_run
from tests.reliability.test_output_guard import argv_writing
from tests.test_cli import a_release

HANG_S = 60  # a reader still blocked on the FIFO after this long gets an end of file, and the test fails


@pytest.fixture
def fifo(tmp_path):
    """A FIFO no one writes; a watchdog ends any reader that opened it after HANG_S (so a hang fails, not stalls)."""
    path = tmp_path / "pipe"
    os.mkfifo(path)
    done = threading.Event()

    def unblock():
        if not done.wait(HANG_S):
            with open(path, "wb"):
                pass

    watchdog = threading.Thread(target=unblock, daemon=True)
    watchdog.start()
    yield path
    done.set()


def mounted(folder, size, read_only=False):
    """Mount a tmpfs of `size` at `folder` (root only; else skip naming why); returns its unmount."""
    folder.mkdir()
    options = f"size={size}" + (",ro" if read_only else "")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"needs a tmpfs mounted as root to fill a real disk ({done.stderr.strip()})")
    return lambda: subprocess.run(["umount", "-l", str(folder)], check=True)


@pytest.fixture
def full_disk(tmp_path):
    """A real file system (tmpfs, 256 KiB) with every block taken but a few hundred bytes."""
    folder = tmp_path / "full"
    unmount = mounted(folder, "256k")
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    yield folder
    unmount()


@pytest.fixture
def read_only_disk(tmp_path):
    """A real read-only file system (an empty tmpfs mounted ro)."""
    folder = tmp_path / "ro"
    unmount = mounted(folder, "4m", read_only=True)
    yield folder
    unmount()


def one_line(argv, capsys):
    """Run `picforge argv` here: (exit code, its one error line); more than one line fails the test."""
    code = cli.main([str(a) for a in argv])
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) <= 1 and "Traceback" not in err and "[SQL" not in err, err
    return code, err


def test_a_fifo_as_any_input_of_any_verb_is_refused_at_once(tmp_path, fifo, capsys):
    run = ledger_run(tmp_path / "run")
    release = a_release(tmp_path / "rel")
    refused = []
    for words, parser in verbs():
        for action in parser._actions:
            takes_path = action.option_strings and action.nargs not in (0,) and action.choices is None and (
                action.type in (None, str) or getattr(action.type, "existing", None))
            if not takes_path or declared_output(action) or isinstance(action, argparse._HelpAction):
                continue
            argv = argv_writing(words, parser, action, run, str(fifo), release)
            try:
                code = cli.main(argv)
            except SystemExit as exit_:  # argparse refused another argument of the line
                code = exit_.code
            err = capsys.readouterr().err
            assert code == 2, (argv, code, err)
            if "FIFO" in err or "not a regular file" in err or ": a file; give" in err:
                refused.append(" ".join(words + [action.option_strings[0]]))
    assert len(refused) >= 40, refused  # --sheets, --gold, --reject, --stsb, --predictions, --phrases, --input…
    for verb in ("annotate ingest expert --sheets", "annotate mturk export --gold", "release evaluate --predictions"):
        assert verb in refused, verb


def test_the_issue_fifos_are_refused_in_a_child_process_without_waiting(tmp_path, fifo):
    run = ledger_run(tmp_path / "run")
    for argv in (["annotate", "ingest", "expert", "--run", run, "--no-grammar", "--sheets", fifo],
                 ["annotate", "mturk", "export", "--run", run, "--batch", "b9", "--gold", fifo]):
        code, _, err = picforge_in_child(*argv, timeout=HANG_S)
        assert code == 2 and f"{fifo}: is a FIFO" in err and len(err.strip().splitlines()) == 1, err


def test_a_fifo_in_place_of_a_stage_file_is_refused(annotated_103, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(annotated_103, run)
    part = next((run / "select").glob("part-*.parquet"))
    part.unlink()
    os.mkfifo(part)
    code, _, err = picforge_in_child("build", "--run", run, "--out", tmp_path / "rel", timeout=HANG_S)
    assert code == 2 and f"{part}: is a FIFO" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "rel").exists()


def test_a_damaged_or_unwritable_ledger_is_one_line_naming_it(tmp_path, capsys):
    run = ledger_run(tmp_path / "run")
    ledger = run / "ledger.sqlite"
    ledger.write_bytes(b"these bytes are no SQLite database, but a file someone copied here\n" * 20)
    for argv in (["annotate", "report", "--run", run], ["annotate", "cancel-batch", "--run", run, "--batch", "b1"],
                 ["annotate", "export", "final", "--run", run], ["mcphrasy", "agreement", "--run", run]):
        code, err = one_line(argv, capsys)
        assert code == 2 and str(ledger) in err and "restore it from a backup" in err, (argv, err)


def test_a_full_disk_or_a_read_only_target_names_the_target_and_leaves_no_part(tmp_path, full_disk, read_only_disk,
                                                                           capsys):
    run = ledger_run(tmp_path / "run")
    target = full_disk / "report.md"
    code, err = one_line(["annotate", "report", "--run", run, "--out", target], capsys)
    assert code == 2 and f"{target}: cannot write (No space left on device); free space there" in err, err
    assert sorted(os.listdir(full_disk)) == ["filler"]  # no 0-byte report, no staging file
    target = read_only_disk / "report.md"
    code, err = one_line(["annotate", "report", "--run", run, "--json", target], capsys)
    assert code == 2 and f"{target}: cannot write (Read-only file system)" in err, err
    # The ledger on a read-only file system: the write is one line naming it, without the SQL statement.
    subprocess.run(["mount", "-o", "remount,rw", str(read_only_disk)], check=True)
    shutil.copy(run / "ledger.sqlite", read_only_disk / "ledger.sqlite")
    subprocess.run(["mount", "-o", "remount,ro", str(read_only_disk)], check=True)
    code, err = one_line(["annotate", "cancel-batch", "--run", run, "--batch", "b1", "--ledger",
                          f"sqlite:///{read_only_disk / 'ledger.sqlite'}"], capsys)
    assert code == 2 and str(read_only_disk / "ledger.sqlite") in err and "cannot be written" in err, err


def test_read_only_verbs_create_nothing(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    for argv in (["annotate", "report", "--run", empty], ["annotate", "trace", "--run", empty, "--id", "x-1"],
                 ["mcphrasy", "agreement", "--run", empty]):
        code, err = one_line(argv, capsys)
        assert code == 2 and "no ledger there" in err and "nothing was created" in err, (argv, err)
    assert os.listdir(empty) == []


def test_unsupported_url_schemes_are_refused_as_the_options_are_parsed(tmp_path, capsys, enwiki_sample, wic_zip):
    run = ledger_run(tmp_path / "run")
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("batch_id,triplet_id,Q1,Q2,Q3\n")
    for argv, option in (
            (["release", "publish", "--release", a_release(tmp_path / "rel"), "--to", f"file://{tmp_path}/pub", "--live"], "--to"),
            (["annotate", "ingest", "expert", "--run", run, "--sheets", sheet, "--languagetool", "file:///etc/passwd"],
             "--languagetool"),
            (["mine", "--input", enwiki_sample, "--wic", wic_zip, "--out", tmp_path / "mined", "--categories-from-api",
              "--categories-api-url", f"file://{tmp_path}/api.php"], "--categories-api-url")):
        code, err = one_line(argv, capsys)
        assert code == 2 and f"{option} file://" in err and "is not supported here" in err, err
    assert not (tmp_path / "mined").exists() and not (tmp_path / "pub").exists()


def test_a_bom_sheet_with_one_cp1252_byte_is_named_at_its_offset_and_encoding_is_honoured(stsb_file, tmp_path,
                                                                                          capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unused")
    rows = stsb_file.read_text(encoding="utf-8").splitlines()[1:4]
    data = codecs.BOM_UTF8 + "\n".join(rows).encode("utf-8") + b"\n"
    offset = data.index(b"\n") + 1 + data[data.index(b"\n") + 1:].index(b"\t") + 1  # line 2, second column
    data = data[:offset] + b"\xe9" + data[offset:]
    stsb = tmp_path / "sts-bom.tsv"
    stsb.write_bytes(data)
    code, err = one_line(["stsb-context", "generate", "--stsb", stsb, "--out", tmp_path / "a", "--offline"], capsys)
    assert code == 2 and f"{stsb}: line 2: byte 0xe9 is not UTF-8 (at byte offset {offset} of the file" in err, err
    code, err = one_line(["--encoding", "cp1252", "stsb-context", "generate", "--stsb", stsb, "--out", tmp_path / "b",
                          "--offline"], capsys)
    assert "byte 0x" not in err and "cp1252" not in err, err  # read as cp1252: it goes on to the (offline) cache


def test_an_empty_input_is_refused(release_103, tmp_path, capsys):
    before = tree_digest(release_103)
    for content in (b"", b"\n\n"):
        predictions = tmp_path / "empty.jsonl"
        predictions.write_bytes(content)
        code, err = one_line(["release", "evaluate", "--release", release_103, "--predictions", predictions, "--config", "PR-pass",
                              "--split", "test"], capsys)
        assert code == 2 and str(predictions) in err and ("empty file" in err or "no records" in err), err
    assert tree_digest(release_103) == before


def test_build_and_publish_on_a_full_disk_name_their_target_and_leave_nothing(annotated_103, release_103, full_disk):
    for argv, target in ((["build", "--run", annotated_103, "--out", full_disk / "rel"], full_disk / "rel"),
                         (["release", "publish", "--release", release_103, "--to", full_disk / "pub", "--live"],
                          full_disk / "pub")):
        code, _, err = picforge_in_child(*argv)
        assert code == 2 and f"{target}: cannot write (No space left on device); free space there" in err, err
        assert len(err.strip().splitlines()) == 1 and str(release_103) not in err, err
        assert sorted(os.listdir(full_disk)) == ["filler"]  # the staging folder went too


def test_a_dump_download_onto_a_full_disk_names_the_cache_file(full_disk, wic_zip, tmp_path, capsys):
    server = serve(DumpServer(os.urandom(256 * 1024)))
    try:
        code, err = one_line(["mine", "--input", server.url(), "--wic", wic_zip, "--out", tmp_path / "run",
                              "--cache-dir", full_disk], capsys)
    finally:
        server.shutdown()
    assert code == 2 and f"{full_disk}" in err and ".part: cannot write (No space left on device)" in err, err
    assert "free space there" in err
