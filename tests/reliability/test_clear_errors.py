"""One clear line, never a traceback: damaged page ids, a page twice, an inverted window and two `mine` processes
on one run, each driven through `picforge` as a subprocess on the real 103-page sample."""
import bz2
import os
import re
import shutil
import signal
import subprocess
import sys

import pytest

from picforge.rundir import RunDir
from tests.cli_helpers import ROOT, picforge_in_child

pytestmark = pytest.mark.slow


def test_damaged_ids_and_a_repeated_page_are_skipped_and_counted(enwiki_sample_103, wic_zip, mined_103, tmp_path):
    xml = bz2.decompress(enwiki_sample_103.read_bytes()).decode("utf-8")
    pages = re.findall(r"<page>.*?</page>", xml, re.S)
    first, repeated = pages[0], max(pages, key=len)  # the longest page is a kept article
    non_numeric = first.replace(first[first.index("<id>"):first.index("</id>") + 5], "<id>12a</id>", 1)
    huge = first.replace(first[first.index("<id>"):first.index("</id>") + 5], "<id>99999999999999999999</id>", 1)
    bad_ns = first.replace("<ns>0</ns>", "<ns>zero</ns>", 1)
    damaged = xml.replace("</mediawiki>", "\n".join([non_numeric, huge, bad_ns, repeated, "</mediawiki>"]))
    dump = tmp_path / "damaged.xml.bz2"
    dump.write_bytes(bz2.compress(damaged.encode("utf-8")))
    out = tmp_path / "run"
    code, stdout, err = picforge_in_child("mine", "--input", dump, "--wic", wic_zip, "--out", out)
    assert code == 0 and "Traceback" not in err, err
    counters = RunDir(str(out)).read_manifest("read-dump")["counters"]
    assert counters["read-dump/skipped-bad-id"] == 3 and counters["read-dump/skipped-duplicate-id"] == 1
    expected = RunDir(str(mined_103)).read_manifest("read-dump")["records"]
    assert RunDir(str(out)).read_manifest("read-dump")["records"] == expected
    assert "read-dump: skipped-bad-id 3" in err


@pytest.mark.parametrize("flags, says", [
    (["--min-similarity", "0.5", "--max-similarity", "-0.2"], "--min-similarity 0.5 is above --max-similarity -0.2"),
    (["--min-words", "30", "--max-words", "5"], "--min-words 30 is above --max-words 5"),
])
def test_an_inverted_window_is_refused_before_anything_runs(enwiki_sample_103, wic_zip, tmp_path, flags, says):
    code, _, err = picforge_in_child("mine", "--input", enwiki_sample_103, "--wic", wic_zip, "--out", tmp_path / "run",
                                     *flags)
    assert code == 2 and says in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_a_second_mine_on_the_same_run_is_refused_while_the_first_holds_it(enwiki_sample_103, wic_zip, mined_103,
                                                                            tmp_path):
    out = tmp_path / "run"
    shutil.copytree(mined_103, out)
    os.remove(out / "select" / "_manifest.json")
    argv = ["mine", "--input", str(enwiki_sample_103), "--wic", str(wic_zip), "--out", str(out)]
    first = subprocess.Popen([sys.executable, "-m", "tests.reliability.paused_mine", "before-finalise", *argv],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert first.stdout.readline().strip() == "paused at before-finalise"
        code, _, err = picforge_in_child(*argv)
        assert code == 2 and "picforge mine (pid" in err and "is writing this run" in err, err
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    code, stdout, err = picforge_in_child(*argv)  # the lock went with the killed process
    assert code == 0, err
    assert [t["triplet_id"] for t in RunDir(str(out)).iter_records("select")] == [
        t["triplet_id"] for t in RunDir(str(mined_103)).iter_records("select")]


# Every Python process started with this folder on PYTHONPATH (Beam's workers too) finds its disk full as soon as a
# Beam file sink writes into the `select` stage.
DISK_FULL_SITECUSTOMIZE = """
import errno, os
from apache_beam.io.localfilesystem import LocalFileSystem

_create = LocalFileSystem.create


class _FullDisk:
    def __init__(self, fh):
        self._fh = fh

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self._fh, name)


def _create_on_full_disk(self, path, *args, **kwargs):
    fh = _create(self, path, *args, **kwargs)
    return _FullDisk(fh) if "/select/beam-temp-" in path else fh


LocalFileSystem.create = _create_on_full_disk
"""


def test_a_full_disk_mid_stage_is_one_line_leaves_no_beam_temp_and_the_rerun_completes(enwiki_sample_103, wic_zip,
                                                                                      mined_103, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(mined_103, out)
    os.remove(out / "select" / "_manifest.json")
    full = tmp_path / "full-disk"
    full.mkdir()
    (full / "sitecustomize.py").write_text(DISK_FULL_SITECUSTOMIZE)
    argv = ["mine", "--input", enwiki_sample_103, "--wic", wic_zip, "--out", out]
    done = subprocess.run([sys.executable, "-m", "picforge.cli", *map(str, argv)], capture_output=True, text=True,
                          timeout=600, cwd=ROOT, env=dict(os.environ, PYTHONPATH=f"{full}:{ROOT}"))
    assert done.returncode == 2, done.stderr
    assert f"picforge: error: {out}: no space left on the device while writing select; free space" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(out.rglob("beam-temp-*"))
    assert RunDir(str(out)).read_manifest("pairs") is not None  # the stages completed before are kept
    code, _, err = picforge_in_child(*argv)
    assert code == 0, err
    assert [t["triplet_id"] for t in RunDir(str(out)).iter_records("select")] == [
        t["triplet_id"] for t in RunDir(str(mined_103)).iter_records("select")]


def test_a_companion_without_its_optional_extra_names_the_pip_install(mined_103, tmp_path):
    without = "import sys; sys.modules['ahocorasick'] = None; import picforge.cli; sys.exit(picforge.cli.main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", without, "mcphrasy", "contexts", "--phrases",
                           os.path.join(ROOT, "examples", "mcphrasy-phrases.txt"), "--run", str(mined_103),
                           "--out", str(tmp_path / "mc")], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("picforge: error: this command needs the optional package 'ahocorasick', which is "
                                   "not installed: pip install 'picforge[mcphrasy]' (from a clone: pip install -e "
                                   "'.[mcphrasy]')")
    assert not (tmp_path / "mc").exists()


def test_damaged_json_and_parquet_are_named_with_file_and_line(annotated_103, release_103, tmp_path):
    release = tmp_path / "rel"
    shutil.copytree(release_103, release)
    manifest = release / "MANIFEST.json"
    manifest.write_text(manifest.read_text()[:-40])
    code, _, err = picforge_in_child("release", "publish", "--release", release, "--to", tmp_path / "published")
    assert code == 2 and f"{manifest}: line " in err and "not valid JSON" in err and "Traceback" not in err
    shutil.copy(release_103 / "MANIFEST.json", manifest)
    data = release / "PSD" / "test.json"
    lines = data.read_text().splitlines(keepends=True)
    data.write_text("".join(lines[:2] + [lines[2][:25] + "\n"] + lines[3:]))
    code, _, err = picforge_in_child("release", "evaluate", "--release", release, "--baseline", "PSD")
    assert code == 2 and f"{data}: changed since the build" in err and "Traceback" not in err

    run = tmp_path / "run"
    shutil.copytree(annotated_103, run)
    [part] = (run / "select").glob("part-*.parquet")
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    code, _, err = picforge_in_child("build", "--run", run, "--out", tmp_path / "rel2")
    assert code == 2 and "Traceback" not in err
    assert f"{part}: not a readable Parquet file" in err and "redo it with `picforge mine" in err
    assert not (tmp_path / "rel2").exists()


def test_pearl_build_on_a_run_without_sentences_is_one_line(tmp_path):
    mining = RunDir(str(tmp_path / "mined"))
    mining.write_stage("sentences", [], "sentence", inputs={}, options={})
    code, _, err = picforge_in_child("pearl", "build", "--run", mining.root, "--out", tmp_path / "pearl")
    assert code == 2 and "Traceback" not in err
    assert err.strip() == (f"picforge: error: {mining.root}/sentences: the run holds no sentences, so PEARL has no "
                           "phrase to type; mine a dump with articles (`picforge mine` prints how many sentences it "
                           "kept)")
