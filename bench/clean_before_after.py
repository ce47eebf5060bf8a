"""The cleaner beside an earlier version of itself, in one process on the same pages, interleaved run by run so that
the machine's load falls on both alike: CPU seconds of each run and the median ratio.

    git show main:pipeline/stages/clean.py > /tmp/clean_before.py
    python bench/clean_before_after.py --baseline /tmp/clean_before.py [--input DUMP] [--runs 7]
"""
import argparse
import importlib.util
import statistics
import time

from sample_paths import DEFAULT_INPUT


def load_module(name, path):
    """The Python file `path` imported as module `name` (two versions of one module side by side)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, help="an earlier pipeline/stages/clean.py")
    parser.add_argument("--input", default=DEFAULT_INPUT, help="pages-articles dump (default: the shared enwiki sample)")
    parser.add_argument("--runs", type=int, default=7, help="runs of each side, alternating which goes first")
    args = parser.parse_args(argv)
    from pipeline.dump.pages import classify_page
    from pipeline.dump.reader import read_pages
    from pipeline.stages import clean

    sides = {"before": load_module("clean_before", args.baseline), "now": clean}
    pages = [text for fields, text, redirect in read_pages(args.input) if not classify_page(fields, text, redirect)]
    for module in sides.values():  # warm-up: lazy imports and compiled patterns
        module.clean_wikitext(pages[0])
    seconds = {name: [] for name in sides}
    for run in range(args.runs):
        for name in sorted(sides, reverse=bool(run % 2)):
            started = time.process_time()
            for text in pages:
                sides[name].clean_wikitext(text)
            seconds[name].append(time.process_time() - started)
    for name, values in seconds.items():
        print(f"{name:>7}: {' '.join(f'{v:.2f}' for v in values)} CPU s, median {statistics.median(values):.2f}")
    ratio = statistics.median(seconds["now"]) / statistics.median(seconds["before"])
    print(f"now / before (medians): {ratio:.3f}   aim: <= 1.10 ({len(pages)} articles)")


if __name__ == "__main__":
    main()
