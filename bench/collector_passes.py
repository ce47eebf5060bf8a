"""`python bench/collector_passes.py OUT.json ARGS…`: `python -m picforge.cli ARGS…` in this process, with the
cyclic garbage collector's passes counted by generation (passes, CPU seconds) and written to OUT.json at exit;
the pass at interpreter exit is not counted."""
import atexit
import gc
import json
import runpy
import sys
import time

PASSES = {generation: {"passes": 0, "cpu_s": 0.0} for generation in range(3)}
_started = []


def count_pass(phase, info):
    if phase == "start":
        _started.append(time.process_time())
        return
    figures = PASSES[info["generation"]]
    figures["passes"] += 1
    figures["cpu_s"] += time.process_time() - _started.pop()


def write_passes(path):
    with open(path, "w") as fh:
        json.dump(PASSES, fh)


if __name__ == "__main__":
    out, *arguments = sys.argv[1:]
    gc.callbacks.append(count_pass)
    atexit.register(write_passes, out)
    sys.argv = ["picforge", *arguments]
    runpy.run_module("picforge.cli", run_name="__main__")
