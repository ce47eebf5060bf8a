"""Throughput of the CoSimLex candidate search on a pages-articles dump: lemma matching per sentence and
pair scoring per context for each encoder (single process, no Beam overhead). Prints figures, and what the
surface-form and proper-name rules change against form-or-lemma matching alone. With `--mined-run RUN` (a run
`picforge mine` wrote of the same dump) it times instead the whole `picforge cosimlex candidates` in a fresh process
reading the mined run (`--run RUN`), with the same pairs, and counts what it wrote.

    python bench/cosimlex_candidates.py DUMP.xml.bz2 PAIRS.txt [--encoder tok2vec …]
    python bench/cosimlex_candidates.py DUMP.xml.bz2 PAIRS.txt --mined-run RUN [--repeats N]
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time

from mine_child import children_cpu
from sample_paths import ROOT

from companions.cosimlex import contexts as ctx
from companions.cosimlex.candidate_pipeline import CANDIDATES, CONTEXTS
from companions.cosimlex.encoders import make_encoder, pair_similarities
from companions.cosimlex.simlex import read_simlex
from pipeline.stages.clean import iter_clean_pages
from pipeline.stages.sentences import page_sentences


def dump_sentences(path):
    """Sentence records of the dump's pages with prose, grouped per page."""
    for page in iter_clean_pages(path):
        yield list(page_sentences(page))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump")
    parser.add_argument("pairs")
    parser.add_argument("--encoder", action="append", help="repeated for each encoder (default: minilm and tok2vec)")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--mined-run", help="a mined run of DUMP: time `cosimlex candidates` reading it")
    parser.add_argument("--repeats", type=int, default=1, help="with --mined-run: runs (medians)")
    args = parser.parse_args()
    encoders = args.encoder or ["minilm", "tok2vec"]
    if args.mined_run:
        time_mined_run(args.mined_run, args.pairs, encoders, args.repeats)
        return
    pairs = read_simlex(args.pairs)
    vocabulary = {w for p in pairs for w in (p.word1, p.word2)}
    index = ctx.pairs_by_first_word(pairs)
    model = ctx.default_spacy_model(args.lang)
    nlp = ctx.load_lemmatizer(model)
    inflections = ctx.language_inflections(nlp, vocabulary)
    pages = list(dump_sentences(args.dump))
    n_sentences = sum(len(p) for p in pages)

    started = time.perf_counter()
    found, docs = [], []
    for sentences in pages:
        for sentence, doc in zip(sentences, nlp.pipe([s["text"] for s in sentences], batch_size=256)):
            sentence["targets"] = ctx.sentence_targets(doc, vocabulary, inflections)
            docs.append(doc)
        for window in ctx.context_windows(sentences):
            found += ctx.window_contexts(window, index)
    search = time.perf_counter() - started
    print(f"{len(pages)} pages, {n_sentences} sentences, {len(pairs)} pairs, {len(found)} contexts")
    print(f"lemma search ({model}): {search:.2f} s, {n_sentences / search:.0f} sentences/s")
    print_rule_changes(pages, docs, vocabulary, inflections, index, found)
    for spec in encoders:
        encoder = make_encoder(spec, model).load()
        started = time.perf_counter()
        pair_similarities(encoder, found)
        took = time.perf_counter() - started
        print(f"scoring with {spec}: {took:.2f} s, {len(found) / took if took else 0:.0f} contexts/s")


def print_rule_changes(pages, docs, vocabulary, inflections, index, found):
    """Uses the surface-form rule adds and the proper-name rule removes, and the contexts form-or-lemma alone finds."""
    by_form = [{w for w in (t.lower_, t.lemma_.lower()) if w in vocabulary} for doc in docs for t in doc]
    now = [ctx.token_words(t, vocabulary, inflections) for doc in docs for t in doc]
    added = sum(len(n - f) for n, f in zip(now, by_form))
    removed = sum(len(f - n) for n, f in zip(now, by_form))
    documents = iter(docs)
    alone = []
    for sentences in pages:
        for sentence in sentences:
            doc = next(documents)
            sentence["targets"] = [[w, t.idx, t.idx + len(t)] for t in doc
                                   for w in sorted({t.lower_, t.lemma_.lower()} & vocabulary)]
        for window in ctx.context_windows(sentences):
            alone += ctx.window_contexts(window, index)
    kept = {c["context_id"] for c in found}
    before = {c["context_id"] for c in alone}
    print(f"uses added by regular inflections: {added}; uses left out inside multi-word proper names: {removed}; "
          f"contexts by form or lemma alone: {len(before)} ({len(before - kept)} of them gone, {len(kept - before)} new)")


def run_candidates(source, pairs, encoders, out):
    """(wall s, CPU s of every process it started) of one `picforge cosimlex candidates` in a fresh process."""
    cpu, wall = children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "picforge.cli", "cosimlex", "candidates", "--pairs", pairs, *source,
                    "--out", out, *[flag for spec in encoders for flag in ("--scorer", spec)]],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - wall, children_cpu() - cpu


def time_mined_run(mined_run, pairs, encoders, repeats):
    """Median wall and CPU seconds of `cosimlex candidates` reading the mined run (each run in a new output folder),
    and what the last run wrote."""
    from picforge.rundir import RunDir

    timings = []
    with tempfile.TemporaryDirectory(prefix="cosimlex-run-") as work:
        for repeat in range(repeats):
            run = RunDir(f"{work}/{repeat}")
            timings.append(run_candidates(["--run", mined_run], pairs, encoders, run.root))
        wall, cpu = (statistics.median(m[i] for m in timings) for i in (0, 1))
        print(f"--run MINED_RUN: {wall:.1f} s wall, {cpu:.1f} CPU s (median of {repeats})")
        for stage in (CONTEXTS, CANDIDATES):
            rows = list(run.iter_records(stage))
            print(f"{stage}: {len(rows)} records, {len({r['pair_id'] for r in rows})} pairs")


if __name__ == "__main__":
    main()
