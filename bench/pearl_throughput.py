"""Phrases per second per core of the whole `picforge pearl build` pipeline, beside its parse-only baseline.

The pipeline side runs `build_corpus` (Beam DirectRunner: spaCy parse + NER, counting, augmentations with
WordNet synonyms, phrase embeddings and hard negatives) into a fresh directory. The baseline is
the part no implementation can skip: the same spaCy pipeline over the same sentences in one plain loop
(`nlp.pipe` + `phrase_occurrences`), then the count >= 2 filter. Each side runs in its own process; "per core"
divides by that process's CPU seconds (its own and its children's, user + system).

    python bench/pearl_throughput.py [--run MINING_RUN] [--max-sentences N] [-- BEAM FLAGS]
"""
import argparse
import collections
import multiprocessing
import os
import resource
import tempfile
import time

from sample_paths import DEFAULT_INPUT, DEFAULT_WIC


def cpu_seconds():
    """User + system CPU seconds of this process and its finished children."""
    return sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


def measured(fn, queue, *args):
    cpu, wall = cpu_seconds(), time.perf_counter()
    result = fn(*args)
    queue.put(dict(result, cpu=cpu_seconds() - cpu, wall=time.perf_counter() - wall))


def pipeline_side(run_dir, beam_args):
    from companions.pearl.build import build_corpus

    with tempfile.TemporaryDirectory() as out:
        manifest = build_corpus(run_dir, out, beam_args=beam_args)
    return {"phrases": manifest["records"],
            "sentences": manifest["counters"].get("pearl-phrases/sentences-parsed", 0)}


def baseline_side(run_dir, _beam_args):
    from companions.pearl.constituents import dependency_constituents, phrase_occurrences
    from companions.pearl.corpus import load_parser, token_entities
    from picforge.rundir import RunDir

    texts = [r["text"] for r in RunDir(run_dir).iter_records("sentences", columns=["text"])]
    nlp = load_parser()
    counts = collections.Counter()
    for doc in nlp.pipe(texts, batch_size=128):
        for _, occurrence in phrase_occurrences(doc, dependency_constituents(doc), token_entities(doc)):
            if occurrence:
                counts[occurrence["phrase"]] += 1
    return {"phrases": sum(1 for n in counts.values() if n >= 2), "sentences": len(texts)}


def run_side(side, run_dir, beam_args):
    queue = multiprocessing.get_context("spawn").Queue()
    process = multiprocessing.get_context("spawn").Process(target=measured, args=(side, queue, run_dir, beam_args))
    process.start()
    result = queue.get()
    process.join()
    return result


def mined_sample(max_sentences):
    """A mining run of the shared 103-page sample (made once per call, not timed), cut to max_sentences."""
    from pipeline.mine import mine
    from picforge.rundir import RunDir

    source = tempfile.mkdtemp(prefix="pearl-bench-mined-")
    mine(DEFAULT_INPUT, DEFAULT_WIC, source)
    if not max_sentences:
        return source
    run = RunDir(tempfile.mkdtemp(prefix="pearl-bench-cut-"))
    rows = list(RunDir(source).iter_records("sentences"))[:max_sentences]
    run.write_stage("sentences", rows, "sentence", inputs={"cut of": source}, options={"first": max_sentences})
    return run.root


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", help="mining run directory with a `sentences` stage (default: mine the shared "
                                      "103-page sample first, untimed)")
    parser.add_argument("--max-sentences", type=int, help="with the default run: use only the first N sentences")
    args, beam_args = parser.parse_known_args()
    run_dir = args.run or mined_sample(args.max_sentences)
    print(f"input: {run_dir}  cores on this machine: {os.cpu_count()}  load average: {os.getloadavg()[0]:.1f}")
    print(f"{'side':<32}{'sentences':>10}{'phrases':>9}{'wall s':>9}{'CPU s':>9}{'phrases/s/core':>16}")
    for name, side in (("parse-only loop (baseline)", baseline_side), ("pearl build (Beam, everything)", pipeline_side)):
        result = run_side(side, run_dir, beam_args)
        print(f"{name:<32}{result['sentences']:>10}{result['phrases']:>9}{result['wall']:>9.1f}{result['cpu']:>9.1f}"
              f"{result['phrases'] / result['cpu']:>16.1f}")


if __name__ == "__main__":
    main()
