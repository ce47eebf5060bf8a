"""Peak RSS of the whole `picforge mine` as the input grows: the 103-page sample repeated 1×, 4× and 16× (each
repeat of a page with a fresh page id and title, same text), one worker of the DirectRunner, in each mining mode.

Each run is `python -m picforge.cli mine` in a subprocess (with Beam's bundle log turned on, so the bench sees
which fused Beam stage is running); the RSS of its whole process tree is sampled every 0.2 s and booked to the
picforge stages of the Beam stage running at that moment. A line over the three scales gives each stage's growth
in MiB per GB of input XML, and where the whole run would reach the memory limit.

    python bench/mine_memory.py [--input DUMP] [--wic WIC_ZIP] [--scales 1 4 16] [--modes "one job" "job per stage"]
        [--limit-gib 24] [--stop-at-gib 10] [--work DIR] [--json FILE] [--detail]
"""
import argparse
import json
import multiprocessing
import os
import re
import resource
import shutil
import sys
import tempfile
import threading
import time

import psutil
from mine_child import BUNDLE_LINE, JOB_STARTED, STAGE_FINISHED, children_cpu, stage_span, tree_total, watch_mine
from sample_paths import DEFAULT_INPUT, DEFAULT_WIC
from scaled_dump import write_scaled_dump

SCALES = (1, 4, 16)
MODES = {"one job": [], "job per stage": ["--job-per-stage"]}
SAMPLE_S = 0.2
MIB = 1024 * 1024


def short_name(beam_stage, width=90):
    """A fused Beam stage's name cut to its first transforms, without Beam's reference prefixes."""
    name = re.sub(r"ref_AppliedPTransform_|ref_PCollection_|[()]", "", beam_stage)
    return name if len(name) <= width else name[:width - 1] + "…"


class TreeSampler(threading.Thread):
    """Samples the summed RSS of a process and all its descendants, booking each sample to the current label."""

    def __init__(self, pid, stop_at_bytes=None):
        super().__init__(daemon=True)
        self.process = psutil.Process(pid)
        self.stop_at_bytes = stop_at_bytes
        self.job = self.label = self.detail = "start-up"
        self.peak = 0
        self.peaks, self.detail_peaks, self.seconds = {}, {}, {}
        self.stopped_at = None
        self.jobs = []
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(SAMPLE_S):
            try:
                rss = tree_total(self.process, lambda proc: proc.memory_info().rss)
            except psutil.Error:
                return
            label, detail = self.label, self.detail
            self.peak = max(self.peak, rss)
            self.peaks[label] = max(self.peaks.get(label, 0), rss)
            self.detail_peaks[detail] = max(self.detail_peaks.get(detail, 0), rss)
            self.seconds[label] = self.seconds.get(label, 0) + SAMPLE_S
            if self.stop_at_bytes and rss > self.stop_at_bytes and self.stopped_at is None:
                self.stopped_at = label
                for proc in [*self.process.children(recursive=True), self.process]:
                    proc.kill()

    def follow(self, line):
        """Move the label on from one line of the child's log."""
        if match := BUNDLE_LINE.search(line):
            span = stage_span(match.group(1))
            self.label = span or self.job
            self.detail = f"{self.label}: {short_name(match.group(1))}"
        elif match := JOB_STARTED.search(line):
            self.job = self.label = self.detail = match.group(1).replace(", ", "+")
            self.jobs.append(self.job)
        elif STAGE_FINISHED.search(line):
            self.label = self.detail = "between jobs"


def run_mine(dump, wic, out, mode_args, stop_at_bytes):
    """Figures of one `picforge mine` run in a fresh process: wall, CPU, peak RSS overall and per label."""
    cpu, wall = children_cpu(), time.perf_counter()
    sampler, status, tail = watch_mine(["--input", dump, "--wic", wic, "--out", out, *mode_args],
                                       lambda pid: TreeSampler(pid, stop_at_bytes))
    if status != 0 and sampler.stopped_at is None:
        raise RuntimeError(f"picforge mine failed ({status}):\n{''.join(tail)}")
    return {"wall_s": time.perf_counter() - wall, "cpu_s": children_cpu() - cpu, "peak_mib": sampler.peak / MIB,
            "stages": {k: v / MIB for k, v in sampler.peaks.items()}, "seconds": sampler.seconds,
            "detail": {k: v / MIB for k, v in sampler.detail_peaks.items()}, "stopped_at": sampler.stopped_at,
            "jobs": sampler.jobs}


def isolated_jobs(dump, wic, out, mode_args, jobs, stop_at_bytes):
    """{job: peak RSS MiB} of each job of a finished run rerun alone in a fresh process: its first stage's
    manifest is removed, so `mine` redoes that job and skips the others (their fingerprints are unchanged)."""
    from picforge.rundir import RunDir

    peaks = {}
    for job in jobs:
        os.remove(RunDir(out).manifest_path(job.split("+")[0]))
        peaks[job] = run_mine(dump, wic, out, mode_args, stop_at_bytes)["peak_mib"]
    return peaks


def run_counts(out):
    """(articles, sentences) of a finished run, from its manifests (None when the run was stopped)."""
    from picforge.rundir import RunDir

    run = RunDir(out)
    return tuple((run.read_manifest(stage) or {}).get("records") for stage in ("read-dump", "sentences"))


def line_fit(xs, ys):
    """(slope, intercept) of the least-squares line through the points."""
    n, mx, my = len(xs), sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if n > 1 and sxx else 0.0
    return slope, my - slope * mx


def buffering_probe(elements, boundary):
    """Peak RSS (MiB) of a fresh process whose FnApiRunner pipeline makes `elements` strings of 1 KiB and counts
    their characters, with nothing (`fused`) or a Reshuffle (`reshuffle`) between the two steps."""
    import apache_beam as beam
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner

    per_seed = 1000
    with beam.Pipeline(runner=FnApiRunner()) as pipeline:
        made = (pipeline
                | "seeds" >> beam.Create(range(elements // per_seed))
                | "make" >> beam.FlatMap(lambda seed: (f"{seed}:{n}:".ljust(1024, "x") for n in range(per_seed))))
        if boundary == "reshuffle":
            made = made | "reshuffle" >> beam.Reshuffle()
        _ = made | "length" >> beam.Map(len) | "sum" >> beam.CombineGlobally(sum)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def print_buffering(sizes=(100_000, 400_000)):
    """The probe at two sizes, each case in its own spawned process."""
    print("\nFnApiRunner (one worker): peak RSS of a pipeline making N strings of 1 KiB and counting them")
    print(f"{'between make and count':<24}" + "".join(f"{f'{n:,}':>12}" for n in sizes) + f"{'MiB per 100k':>14}")
    for boundary in ("fused", "reshuffle"):
        peaks = []
        for n in sizes:
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                peaks.append(pool.apply(buffering_probe, (n, boundary)))
        slope = (peaks[-1] - peaks[0]) / ((sizes[-1] - sizes[0]) / 100_000)
        print(f"{boundary:<24}" + "".join(f"{p:>12,.0f}" for p in peaks) + f"{slope:>14,.0f}")


def print_runs(rows):
    print(f"{'mode':<15}{'scale':>6}{'bz2 MB':>8}{'XML MB':>8}{'articles':>9}{'sentences':>10}{'wall s':>8}"
          f"{'CPU s':>8}{'peak RSS MiB':>13}")
    for r in rows:
        stopped = f"  (stopped over the cap in {r['stopped_at']})" if r["stopped_at"] else ""
        print(f"{r['mode']:<15}{r['scale']:>5}x{r['bz2'] / 1e6:>8.1f}{r['xml'] / 1e6:>8.1f}{r['articles'] or 0:>9,}"
              f"{r['sentences'] or 0:>10,}{r['wall_s']:>8.1f}{r['cpu_s']:>8.1f}{r['peak_mib']:>13,.0f}{stopped}")


def print_stages(mode, rows, limit_gib):
    """Peak RSS per stage at each scale, its growth per GB of XML, and where the whole run meets the limit."""
    rows = [r for r in rows if r["mode"] == mode]
    labels = list(dict.fromkeys(label for r in rows for label in r["stages"]))
    gb = [r["xml"] / 1e9 for r in rows]
    print(f"\n{mode}: peak RSS (MiB) while each stage ran (a '+' joins stages Beam fused into one step), "
          "and its growth per GB of input XML (least-squares line over the scales)")
    print(f"{'stage':<40}" + "".join(f"{str(r['scale']) + 'x':>9}" for r in rows) + f"{'MiB/GB':>10}{'s at max':>10}")
    for label in labels:
        peaks = [r["stages"].get(label) for r in rows]
        slope = line_fit(gb, peaks)[0] if None not in peaks else None
        print(f"{label:<40}" + "".join(f"{p:>9,.0f}" if p is not None else f"{'-':>9}" for p in peaks)
              + (f"{slope:>10,.0f}" if slope is not None else f"{'-':>10}")
              + f"{rows[-1]['seconds'].get(label, 0):>10.1f}")
    slope, intercept = line_fit(gb, [r["peak_mib"] for r in rows])
    print(f"{'whole run':<40}" + "".join(f"{r['peak_mib']:>9,.0f}" for r in rows) + f"{slope:>10,.0f}")
    alone = [r.get("alone") for r in rows]
    if all(alone):
        print("each job alone in a fresh process (its manifest removed, `mine` rerun): peak RSS (MiB)")
        for job in alone[-1]:
            peaks = [a.get(job) for a in alone]
            slope_alone = line_fit(gb, peaks)[0] if None not in peaks else None
            print(f"{job:<40}" + "".join(f"{p:>9,.0f}" if p is not None else f"{'-':>9}" for p in peaks)
                  + (f"{slope_alone:>10,.0f}" if slope_alone is not None else ""))
    if slope > 0:
        limit_gb = (limit_gib * 1024 - intercept) / slope
        print(f"whole run: {intercept:,.0f} MiB + {slope:,.0f} MiB per GB of XML -> {limit_gib} GiB at about "
              f"{limit_gb:,.1f} GB of XML (if the growth stays linear)")


def print_detail(rows):
    for r in rows:
        print(f"\n{r['mode']}, {r['scale']}x: the ten Beam stages with the highest peak RSS")
        for name, peak in sorted(r["detail"].items(), key=lambda kv: -kv[1])[:10]:
            print(f"{peak:>9,.0f}  {name}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", default=DEFAULT_INPUT, help="dump to repeat (default: the shared 103-page sample)")
    parser.add_argument("--wic", default=DEFAULT_WIC)
    parser.add_argument("--scales", type=int, nargs="+", default=list(SCALES))
    parser.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES))
    parser.add_argument("--limit-gib", type=float, default=24, help="memory to extrapolate to (default 24)")
    parser.add_argument("--stop-at-gib", type=float, default=10, help="kill a run whose RSS passes this (default 10)")
    parser.add_argument("--work", help="folder for the dumps and runs (kept; default a temporary folder, removed)")
    parser.add_argument("--json", help="also write every figure to this file")
    parser.add_argument("--isolate", action="store_true",
                        help="with several jobs, also rerun each job alone in a fresh process for its own peak")
    parser.add_argument("--detail", action="store_true", help="also print the Beam stages with the highest peaks")
    parser.add_argument("--buffering", action="store_true",
                        help="only show the FnApiRunner holding a PCollection across a Reshuffle (tiny pipeline)")
    args = parser.parse_args(argv)
    if args.buffering:
        print_buffering()
        return 0
    for path in (args.input, args.wic):
        if not os.path.exists(path):
            parser.error(f"{path}: not found (set PICFORGE_SHARED_DATA or pass --input/--wic)")
    work = args.work or tempfile.mkdtemp(prefix="mine-memory-")
    os.makedirs(work, exist_ok=True)
    print(f"input: {args.input} repeated {'/'.join(f'{s}x' for s in args.scales)}  DirectRunner, 1 worker  "
          f"CPUs: {os.cpu_count()}  load: {os.getloadavg()[0]:.1f}", flush=True)
    rows = []
    try:
        for scale in args.scales:
            dump = os.path.join(work, f"enwiki-{scale}x.xml.bz2")
            bz2_bytes, xml_bytes = write_scaled_dump(args.input, scale, dump)
            for mode in args.modes:
                out = os.path.join(work, f"run-{scale}x-{mode.replace(' ', '-')}")
                shutil.rmtree(out, ignore_errors=True)
                figures = run_mine(dump, args.wic, out, MODES[mode], args.stop_at_gib * 1024 * MIB)
                if args.isolate and len(figures["jobs"]) > 1 and not figures["stopped_at"]:
                    figures["alone"] = isolated_jobs(dump, args.wic, out, MODES[mode], figures["jobs"],
                                                     args.stop_at_gib * 1024 * MIB)
                articles, sentences = run_counts(out)
                rows.append(dict(figures, mode=mode, scale=scale, bz2=bz2_bytes, xml=xml_bytes, articles=articles,
                                 sentences=sentences))
                print(f"  done: {mode}, {scale}x: {figures['wall_s']:.0f} s, peak {figures['peak_mib']:,.0f} MiB",
                      flush=True)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print()
    print_runs(rows)
    for mode in args.modes:
        print_stages(mode, rows, args.limit_gib)
    if args.detail:
        print_detail(rows)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
