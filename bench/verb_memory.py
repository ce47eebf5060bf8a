"""Peak RSS of the verbs that read a whole mined run or dump — `picforge pearl build`, `picforge mcphrasy contexts`
and `picforge cosimlex candidates --input DUMP` — as the input grows: the dump repeated 1×, 4× and 16× (fresh page
ids and titles, same text), one worker of the DirectRunner.

Each scaled dump is mined once (untimed; `mcphrasy` and `pearl` read the mined run). Each verb then runs as
`python -m picforge.cli VERB …` in a fresh process; the RSS of its whole process tree is sampled every 0.2 s, and
a least-squares line over the scales gives its growth in MiB per GB of input XML.

    python bench/verb_memory.py [--input DUMP] [--wic WIC_ZIP] [--scales 1 4 16] [--verbs pearl mcphrasy cosimlex]
        [--phrases FILE] [--pairs FILE] [--work DIR] [--json FILE]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from mine_child import children_cpu, run_mine
from mine_memory import MIB, SCALES, TreeSampler, line_fit
from sample_paths import DEFAULT_INPUT, DEFAULT_WIC, ROOT
from scaled_dump import write_scaled_dump

BOUND_MIB_PER_GB = 2000  # issue 26: peak RSS growth per GB of input XML on the embedded runner
VERBS = ("pearl", "mcphrasy", "cosimlex")
READS_RUN = {"pearl", "mcphrasy"}  # the verbs that read a mined run, not the dump
DEFAULT_PHRASES = os.path.join(ROOT, "examples", "mcphrasy-phrases.txt")
# SimLex-999 is not shipped: pairs of words the sample's articles use often, in the 3-column layout
BENCH_PAIRS = """word1\tword2\tscore
country\tnation\t9.0
city\ttown\t7.8
war\tbattle\t8.2
river\tlake\t4.1
king\tqueen\t5.9
island\tocean\t3.5
mountain\thill\t7.1
army\tsoldier\t6.5
government\tparliament\t4.0
child\tadult\t5.2
language\tword\t5.0
year\tcentury\t5.8
"""


def verb_arguments(verb, run, dump, out, phrases, pairs):
    """The `picforge` arguments of one verb over the mined `run` (or the `dump` itself), writing to `out`."""
    return {
        "pearl": ["pearl", "build", "--run", run, "--out", out],
        "mcphrasy": ["mcphrasy", "contexts", "--phrases", phrases, "--corpus", run, "--out", out],
        "cosimlex": ["cosimlex", "candidates", "--pairs", pairs, "--input", dump, "--out", out],
    }[verb]


def run_verb(arguments, log_path, stop_at_bytes):
    """Figures of one `picforge ARGUMENTS` in a fresh process: wall and CPU seconds, peak RSS of its process tree."""
    cpu, wall = children_cpu(), time.perf_counter()
    with open(log_path, "w") as log:
        child = subprocess.Popen([sys.executable, "-m", "picforge.cli", *arguments], cwd=ROOT, stdout=log,
                                 stderr=subprocess.STDOUT)
        sampler = TreeSampler(child.pid, stop_at_bytes)
        sampler.start()
        status = child.wait()
    sampler.done.set()
    sampler.join()
    if status != 0 and sampler.stopped_at is None:
        with open(log_path) as log:
            raise RuntimeError(f"picforge {' '.join(arguments)} failed ({status}):\n{log.read()[-4000:]}")
    return {"wall_s": time.perf_counter() - wall, "cpu_s": children_cpu() - cpu, "peak_mib": sampler.peak / MIB,
            "stopped": sampler.stopped_at is not None}


def scaled_input(source, scale, work, wic, mine):
    """(dump, mined run, XML bytes) of `source` repeated `scale` times; both kept in `work` and reused when there."""
    dump, run = os.path.join(work, f"enwiki-{scale}x.xml.bz2"), os.path.join(work, f"run-{scale}x")
    size_file = dump + ".xml-bytes"
    if not os.path.exists(size_file):
        _, xml_bytes = write_scaled_dump(source, scale, dump)
        with open(size_file, "w") as fh:
            fh.write(str(xml_bytes))
    with open(size_file) as fh:
        xml_bytes = int(fh.read())
    if mine:
        run_mine(dump, wic, run)  # stages already up to date in `run` are skipped
    return dump, run, xml_bytes


def measure(args, work, pairs):
    """Figures of each verb at each scale, the scaled dumps and mined runs made (or reused) in `work`."""
    rows = []
    for scale in args.scales:
        dump, run, xml_bytes = scaled_input(args.input, scale, work, args.wic, READS_RUN & set(args.verbs))
        for verb in args.verbs:
            out = os.path.join(work, f"{verb}-{scale}x")
            shutil.rmtree(out, ignore_errors=True)
            arguments = verb_arguments(verb, run, dump, out, args.phrases, pairs)
            figures = run_verb(arguments, out + ".log", args.stop_at_gib * 1024 * MIB)
            rows.append(dict(figures, verb=verb, scale=scale, xml=xml_bytes, arguments=arguments))
            print(f"  done: {verb}, {scale}x: {figures['wall_s']:.0f} s, peak {figures['peak_mib']:,.0f} MiB",
                  flush=True)
    return rows


def print_verb(verb, rows):
    """One verb's figures per scale and its growth per GB of XML."""
    rows = [r for r in rows if r["verb"] == verb]
    print(f"\n{verb}: {' '.join(rows[0]['arguments'][:2])}")
    print(f"{'scale':>6}{'XML MB':>8}{'wall s':>8}{'CPU s':>8}{'peak RSS MiB':>13}")
    for r in rows:
        stopped = "  (stopped over the cap)" if r["stopped"] else ""
        print(f"{r['scale']:>5}x{r['xml'] / 1e6:>8.1f}{r['wall_s']:>8.1f}{r['cpu_s']:>8.1f}{r['peak_mib']:>13,.0f}{stopped}")
    slope, intercept = line_fit([r["xml"] / 1e9 for r in rows], [r["peak_mib"] for r in rows])
    scales = "/".join(f"{r['scale']}x" for r in rows)
    verdict = "within" if slope <= BOUND_MIB_PER_GB else "over"
    print(f"growth: {slope:,.0f} MiB per GB of XML (line over {scales}, "
          f"{intercept:,.0f} MiB at 0 GB): {verdict} the bound of {BOUND_MIB_PER_GB:,}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", default=DEFAULT_INPUT, help="dump to repeat (default: the shared 103-page sample)")
    parser.add_argument("--wic", default=DEFAULT_WIC)
    parser.add_argument("--scales", type=int, nargs="+", default=list(SCALES))
    parser.add_argument("--verbs", nargs="+", choices=VERBS, default=list(VERBS))
    parser.add_argument("--phrases", default=DEFAULT_PHRASES, help="phrase list of `mcphrasy contexts`")
    parser.add_argument("--pairs", help="SimLex pairs of `cosimlex candidates` (default: 12 pairs of common words)")
    parser.add_argument("--stop-at-gib", type=float, default=10, help="kill a run whose RSS passes this (default 10)")
    parser.add_argument("--work", help="folder for the dumps, mined runs and verb outputs (kept, and its dumps and "
                                       "mined runs reused by a later call; default a temporary folder, removed)")
    parser.add_argument("--json", help="also write every figure to this file")
    args = parser.parse_args(argv)
    for path in (args.input, args.wic):
        if not os.path.exists(path):
            parser.error(f"{path}: not found (set PICFORGE_SHARED_DATA or pass --input/--wic)")
    work = args.work or tempfile.mkdtemp(prefix="verb-memory-")
    os.makedirs(work, exist_ok=True)
    pairs = args.pairs or os.path.join(work, "pairs.txt")
    if not args.pairs:
        with open(pairs, "w", encoding="utf-8") as fh:
            fh.write(BENCH_PAIRS)
    print(f"input: {args.input} repeated {'/'.join(f'{s}x' for s in args.scales)}  DirectRunner, 1 worker  "
          f"CPUs: {os.cpu_count()}  load: {os.getloadavg()[0]:.1f}", flush=True)
    try:
        rows = measure(args, work, pairs)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    for verb in args.verbs:
        print_verb(verb, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
