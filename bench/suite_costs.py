"""`python bench/suite_costs.py [-m MARKERS] [--top N] [--baseline] PATH…`: where the test suite's CPU goes. Runs
pytest on each PATH in one process (`-n 0`), in turn, and prints its CPU seconds (user + system, its children
included), the collector's full passes and their CPU seconds, and the N tests (setup, call or teardown) that cost
most; `--baseline` runs each PATH again with CPython's collector settings (no freeze, threshold 700) beside it.
The same file is the pytest plug-in that counts (loaded with `-p suite_costs`)."""
import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time

import pytest

OUT_VARIABLE = "SUITE_COSTS_OUT"
DEFAULTS_VARIABLE = "PICFORGE_TESTS_COLLECTOR_DEFAULTS"  # tests/conftest.py then leaves the collector as it is
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PHASES, PASSES, _started = [], {generation: [0, 0.0] for generation in range(3)}, []


def cpu_seconds():
    """CPU seconds of this process and of the children it waited for."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def count_pass(phase, info):
    if phase == "start":
        _started.append(time.process_time())
    elif _started:
        PASSES[info["generation"]][0] += 1
        PASSES[info["generation"]][1] += time.process_time() - _started.pop()


def timed(phase):
    @pytest.hookimpl(hookwrapper=True)
    def hook(item, *args):
        before = cpu_seconds()
        yield
        PHASES.append((cpu_seconds() - before, phase, item.nodeid))
    return hook


pytest_runtest_setup, pytest_runtest_call, pytest_runtest_teardown = map(timed, ("setup", "call", "teardown"))


def pytest_configure():
    gc.callbacks.append(count_pass)


def pytest_unconfigure():
    with open(os.environ[OUT_VARIABLE], "w") as fh:
        json.dump({"phases": sorted(PHASES, reverse=True), "passes": PASSES}, fh)


def measure(path, markers, defaults, out):
    """(CPU s of pytest on `path`, what the plug-in wrote)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, HERE, os.environ.get("PYTHONPATH", "")]),
               **{OUT_VARIABLE: out})
    env.pop(DEFAULTS_VARIABLE, None)
    if defaults:
        env[DEFAULTS_VARIABLE] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "suite_costs", "-p", "no:cacheprovider",
                    "-m", markers, *path.split()], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out) as fh:
        return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, json.load(fh)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="test directories or files (one pytest run each; quote several "
                                                  "to run them together)")
    parser.add_argument("-m", dest="markers", default="not slow", help="pytest -m expression (default: not slow)")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--baseline", action="store_true", help="also run with CPython's collector settings")
    args = parser.parse_args()
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"suite-costs-{os.getpid()}.json")
    for path in args.paths:
        sides = [("suite's settings", False)] + ([("CPython's defaults", True)] if args.baseline else [])
        for name, defaults in sides:
            load = os.getloadavg()[0]
            cpu, figures = measure(path, args.markers, defaults, out)
            passes = figures["passes"]
            collector = sum(seconds for _, seconds in passes.values())
            print(f"{path} [{name}, -m '{args.markers}', load {load:.1f}]: {cpu:.1f} CPU s; collector "
                  f"{collector:.1f} CPU s (full passes {passes['2'][0]}, {passes['2'][1]:.1f} s)")
            if not defaults:
                for seconds, phase, nodeid in figures["phases"][:args.top]:
                    print(f"  {seconds:7.2f}  {phase:8s} {nodeid}")
    os.remove(out)


if __name__ == "__main__":
    main()
