"""Issue 44 class 6, through `picforge` as subprocesses: every reader of a file people give checks a byte bound per
file, line and zip member before holding it (picforge/bounded_read.py), so a 500 MB line or a 1 GB WiC member is a
one-line error naming the file and line or member, and the command's peak memory does not grow with it."""
import os
import subprocess
import sys
import zipfile

import pytest

from picforge.bounded_read import MAX_LINE_BYTES
from picforge.resources import MAX_WIC_MEMBER_BYTES
from tests.cli_helpers import ROOT

HUGE_LINE_BYTES = 500 * 2**20
HUGE_MEMBER_BYTES = 2**30


def picforge_peak(*argv):
    """`picforge ARGV` in a child process: (exit code, stderr, the child's own peak RSS in bytes)."""
    child = subprocess.Popen([sys.executable, "-m", "picforge.cli", *map(str, argv)], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = child.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, err, usage.ru_maxrss * 1024


def with_long_line(source, path, line_bytes, keep_lines=2):
    """`path`: the first `keep_lines` lines of `source`, then a line of `line_bytes` (a sparse run of zero bytes,
    so the test writes no 500 MB), then the next line of `source`."""
    lines = source.read_bytes().splitlines(keepends=True)
    with open(path, "wb") as fh:
        fh.write(b"".join(lines[:keep_lines]))
        fh.seek(line_bytes, os.SEEK_CUR)
        fh.write(b"\n" + lines[keep_lines])
    return path


def last_line(err):
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("verb", ["stsb-context generate", "cosimlex candidates"])
def test_a_500_mb_line_is_refused_naming_the_file_and_line_without_holding_it(verb, stsb_file, tmp_path):
    simlex = tmp_path / "pairs.txt"
    simlex.write_text("old new 1.5\nbank shore 4.0\ncar automobile 9.5\ncup mug 8.0\n", encoding="utf-8")
    source, option = (stsb_file, "--stsb") if verb == "stsb-context generate" else (simlex, "--pairs")
    peaks = {}
    for name, size in (("small", 2 * MAX_LINE_BYTES), ("huge", HUGE_LINE_BYTES)):
        path = with_long_line(source, tmp_path / f"{name}.txt", size)
        argv = [*verb.split(), option, path, "--out", tmp_path / f"out-{name}"]
        argv += ["--offline"] if verb == "stsb-context generate" else []
        if verb != "stsb-context generate":
            (tmp_path / "mined").mkdir(exist_ok=True)  # the pairs are read first
            argv += ["--run", tmp_path / "mined", "--scorer", "minilm"]
        code, err, peaks[name] = picforge_peak(*argv)
        assert code == 2 and "Traceback" not in err, err
        assert last_line(err).startswith(f"picforge: error: {path}: line 3 is longer than {MAX_LINE_BYTES:,} bytes")
    # the same refusal of a 256 KB line and of a 500 MB one: the command's peak memory is the same to a few MB
    assert peaks["huge"] - peaks["small"] < 32 * 2**20, peaks


def wic_with_member(wic_zip, path, member, size):
    """A copy of the official WiC zip whose `member` holds `size` bytes of tab-separated text (deflated as it is
    written: a real 1 GB member, a few MB on disk)."""
    row = b"bank\tN\t0-1\tThe bank was closed.\tShe sat on the bank.\n"
    with zipfile.ZipFile(wic_zip) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename.endswith(member):
                with target.open(info.filename, "w", force_zip64=True) as out:
                    block = row * (2**20 // len(row))
                    for _ in range(size // len(block)):
                        out.write(block)
            else:
                target.writestr(info, source.read(info))
    return path


def test_a_wic_zip_with_a_1_gb_member_is_refused_by_its_declared_size_before_it_is_read(wic_zip, enwiki_sample,
                                                                                         tmp_path):
    peaks = {}
    for name, size in (("small", MAX_WIC_MEMBER_BYTES + 2**20), ("huge", HUGE_MEMBER_BYTES)):
        bomb = wic_with_member(wic_zip, tmp_path / f"wic-{name}.zip", "train/train.data.txt", size)
        code, err, peaks[name] = picforge_peak("mine", "--input", enwiki_sample, "--wic", bomb,
                                               "--out", tmp_path / f"run-{name}")
        assert code == 2 and "Traceback" not in err, err
        assert last_line(err).startswith(f"picforge: error: {bomb}:WiC_dataset/train/train.data.txt: unpacks to ") \
            or last_line(err).startswith(f"picforge: error: {bomb}:train/train.data.txt: unpacks to "), err
        assert not (tmp_path / f"run-{name}").exists() or not any((tmp_path / f"run-{name}").rglob("*.parquet"))
    assert peaks["huge"] - peaks["small"] < 32 * 2**20, peaks
