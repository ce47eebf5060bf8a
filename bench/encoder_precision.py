"""CPU seconds of the sentence encoder per torch thread count and precision, beside the former default (two threads,
fp32), with the drift each one causes in the vectors.

Each side encodes the same texts in a fresh process (model load not timed): the first N sentences of a mining run
and the phrases of a PEARL run when given. Drift against the baseline's vectors: the lowest cosine between a text's
two vectors, the largest change of a pairwise cosine, and the share of texts whose nearest other text changes.

    python bench/encoder_precision.py --run MINING_RUN [--pearl PEARL_RUN] [--texts N]
"""
import argparse
import multiprocessing
import os
import resource

import numpy as np

import sample_paths  # noqa: F401 - puts the repository on sys.path

SIDES = (("2 threads, fp32 (former default)", "2", "fp32"), ("1 thread, fp32 (default)", "1", "fp32"),
         ("1 thread, bf16 (--precision bf16)", "1", "bf16"))


def side(texts, threads, precision, queue):
    os.environ["PICFORGE_TORCH_THREADS"] = threads
    from picforge.encoders import device_spec, encode, load_sentence_model

    model = load_sentence_model(device=device_spec("cpu", precision))
    encode(model, texts[:64])  # warm-up
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime
    vectors = encode(model, texts)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    queue.put((usage.ru_utime + usage.ru_stime - cpu, vectors))


def run_side(texts, threads, precision):
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=side, args=(texts, threads, precision, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def drift(reference, vectors):
    """(lowest same-text cosine, largest pairwise-cosine change, share of changed nearest neighbours)."""
    same = float((reference * vectors).sum(1).min())
    old, new = reference @ reference.T, vectors @ vectors.T
    np.fill_diagonal(old, -2), np.fill_diagonal(new, -2)
    return same, float(np.abs(old - new).max()), float((old.argmax(1) != new.argmax(1)).mean())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True, help="mining run directory (its `sentences`)")
    parser.add_argument("--pearl", help="PEARL run directory (its phrases, encoded as a second set)")
    parser.add_argument("--texts", type=int, default=1000, help="texts of each set (default %(default)s)")
    args = parser.parse_args()
    from picforge.rundir import RunDir

    sets = {"sentences": [r["text"] for r in RunDir(args.run).iter_records("sentences", columns=["text"])]}
    if args.pearl:
        sets["PEARL phrases"] = [r["phrase"] for r in RunDir(args.pearl).iter_records("pearl-phrases")]
    print(f"cores: {os.cpu_count()}  load average at start: {os.getloadavg()[0]:.1f}")
    for name, texts in sets.items():
        texts = texts[:args.texts]
        print(f"\n{len(texts):,} {name}")
        print(f"{'side':<36}{'CPU s':>8}{'ms/text':>9}{'vs former':>11}{'min same cos':>14}{'max pair Δ':>12}"
              f"{'NN changed':>12}")
        results = [(label, *run_side(texts, threads, precision)) for label, threads, precision in SIDES]
        _, base_cpu, reference = results[0]
        for label, cpu, vectors in results:
            same, pair, changed = drift(reference, vectors)
            print(f"{label:<36}{cpu:>8.2f}{1000 * cpu / len(texts):>9.2f}{base_cpu / cpu:>10.2f}x{same:>14.5f}"
                  f"{pair:>12.5f}{100 * changed:>11.1f}%")
    print(f"\nload average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
