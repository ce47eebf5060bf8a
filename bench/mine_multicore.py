"""Whole `picforge mine` on one machine: DirectRunner with one worker, Beam's multi-process DirectRunner with N
workers, and picforge's DaskRunner on a LocalCluster of N single-thread worker processes, each as one Beam job (and,
with --job-per-stage, the one-worker run as one job per stage, for reference); same input, fresh run directory
each, the triplets compared with the one-worker run.

CPU seconds are those of every process the run started (RUSAGE_CHILDREN, with the Dask cluster's workers after it
closes); peak RSS is the largest single process. Wall time on a shared machine moves with its load, printed beside.

    python bench/mine_multicore.py [--input DUMP] [--wic WIC_ZIP] [--scale K] [--workers 2] [--repeats 2]
                                   [--no-dask] [--job-per-stage]

--scale K mines the input repeated K times (each copy of a page with a fresh id and title, as bench/mine_memory.py
writes it), so the fixed cost of each worker process (imports, model loads: about 7 CPU s) weighs less.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from scaled_dump import write_scaled_dump  # noqa: E402
SHARED_DATA = os.environ.get("PICFORGE_SHARED_DATA", os.path.join(os.path.dirname(ROOT), "shared", "data"))
DEFAULT_INPUT = os.path.join(SHARED_DATA, "wiki", "enwiki-sample-103pages.xml.bz2")
DEFAULT_WIC = os.path.join(SHARED_DATA, "wic", "WiC_dataset.zip")
SCORES = ("semantic_score", "domain_score")
SCORE_JITTER = 1e-5  # encoder batches differ between runs and runners (see tests/pipeline/test_parse_window.py)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_mine(dump, wic, out, beam_args):
    """(wall s, CPU s of all child processes) of one `picforge mine` in a fresh process."""
    cpu, wall = children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "picforge.cli", "mine", "--input", dump, "--wic", wic, "--out", out,
                    *beam_args], cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - wall, children_cpu() - cpu


def run_dask(dump, wic, out, workers):
    """Like run_mine, on a LocalCluster of `workers` single-thread processes started (and timed) here."""
    from distributed import LocalCluster

    cpu, wall = children_cpu(), time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        run_mine(dump, wic, out, ["--runner", "DaskRunner", "--dask_client_address", cluster.scheduler_address])
    return time.perf_counter() - wall, children_cpu() - cpu


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
    args = parser.parse_args(argv)
    n = args.workers
    configs = {
        "direct, 1 worker": lambda out: run_mine(args.input, args.wic, out, ["--direct_num_workers", "1"]),
        f"direct, {n} processes": lambda out: run_mine(
            args.input, args.wic, out, ["--direct_num_workers", str(n), "--direct_running_mode", "multi_processing"]),
    }
    if args.job_per_stage:
        configs["direct, 1 worker, job per stage"] = lambda out: run_mine(
            args.input, args.wic, out, ["--direct_num_workers", "1", "--job-per-stage"])
    if not args.no_dask:
        configs[f"dask, {n} processes"] = lambda out: run_dask(args.input, args.wic, out, n)
    work = tempfile.mkdtemp(prefix="mine-multicore-")
    walls, source = {}, args.input
    try:
        if args.scale > 1:  # the configurations read args.input when they run
            args.input = os.path.join(work, f"scaled-{args.scale}x.xml.bz2")
            write_scaled_dump(source, args.scale, args.input)
        print(f"input: {source} x {args.scale}  CPUs: {os.cpu_count()}  repeats: {args.repeats}")
        print(f"{'configuration':<34}{'run':>4}{'wall s':>9}{'CPU s':>9}{'load 1m':>9}{'triplets':>10}{'same':>6}")
        reference = None
        for repeat in range(args.repeats):
            for name, run in configs.items():
                out = os.path.join(work, f"{name.replace(' ', '').replace(',', '-')}-{repeat}")
                load = os.getloadavg()[0]
                wall, cpu = run(out)
                reference = reference or out
                same, count = same_triplets(out, reference)
                walls.setdefault(name, []).append(wall)
                print(f"{name:<34}{repeat + 1:>4}{wall:>9.1f}{cpu:>9.1f}{load:>9.2f}{count:>10}{'yes' if same else 'NO':>6}",
                      flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = min(walls["direct, 1 worker"])
    print("\nspeed-up of the best wall time over `direct, 1 worker` (target >= 1.6x for the multi-process runs):")
    for name, times in walls.items():
        print(f"  {name:<34}{base / min(times):>6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
