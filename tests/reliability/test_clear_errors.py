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

pytestmark = pytest.mark.slow
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def picforge(*argv):
    done = subprocess.run([sys.executable, "-m", "picforge.cli", *map(str, argv)], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    return done.returncode, done.stdout, done.stderr


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
    code, stdout, err = picforge("mine", "--input", dump, "--wic", wic_zip, "--out", out)
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
    code, _, err = picforge("mine", "--input", enwiki_sample_103, "--wic", wic_zip, "--out", tmp_path / "run", *flags)
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
        code, _, err = picforge(*argv)
        assert code == 2 and "picforge mine (pid" in err and "is writing this run" in err, err
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    code, stdout, err = picforge(*argv)  # the lock went with the killed process
    assert code == 0, err
    assert [t["triplet_id"] for t in RunDir(str(out)).iter_records("select")] == [
        t["triplet_id"] for t in RunDir(str(mined_103)).iter_records("select")]
