"""Peak RSS of `picforge` refusing oversized untrusted input (issue 44 classes 4 and 6), beside the figures the
issue's probe measured before the bounds: a 500 MB line in `--stsb`, a WiC zip with a 1 GB member, a 400 MB LLM
answer; and, as the floor, the same command refusing a small oversized input the same way (for the LLM, the same
command answered by a well-behaved server).

`python bench/untrusted_input_memory.py` (a few minutes; writes ~10 MB in a temporary folder: the long line is a
sparse file, the 1 GB member is deflated as it is written)."""
import os
import pathlib
import sys
import tempfile

import sample_paths  # noqa: F401 - puts the repository on sys.path

from picforge.bounded_read import MAX_LINE_BYTES
from picforge.resources import MAX_WIC_MEMBER_BYTES
from tests.reliability.test_bounded_reads import HUGE_LINE_BYTES, HUGE_MEMBER_BYTES, picforge_peak, with_long_line, \
    wic_with_member
from tests.reliability.test_llm_transport import Misbehaving, run_verb

ISSUE_PEAKS = {"500 MB line in --stsb": 3.6 * 2**30, "1 GB WiC member": 2.6 * 2**30, "400 MB LLM answer": 1.57 * 2**30}


def stsb_line(work, size):
    path = with_long_line(pathlib.Path(sample_paths.SHARED_DATA, "stsb", "sts-test-subset.csv"),
                          work / f"stsb-{size}.csv", size)
    return picforge_peak("stsb-context", "generate", "--offline", "--stsb", path, "--out", work / f"stsb-out-{size}")


def wic_member(work, size):
    bomb = wic_with_member(sample_paths.DEFAULT_WIC, work / f"wic-{size}.zip", "train/train.data.txt", size)
    dump = os.path.join(sample_paths.SHARED_DATA, "wiki", "enwiki-sample-5pages.xml.bz2")
    return picforge_peak("mine", "--input", dump, "--wic", bomb, "--out", work / f"run-{size}")


def llm_answer(work, mode):
    rows = work / "rows.csv"
    lines = pathlib.Path(sample_paths.SHARED_DATA, "stsb", "sts-test-subset.csv").read_text(encoding="utf-8")
    rows.write_text(lines.splitlines()[1] + "\n", encoding="utf-8")
    server = Misbehaving(mode).start()
    try:
        return run_verb(["stsb-context", "generate", "--stsb", rows, "--out", work / f"llm-{mode}", "--max-retries", "0"],
                        server, work)
    finally:
        server.stop()


def main():
    os.environ.setdefault("PICFORGE_SHARED_DATA", sample_paths.SHARED_DATA)
    with tempfile.TemporaryDirectory() as folder:
        work = pathlib.Path(folder)
        cases = {"500 MB line in --stsb": (lambda: stsb_line(work, 2 * MAX_LINE_BYTES),
                                           lambda: stsb_line(work, HUGE_LINE_BYTES)),
                 "1 GB WiC member": (lambda: wic_member(work, MAX_WIC_MEMBER_BYTES + 2**20),
                                     lambda: wic_member(work, HUGE_MEMBER_BYTES)),
                 "400 MB LLM answer": (lambda: llm_answer(work, "good"), lambda: llm_answer(work, "huge"))}
        print(f"{'case':<24}{'exit':>5}{'peak RSS':>12}{'floor':>12}{'before (issue)':>16}")
        for name, (floor, case) in cases.items():
            floor_peak = floor()[2]
            code, err, peak = case()
            print(f"{name:<24}{code:>5}{peak / 2**20:>9.0f} MB{floor_peak / 2**20:>9.0f} MB"
                  f"{ISSUE_PEAKS[name] / 2**20:>13.0f} MB")
            print(f"  {err.strip().splitlines()[-1][:160] if err.strip() else '(no error line)'}", file=sys.stderr)


if __name__ == "__main__":
    main()
