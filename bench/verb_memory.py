"""Peak memory of the verbs that read a whole mined run or dump — `picforge pearl build`, `picforge mcphrasy
contexts` and `picforge cosimlex candidates --run RUN` — as the input grows: the dump repeated 1×, 4× and 16× (fresh
page ids and titles, same text), one worker of the DirectRunner.

Each scaled dump is mined once (untimed; every verb reads the mined run). Each verb then runs in a fresh
process (bench/verb_child.py), once per measure:
- `rss`: the RSS of its whole process tree, sampled every 0.2 s, with MALLOC_ARENA_MAX=2 (--malloc-arena-max);
- `heap`: the peak of the Python heap (tracemalloc, which also sees numpy's arrays; it slows Python about twofold).
Both runs also give the peak of Arrow's memory pool. A least-squares line over the scales gives each measure's
growth in MiB per GB of input XML; with --repeat, each run is repeated and the spread at one scale is the noise.

    python bench/verb_memory.py [--input DUMP] [--wic WIC_ZIP] [--scales 1 4 16] [--verbs pearl mcphrasy cosimlex]
        [--measures rss heap] [--repeat 1] [--malloc-arena-max 2] [--heap-top N] [--phrases FILE] [--pairs FILE]
        [--work DIR] [--json FILE]
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

BOUND_MIB_PER_GB = 2000  # issue 26: peak memory growth per GB of input XML on the embedded runner
MEASURES = {"rss": "peak RSS", "heap": "peak Python heap"}
CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verb_child.py")
VERBS = ("pearl", "mcphrasy", "cosimlex")
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


def verb_arguments(verb, run, out, phrases, pairs):
    """The `picforge` arguments of one verb over the mined `run`, writing to `out`."""
    return {
        "pearl": ["pearl", "build", "--run", run, "--out", out],
        "mcphrasy": ["mcphrasy", "contexts", "--phrases", phrases, "--run", run, "--out", out],
        "cosimlex": ["cosimlex", "candidates", "--pairs", pairs, "--run", run, "--out", out],
    }[verb]


def run_verb(arguments, log_path, stop_at_bytes, measure, arena_max, heap_top):
    """Figures of one `picforge ARGUMENTS` in a fresh process: wall and CPU seconds, peak RSS of its process tree,
    and the peaks bench/verb_child.py saw (Python heap with measure "heap", Arrow's pool), in MiB."""
    figures_path = log_path + ".json"
    child_args = [figures_path] + (["--trace", "--top", str(heap_top)] if measure == "heap" else [])
    env = dict(os.environ, **({"MALLOC_ARENA_MAX": str(arena_max)} if arena_max else {}))
    cpu, wall = children_cpu(), time.perf_counter()
    with open(log_path, "w") as log:
        child = subprocess.Popen([sys.executable, CHILD, *child_args, "--", *arguments], cwd=ROOT, env=env,
                                 stdout=log, stderr=subprocess.STDOUT)
        sampler = TreeSampler(child.pid, stop_at_bytes)
        sampler.start()
        status = child.wait()
    sampler.done.set()
    sampler.join()
    if status != 0 and sampler.stopped_at is None:
        with open(log_path) as log:
            raise RuntimeError(f"picforge {' '.join(arguments)} failed ({status}):\n{log.read()[-4000:]}")
    seen = {}
    if os.path.exists(figures_path):
        with open(figures_path) as fh:
            seen = json.load(fh)
    return {"wall_s": time.perf_counter() - wall, "cpu_s": children_cpu() - cpu, "peak_mib": sampler.peak / MIB,
            "heap_mib": seen["heap_peak"] / MIB if "heap_peak" in seen else None,
            "arrow_mib": seen["arrow_peak"] / MIB if seen.get("arrow_peak", -1) >= 0 else None,
            "top": seen.get("top", []), "stopped": sampler.stopped_at is not None}


def scaled_input(source, scale, work, wic):
    """(dump, mined run, XML bytes) of `source` repeated `scale` times; both kept in `work` and reused when there."""
    dump, run = os.path.join(work, f"enwiki-{scale}x.xml.bz2"), os.path.join(work, f"run-{scale}x")
    size_file = dump + ".xml-bytes"
    if not os.path.exists(size_file):
        _, xml_bytes = write_scaled_dump(source, scale, dump)
        with open(size_file, "w") as fh:
            fh.write(str(xml_bytes))
    with open(size_file) as fh:
        xml_bytes = int(fh.read())
    run_mine(dump, wic, run)  # stages already up to date in `run` are skipped
    return dump, run, xml_bytes


def measure(args, work, pairs):
    """Figures of each verb at each scale (each measure, each repeat), the scaled dumps and mined runs made (or
    reused) in `work`."""
    rows = []
    for scale in args.scales:
        dump, run, xml_bytes = scaled_input(args.input, scale, work, args.wic)
        for verb in args.verbs:
            for kind in args.measures:
                for repeat in range(1, args.repeat + 1):
                    out = os.path.join(work, f"{verb}-{scale}x")
                    shutil.rmtree(out, ignore_errors=True)
                    arguments = verb_arguments(verb, run, out, args.phrases, pairs)
                    figures = run_verb(arguments, f"{out}-{kind}-{repeat}.log", args.stop_at_gib * 1024 * MIB, kind,
                                       args.malloc_arena_max, args.heap_top)
                    rows.append(dict(figures, verb=verb, scale=scale, xml=xml_bytes, measure=kind, repeat=repeat,
                                     arguments=arguments))
                    peak = figures["heap_mib"] if kind == "heap" else figures["peak_mib"]
                    print(f"  done: {verb}, {scale}x, {kind} #{repeat}: {figures['wall_s']:.0f} s, "
                          f"{MEASURES[kind]} {peak or 0:,.0f} MiB", flush=True)
    return rows


def mib(value):
    """A MiB figure for the table, '-' when not measured."""
    return "-" if value is None else f"{value:,.0f}"


def print_growth(kind, rows):
    """The line of one measure over the scales, its verdict, and the spread of repeats at one scale."""
    key = "heap_mib" if kind == "heap" else "peak_mib"
    xs, ys = [r["xml"] / 1e9 for r in rows], [r[key] for r in rows]
    slope, intercept = line_fit(xs, ys)
    scales = "/".join(dict.fromkeys(f"{r['scale']}x" for r in rows))
    verdict = "within" if slope <= BOUND_MIB_PER_GB else "over"
    print(f"growth of the {MEASURES[kind]}: {slope:,.0f} MiB per GB of XML (line over {scales}, {len(rows)} runs, "
          f"{intercept:,.0f} MiB at 0 GB): {verdict} the bound of {BOUND_MIB_PER_GB:,}")
    at_scale = {}
    for r in rows:
        at_scale.setdefault(r["scale"], []).append(r[key])
    spread = max(max(v) - min(v) for v in at_scale.values())
    if any(len(v) > 1 for v in at_scale.values()) and max(xs) > min(xs):
        print(f"  noise: repeats at one scale differ by up to {spread:,.0f} MiB, "
              f"{spread / (max(xs) - min(xs)):,.0f} MiB per GB over these sizes")


def print_verb(verb, rows):
    """One verb's figures per scale and measure, and each measure's growth per GB of XML."""
    rows = [r for r in rows if r["verb"] == verb]
    print(f"\n{verb}: {' '.join(rows[0]['arguments'][:2])}")
    print(f"{'measure':>8}{'scale':>6}{'XML MB':>8}{'wall s':>8}{'CPU s':>8}{'peak RSS MiB':>13}"
          f"{'peak heap MiB':>14}{'Arrow peak MiB':>15}")
    for r in rows:
        stopped = "  (stopped over the cap)" if r["stopped"] else ""
        print(f"{r['measure']:>8}{r['scale']:>5}x{r['xml'] / 1e6:>8.1f}{r['wall_s']:>8.1f}{r['cpu_s']:>8.1f}"
              f"{r['peak_mib']:>13,.0f}{mib(r['heap_mib']):>14}{mib(r['arrow_mib']):>15}{stopped}")
    for kind in MEASURES:
        if kind_rows := [r for r in rows if r["measure"] == kind]:
            print_growth(kind, kind_rows)
    for r in rows:
        if r["top"]:
            print(f"  heap near its peak, {r['scale']}x, by line:")
            for where, size, count in r["top"]:
                print(f"    {size:>9,.1f} MiB {count:>10,} blocks  {where}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", default=DEFAULT_INPUT, help="dump to repeat (default: the shared 103-page sample)")
    parser.add_argument("--wic", default=DEFAULT_WIC)
    parser.add_argument("--scales", type=int, nargs="+", default=list(SCALES))
    parser.add_argument("--verbs", nargs="+", choices=VERBS, default=list(VERBS))
    parser.add_argument("--phrases", default=DEFAULT_PHRASES, help="phrase list of `mcphrasy contexts`")
    parser.add_argument("--pairs", help="SimLex pairs of `cosimlex candidates` (default: 12 pairs of common words)")
    parser.add_argument("--measures", nargs="+", choices=MEASURES, default=list(MEASURES),
                        help="rss: peak RSS of the process tree; heap: peak of the Python heap, traced (default both)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each verb, scale and measure (default 1)")
    parser.add_argument("--malloc-arena-max", type=int, default=2,
                        help="MALLOC_ARENA_MAX of the verb's process (default 2; 0: glibc's own default)")
    parser.add_argument("--heap-top", type=int, default=0,
                        help="with the heap measure: print the N source lines holding most of the heap near its peak")
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
          f"MALLOC_ARENA_MAX: {args.malloc_arena_max or 'unset'}  CPUs: {os.cpu_count()}  "
          f"load: {os.getloadavg()[0]:.1f}", flush=True)
    try:
        rows = measure(args, work, pairs)
        print(f"load at the end: {os.getloadavg()[0]:.1f}")
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
