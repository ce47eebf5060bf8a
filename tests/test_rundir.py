"""RunDir, the one stage store: schema-checked writes, the manifest last, damaged manifests redone, user files kept."""
import json
import logging
import subprocess
import sys

import pytest

from picforge.cli import main
from picforge.errors import InputError
from picforge.files import write_atomically
from picforge.rundir import MANIFEST, PARQUET_FILE, RunDir, fingerprint
from tests.cli_helpers import ROOT

ROWS = [{"page_id": page_id, "title": title, "url": f"https://en.wikipedia.org/wiki?curid={page_id}",
         "text": text, "categories": categories, "paragraphs": [text], "missing_words": [],
         "template_words_lost": []}
        for page_id, title, text, categories in ((1, "First", "First page.", ["A"]), (2, "Second", "Second.", []))]


def write(run, rows=ROWS, **extra):
    return run.write_stage("clean", rows, "page", inputs={"dump": "x"}, options={"n": 1},
                           files={"notes.md": "# notes\n"}, **extra)


def test_write_stage_writes_outputs_then_the_manifest(tmp_path):
    run = RunDir(str(tmp_path))
    manifest = write(run, report={"kept": 2})
    assert sorted(p.name for p in (tmp_path / "clean").iterdir()) == sorted([MANIFEST, PARQUET_FILE, "notes.md"])
    assert manifest == json.loads((tmp_path / "clean" / MANIFEST).read_text())
    assert manifest["records"] == 2 and manifest["files"] == [PARQUET_FILE, "notes.md"]
    assert manifest["report"] == {"kept": 2}
    assert manifest["fingerprint"] == fingerprint("clean", {"dump": "x"}, {"n": 1})
    assert run.require_records("clean") == ROWS
    assert run.up_to_date("clean", manifest["fingerprint"]) == manifest
    assert run.up_to_date("clean", "other") is None


def test_a_record_breaking_the_schema_is_refused_before_anything_is_replaced(tmp_path):
    run = RunDir(str(tmp_path))
    write(run)
    with pytest.raises(InputError, match=r"clean: record 1 breaks schema page"):
        write(run, [ROWS[0], {"page_id": "two"}])
    assert run.require_records("clean") == ROWS


def test_a_damaged_manifest_means_the_stage_is_redone(tmp_path, caplog):
    run = RunDir(str(tmp_path))
    stage_print = write(run)["fingerprint"]
    manifest = tmp_path / "clean" / MANIFEST
    manifest.write_text(manifest.read_text()[:40])  # truncated, as by a crash or a full disk
    with caplog.at_level(logging.WARNING):
        assert run.up_to_date("clean", stage_print) is None
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith(f"{manifest}: damaged manifest (Unterminated string") and line.endswith(
        "); stage clean will be redone")
    assert write(run)["fingerprint"] == stage_print
    assert run.up_to_date("clean", stage_print) is not None


def test_outputs_without_a_manifest_are_not_a_completed_stage_and_are_rewritten(tmp_path):
    run = RunDir(str(tmp_path))
    write(run)
    (tmp_path / "clean" / MANIFEST).unlink()  # killed after the outputs, before the manifest
    with pytest.raises(InputError, match="stage 'clean' has not completed"):
        run.require("clean")
    assert write(run)["records"] == 2


def test_require_names_the_command_that_makes_the_stage(tmp_path):
    run = RunDir(str(tmp_path))
    with pytest.raises(InputError) as missing:
        run.require("select")
    assert str(missing.value) == (f"{tmp_path}/select: stage 'select' has not completed in {tmp_path}: run "
                                  f"`picforge mine --input DUMP --wic WIC_ZIP --out {tmp_path}` first")
    with pytest.raises(InputError, match=f"run `picforge annotate export final --run {tmp_path}` first"):
        run.require("final_annotations")


def test_a_stage_folder_holding_user_files_is_refused_not_emptied(tmp_path):
    run = RunDir(str(tmp_path))
    (tmp_path / "clean").mkdir()
    (tmp_path / "clean" / "thesis.docx").write_text("years of work")
    with pytest.raises(InputError, match=r"clean: holds files picforge did not write \(thesis.docx\)"):
        write(run)
    assert (tmp_path / "clean" / "thesis.docx").read_text() == "years of work"


def test_mine_refuses_an_out_folder_with_user_files(tmp_path, enwiki_sample, wic_zip, capsys):
    (tmp_path / "clean").mkdir()
    (tmp_path / "clean" / "notes.txt").write_text("mine")
    assert main(["mine", "--input", str(enwiki_sample), "--wic", str(wic_zip), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds files picforge did not write (notes.txt)" in err[0]
    assert (tmp_path / "clean" / "notes.txt").read_text() == "mine"


def test_write_atomically_replaces_the_whole_file_and_leaves_no_staging_file(tmp_path):
    target = tmp_path / "sub" / "plan.json"
    write_atomically(str(target), "first")
    write_atomically(str(target), b"second")
    assert target.read_bytes() == b"second" and [p.name for p in target.parent.iterdir()] == ["plan.json"]
    assert target.stat().st_mode & 0o644 == 0o644  # readable as any new file, not 0600 like a temp file


def test_a_run_named_with_glob_characters_reads_only_itself_and_warns_of_nothing(tmp_path):
    write(RunDir(str(tmp_path / "run1")), rows=ROWS[:1])  # what "run[1]" would match as a glob
    run = str(tmp_path / "run[1]")
    write(RunDir(run))
    read = f"from picforge.rundir import RunDir; print(len(RunDir({run!r}).require_records('clean')))"
    done = subprocess.run([sys.executable, "-c", read], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.split() == [str(len(ROWS))] and "Warning" not in done.stderr, done.stderr
