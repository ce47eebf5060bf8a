"""Whole `picforge mine` on one machine: DirectRunner with one worker, Beam's multi-process DirectRunner with N
workers, and picforge's DaskRunner on a LocalCluster of N single-thread worker processes, each as one Beam job (and,
with --job-per-stage, the one-worker run as one job per stage, for reference); same input, fresh run directory
each, the triplets compared with the one-worker run.

CPU seconds are those of every process the run started (RUSAGE_CHILDREN, with the Dask cluster's workers after it
closes), also per article read; the ratios compare each configuration's best wall time and least CPU with the one
worker's. Wall time on a shared machine moves with its load, printed at the start, per run and at the end.

    python bench/mine_multicore.py [--input DUMP] [--wic WIC_ZIP] [--scale K] [--workers 2] [--repeats 2]
                                   [--no-dask] [--job-per-stage] [--timeline] [--multistream N]
                                   [--against REV]

--scale K mines the input repeated K times (each copy of a page with a fresh id and title, as bench/mine_memory.py
writes it), so the fixed cost of each worker process (imports, model loads: about 7 CPU s) weighs less.
--timeline books each DirectRunner run's wall and CPU seconds (its whole process tree, sampled every 0.2 s) to the
picforge stages of the fused Beam stage running at that moment (Beam's bundle log, as bench/mine_memory.py reads
it), and prints where each configuration spends its time and how many cores it keeps busy there.
--against REV adds the one-worker run on the code of git revision REV (a temporary git worktree), so a change's CPU
per article prints beside its baseline and `same` says whether it selects the baseline's triplets; --workers 1 leaves
out the multi-process run.
--multistream N writes the (scaled) input as a multistream dump of N pages per bz2 stream with its index beside
it, so every runner reads the dump's streams in parallel. With --job-per-stage, Dask also runs one job per stage,
and the wall seconds of each stage's job (from the stage manifests) are printed side by side.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from mine_child import BUNDLE_LINE, JOB_STARTED, STAGE_FINISHED, children_cpu, stage_span, tree_total, watch_mine
from mine_child import run_mine as run_quietly
from sample_paths import DEFAULT_INPUT, DEFAULT_WIC, ROOT
from scaled_dump import write_scaled_dump
from tests.pipeline.dump_factory import write_multistream

SCORES = ("semantic_score", "domain_score")
SCORE_JITTER = 1e-5  # encoder batches differ between runs and runners (see tests/pipeline/test_parse_window.py)


def run_mine(dump, wic, out, beam_args, timeline=None, code=ROOT):
    """(wall s, CPU s of all child processes) of one `picforge mine` of the checkout `code` in a fresh process; with
    `timeline` (a dict, this checkout only), {label: [wall s, CPU s]} of where the run spent them is put in it."""
    if timeline is None:
        return run_quietly(dump, wic, out, beam_args, code)
    cpu, wall = children_cpu(), time.perf_counter()
    mine_args = ["--input", dump, "--wic", wic, "--out", out, *beam_args]
    clock, status, _ = watch_mine(mine_args, StageClock)
    if status != 0:
        raise subprocess.CalledProcessError(status, mine_args)
    timeline.clear()
    timeline.update(clock.spent)
    return time.perf_counter() - wall, children_cpu() - cpu


def process_cpu(proc):
    """User + system CPU seconds of one psutil process."""
    times = proc.cpu_times()
    return times.user + times.system


class StageClock(threading.Thread):
    """Books the wall and CPU seconds of a process tree, sampled every 0.2 s, to the picforge stages of the fused
    Beam stage running at that moment ('start-up' before the first, 'finish' after the job, 'writes' for Beam stages
    of the stage writers alone: their set-up and file finalisation)."""

    def __init__(self, pid):
        import psutil

        super().__init__(daemon=True)
        self.process = psutil.Process(pid)
        self.label, self.spent, self.done = "start-up", {}, threading.Event()

    def tree_cpu(self):
        return tree_total(self.process, process_cpu)

    def run(self):
        last_wall, last_cpu = time.perf_counter(), self.tree_cpu()
        while not self.done.wait(0.2):
            wall, cpu, label = time.perf_counter(), self.tree_cpu(), self.label
            spent = self.spent.setdefault(label, [0.0, 0.0])
            spent[0] += wall - last_wall
            spent[1] += max(0.0, cpu - last_cpu)
            last_wall, last_cpu = wall, cpu

    def follow(self, line):
        """Move the label on from one line of the child's log."""
        if match := BUNDLE_LINE.search(line):
            self.label = stage_span(match.group(1), writes=False) or "writes"
        elif JOB_STARTED.search(line):
            self.label = "start-up"
        elif STAGE_FINISHED.search(line):
            self.label = "finish"


def print_timelines(timelines):
    """Per configuration: wall s, CPU s and busy cores of each label, in the order the run met them."""
    print("\nwhere the time goes (wall s / CPU s / cores busy), per picforge stage of the running Beam stage:")
    for name, spent in timelines.items():
        print(f"  {name}")
        for label, (wall, cpu) in spent.items():
            print(f"    {label:<40}{wall:>8.1f}{cpu:>9.1f}{cpu / max(wall, 1e-9):>7.2f}")
        wall, cpu = sum(w for w, _ in spent.values()), sum(c for _, c in spent.values())
        print(f"    {'all':<40}{wall:>8.1f}{cpu:>9.1f}{cpu / max(wall, 1e-9):>7.2f}")


def run_dask(dump, wic, out, workers, beam_args=()):
    """Like run_mine, on a LocalCluster of `workers` single-thread processes started (and timed) here."""
    from distributed import LocalCluster

    cpu, wall = children_cpu(), time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        run_mine(dump, wic, out, ["--runner", "picforge.dask_runner.DaskRunner",
                                  "--dask_client_address", cluster.scheduler_address,
                                  *beam_args])
    return time.perf_counter() - wall, children_cpu() - cpu


def stage_seconds(out):
    """{stage: wall seconds of the Beam job that wrote it} of a finished run (one job per stage: its own time)."""
    from picforge.rundir import RunDir
    from pipeline import MINING_STAGES

    run = RunDir(out)
    return {stage: run.read_manifest(stage)["seconds"] for stage in MINING_STAGES}


def print_stage_seconds(seconds):
    """The wall seconds of each stage's job, one column per configuration run one job per stage."""
    names = list(seconds)
    print("\nwall seconds of each stage's job (one job per stage; read-dump and clean share one):")
    print(f"{'stage':<12}" + "".join(f"{name:>34}" for name in names))
    for stage in next(iter(seconds.values())):
        print(f"{stage:<12}" + "".join(f"{seconds[name][stage]:>34.1f}" for name in names))


def articles(out):
    """Articles a finished run read (its read-dump records)."""
    from picforge.rundir import RunDir

    return max(1, RunDir(out).read_manifest("read-dump")["records"])


def same_triplets(out, reference):
    """Whether two runs selected the same triplets (scores within the encoder's batching jitter)."""
    from picforge.rundir import RunDir

    ours, theirs = list(RunDir(out).iter_records("select")), list(RunDir(reference).iter_records("select"))
    strip = lambda t: {k: v for k, v in t.items() if k not in SCORES}  # noqa: E731
    return ([strip(t) for t in ours] == [strip(t) for t in theirs]
            and all(abs(a[k] - b[k]) <= SCORE_JITTER for a, b in zip(ours, theirs) for k in SCORES)), len(ours)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", default=DEFAULT_INPUT)
    parser.add_argument("--wic", default=DEFAULT_WIC)
    parser.add_argument("--scale", type=int, default=1, help="repeat the input's pages K times (default 1)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2, help="runs of each configuration (default 2)")
    parser.add_argument("--no-dask", action="store_true", help="leave out the DaskRunner configuration")
    parser.add_argument("--job-per-stage", action="store_true",
                        help="add the one-worker run with one Beam job per stage (picforge's shape before issue 11)")
    parser.add_argument("--multistream", type=int, metavar="N",
                        help="write the input as a multistream dump of N pages per stream, with its index")
    parser.add_argument("--against", metavar="REV", help="add the one-worker run on the code of git revision REV")
    parser.add_argument("--timeline", action="store_true",
                        help="print where each DirectRunner configuration's last run spent its wall and CPU seconds")
    args = parser.parse_args(argv)
    n = args.workers
    timelines = {}
    traced = lambda name: timelines.setdefault(name, {}) if args.timeline else None  # noqa: E731
    work = tempfile.mkdtemp(prefix="mine-multicore-")
    configs = {
        "direct, 1 worker": lambda out: run_mine(args.input, args.wic, out, ["--direct_num_workers", "1"],
                                                 traced("direct, 1 worker")),
    }
    if args.against:
        baseline = os.path.join(work, "baseline-code")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", baseline, args.against], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        configs[f"direct, 1 worker, at {args.against}"] = lambda out: run_mine(
            args.input, args.wic, out, ["--direct_num_workers", "1"], code=baseline)
    if n > 1:
        configs[f"direct, {n} processes"] = lambda out: run_mine(
            args.input, args.wic, out, ["--direct_num_workers", str(n), "--direct_running_mode", "multi_processing"],
            traced(f"direct, {n} processes"))
    if args.job_per_stage:
        configs["direct, 1 worker, job per stage"] = lambda out: run_mine(
            args.input, args.wic, out, ["--direct_num_workers", "1", "--job-per-stage"],
            traced("direct, 1 worker, job per stage"))
    if not args.no_dask:
        configs[f"dask, {n} processes"] = lambda out: run_dask(args.input, args.wic, out, n)
        if args.job_per_stage:
            configs[f"dask, {n} processes, job per stage"] = lambda out: run_dask(args.input, args.wic, out, n,
                                                                                  ["--job-per-stage"])
    walls, cpus, per_stage, source = {}, {}, {}, args.input
    try:
        if args.scale > 1:  # the configurations read args.input when they run
            args.input = os.path.join(work, f"scaled-{args.scale}x.xml.bz2")
            write_scaled_dump(source, args.scale, args.input)
        if args.multistream:
            streams = os.path.join(work, f"scaled-{args.scale}x-pages-articles-multistream.xml.bz2")
            write_multistream(args.input, streams, args.multistream)
            args.input = streams
        print(f"input: {source} x {args.scale}  CPUs: {os.cpu_count()}  repeats: {args.repeats}"
              + (f"  multistream: {args.multistream} pages per stream" if args.multistream else "")
              + f"  load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"{'configuration':<34}{'run':>4}{'wall s':>9}{'CPU s':>9}{'CPU s/article':>14}{'load 1m':>9}"
              f"{'triplets':>10}{'same':>6}")
        reference = None
        for repeat in range(args.repeats):
            for name, run in configs.items():
                out = os.path.join(work, f"{name.replace(' ', '').replace(',', '-')}-{repeat}")
                load = os.getloadavg()[0]
                wall, cpu = run(out)
                reference = reference or out
                same, count = same_triplets(out, reference)
                walls.setdefault(name, []).append(wall)
                cpus.setdefault(name, []).append(cpu)
                if "job per stage" in name:
                    per_stage[name] = stage_seconds(out)
                print(f"{name:<34}{repeat + 1:>4}{wall:>9.1f}{cpu:>9.1f}{cpu / articles(out):>14.3f}{load:>9.2f}"
                      f"{count:>10}{'yes' if same else 'NO':>6}", flush=True)
    finally:
        if args.against:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", baseline], check=False)
        shutil.rmtree(work, ignore_errors=True)
    base, base_cpu = min(walls["direct, 1 worker"]), min(cpus["direct, 1 worker"])
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (wall ratios need a quiet "
          "machine: the load should stay below the core count)")
    print("best wall time and least CPU over `direct, 1 worker` (target >= 1.7x wall with 2 workers; a "
          "baseline's CPU ratio is its CPU over this code's):")
    for name, times in walls.items():
        print(f"  {name:<34}{base / min(times):>6.2f}x wall{min(cpus[name]) / base_cpu:>8.2f}x CPU")
    if per_stage:
        print_stage_seconds(per_stage)
    if timelines:
        print_timelines(timelines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
