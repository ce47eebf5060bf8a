"""`picforge mine` as a child process of a bench: its wall and CPU seconds, or, with Beam's bundle log on, each log
line handed to a sampler of its process tree that books samples to the picforge stages running at that moment."""
import os
import re
import resource
import subprocess
import sys
import time

from sample_paths import ROOT

from pipeline import MINING_STAGES

# The child: `picforge mine` with the FnApiRunner's "Running bundle for stage …" debug line switched on.
BUNDLE_LOGGER = "apache_beam.runners.portability.fn_api_runner.fn_runner.run_bundle"
CHILD = (f"import logging, sys; from picforge.cli import main; logging.getLogger({BUNDLE_LOGGER!r}).setLevel("
         "logging.DEBUG); sys.exit(main(sys.argv[1:]))")
BUNDLE_LINE = re.compile(r"Running bundle for stage (.*)$")
JOB_STARTED = re.compile(r"picforge\.progress: (.*): running$")
STAGE_FINISHED = re.compile(r"picforge\.progress: ([a-z-]+: [\d,]+ records\b|one job for )")
TRANSFORM = re.compile(r"ref_AppliedPTransform_([^)+]*?)_\d+\)|\(+([^()+]+?)/")


def children_cpu():
    """CPU seconds of this process's finished children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_mine(dump, wic, out, beam_args=(), code=ROOT):
    """(wall s, CPU s of every process it started) of one `picforge mine` in a fresh process, its output dropped;
    `code` is the checkout whose picforge runs (default this one)."""
    cpu, wall = children_cpu(), time.perf_counter()
    env = dict(os.environ, PYTHONPATH=code)
    subprocess.run([sys.executable, "-m", "picforge.cli", "mine", "--input", dump, "--wic", wic, "--out", out,
                    *beam_args], cwd=code, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - wall, children_cpu() - cpu


def watch_mine(mine_args, sampler_for):
    """Run `picforge mine MINE_ARGS` with the bundle log on; `sampler_for(pid)` makes a thread with `follow(line)`
    and a `done` event, started before and stopped after the run. (sampler, exit status, last 20 log lines)."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, "mine", *mine_args], cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    sampler = sampler_for(child.pid)
    sampler.start()
    tail = []
    for line in child.stderr:
        sampler.follow(line.rstrip("\n"))
        if not line.startswith(" ") and "DEBUG" not in line:
            tail = (tail + [line])[-20:]
    child.wait()
    sampler.done.set()
    sampler.join()
    return sampler, child.returncode, tail


def tree_total(process, measure):
    """measure(p) summed over a psutil process and all its descendants (those gone meanwhile count nothing)."""
    import psutil

    total = 0
    for proc in [process, *process.children(recursive=True)]:
        try:
            total += measure(proc)
        except psutil.Error:
            pass
    return total


def stage_span(beam_stage, writes=True):
    """The picforge stages whose transforms a fused Beam stage holds, in mining order ('' when only reads; with
    writes=False, the stage writers' own steps do not count)."""
    found = set()
    for dashed, spaced in TRANSFORM.findall(beam_stage):
        label = (dashed or spaced.split("/", 1)[0]).replace(" ", "-")
        if not writes and label.startswith("write-"):
            continue
        label = label.removeprefix("write-")
        if label.startswith("article-fields"):
            label = "read-dump"
        found.update(stage for stage in MINING_STAGES if label == stage or label.startswith(stage + "-"))
    return "+".join(stage for stage in MINING_STAGES if stage in found)
