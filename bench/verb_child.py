"""One `picforge` verb in this process, for bench/verb_memory.py: at exit it writes to FIGURES (JSON) the peak of the
Python heap (tracemalloc, with --trace) and the peak of Arrow's default memory pool; with --top N also the N source
lines holding the most Python heap in a snapshot taken near that peak.

    python bench/verb_child.py FIGURES [--trace] [--top N] -- VERB ARGS…
"""
import argparse
import json
import sys
import threading
import tracemalloc

from sample_paths import ROOT  # noqa: F401  (puts the repository first on sys.path)

POLL_S = 1.0
SNAPSHOT_STEP = 1.05, 64 * 2 ** 20  # a new snapshot once the heap is 5% and 64 MiB above the last one's


class PeakSnapshots(threading.Thread):
    """Keeps a tracemalloc snapshot of the heap near its peak: polls the traced size, snapshots on each rise of 5% and
    64 MiB (a snapshot of a large heap takes seconds), so the one kept is within that of the peak."""

    def __init__(self):
        super().__init__(daemon=True)
        self.snapshot, self.size = None, 0
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(POLL_S):
            current = tracemalloc.get_traced_memory()[0]
            if current > max(self.size * SNAPSHOT_STEP[0], self.size + SNAPSHOT_STEP[1]):
                self.snapshot, self.size = tracemalloc.take_snapshot(), current

    def top(self, limit):
        """[(file:line, MiB, blocks)] of the `limit` lines holding most of the kept snapshot."""
        if self.snapshot is None:
            return []
        stats = self.snapshot.filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)]).statistics("lineno")
        return [(f"{s.traceback[0].filename}:{s.traceback[0].lineno}", s.size / 2 ** 20, s.count)
                for s in stats[:limit]]


def figures(snapshots, top):
    """The peaks this process reached (bytes), and the top lines of the snapshot near the heap's peak."""
    found = {}
    if tracemalloc.is_tracing():
        found["heap_peak"] = tracemalloc.get_traced_memory()[1]
    if pyarrow := sys.modules.get("pyarrow"):
        found["arrow_peak"] = pyarrow.default_memory_pool().max_memory()
    if snapshots:
        snapshots.done.set()
        found["snapshot_heap"] = snapshots.size
        found["top"] = snapshots.top(top)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("figures")
    parser.add_argument("--trace", action="store_true", help="trace the Python heap (tracemalloc)")
    parser.add_argument("--top", type=int, default=0, help="with --trace: the top lines near the heap's peak")
    split = sys.argv.index("--")
    args, verb = parser.parse_args(sys.argv[1:split]), sys.argv[split + 1:]
    snapshots = None
    if args.trace:
        tracemalloc.start()
        if args.top:
            snapshots = PeakSnapshots()
            snapshots.start()
    from picforge.cli import main as picforge

    try:
        status = picforge(verb)
    finally:
        with open(args.figures, "w") as fh:
            json.dump(figures(snapshots, args.top), fh)
    return status


if __name__ == "__main__":
    sys.exit(main())
