"""Throughput of the CoSimLex candidate search on a pages-articles dump: lemma matching per sentence and
pair scoring per context for each encoder (single process, no Beam overhead). Prints figures, and what the
surface-form and proper-name rules change against form-or-lemma matching alone. With `--mined-run RUN` (a run
`picforge mine` wrote of the same dump) it times instead the whole `picforge cosimlex candidates` in a fresh process
reading the mined run (`--run RUN`), with the same pairs, and counts what it wrote. With `--scale K` it times the
whole `picforge cosimlex candidates --run` (a fresh process, start-up included) on the dump mined and on the dump
repeated K times (fresh ids and titles, same text; mining untimed), and prints the CPU seconds of both sizes, the cost
per article (the slope between them) and the fixed part, beside the same figures of the code of git revision REV
(`--against REV`, a temporary git worktree), then whether both codes wrote the same contexts and candidates.

    python bench/cosimlex_candidates.py [DUMP.xml.bz2] [PAIRS.txt] [--encoder tok2vec …]
    python bench/cosimlex_candidates.py DUMP.xml.bz2 PAIRS.txt --mined-run RUN [--repeats N]
    python bench/cosimlex_candidates.py [DUMP.xml.bz2] [PAIRS.txt] --scale 4 [--against REV] [--repeats N] [--work DIR]

DUMP defaults to the shared 103-page sample, PAIRS to examples/cosimlex-pairs.txt (SimLex-999 is not shipped).
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from mine_child import children_cpu, run_mine
from sample_paths import DEFAULT_INPUT, DEFAULT_WIC, ROOT
from scaled_dump import write_scaled_dump

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
    parser.add_argument("dump", nargs="?", default=DEFAULT_INPUT)
    parser.add_argument("pairs", nargs="?", default=os.path.join(ROOT, "examples", "cosimlex-pairs.txt"))
    parser.add_argument("--encoder", action="append", help="repeated for each encoder (default: minilm and tok2vec)")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--mined-run", help="a mined run of DUMP: time `cosimlex candidates` reading it")
    parser.add_argument("--repeats", type=int, default=1, help="with --mined-run or --scale: runs of each (medians)")
    parser.add_argument("--scale", type=int, help="time the command on the dump and on it repeated K times")
    parser.add_argument("--against", metavar="REV", help="with --scale: also the code of git revision REV")
    parser.add_argument("--work", help="with --scale: keep the scaled dump and mined runs here and reuse them")
    args = parser.parse_args()
    encoders = args.encoder or ["minilm", "tok2vec"]
    if args.scale:
        compare_slopes(args.dump, args.pairs, encoders, args.scale, args.against, args.repeats, args.work)
        return
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


def run_candidates(source, pairs, encoders, out, code=ROOT):
    """(wall s, CPU s of every process it started) of one `picforge cosimlex candidates` of the code in `code`, in a
    fresh process."""
    cpu, wall = children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "picforge.cli", "cosimlex", "candidates", "--pairs", pairs, *source,
                    "--out", out, *[flag for spec in encoders for flag in (scorer_flag(code), spec)]],
                   cwd=code, env=dict(os.environ, PYTHONPATH=code), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - wall, children_cpu() - cpu


def mined_articles(run):
    """Articles a mined run read (its funnel's first step)."""
    with open(os.path.join(run, "funnel.json"), encoding="utf-8") as fh:
        return next(step["count"] for step in json.load(fh) if " articles " in step["step"])


def mined_scales(dump, scale, work):
    """{1: mined run of `dump`, scale: mined run of it repeated `scale` times}, made in `work` unless there already."""
    runs = {}
    for k in (1, scale):
        run = os.path.join(work, f"mined-{k}x")
        if not os.path.exists(os.path.join(run, "funnel.json")):
            source = dump
            if k > 1:
                source = os.path.join(work, f"dump-{k}x.xml.bz2")
                write_scaled_dump(dump, k, source)
            run_mine(source, DEFAULT_WIC, run)
        runs[k] = run
    return runs


def compare_slopes(dump, pairs, encoders, scale, against, repeats, work):
    """CPU s of `cosimlex candidates` at 1× and scale× (medians of `repeats`), slope per article and fixed part, for
    this code and REV's; then whether the two codes wrote the same records."""
    from picforge.rundir import RunDir

    work = work or tempfile.mkdtemp(prefix="cosimlex-slope-")
    runs = mined_scales(dump, scale, work)
    articles = {k: mined_articles(run) for k, run in runs.items()}
    codes = {"this code": ROOT}
    if against:
        codes[f"at {against}"] = tempfile.mkdtemp(prefix="cosimlex-bench-code-")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", codes[f"at {against}"], against], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    figures, wrote = {}, {}
    try:
        with tempfile.TemporaryDirectory(prefix="cosimlex-slope-out-") as outs:
            for repeat in range(repeats):
                for k, run in runs.items():
                    for name, code in codes.items():  # the codes take turns, so load on the machine hits both alike
                        out = os.path.join(outs, f"{name}-{k}-{repeat}".replace(" ", "_"))
                        figures.setdefault((name, k), []).append(run_candidates(["--run", run], pairs, encoders, out,
                                                                                code)[1])
                        wrote[name, k] = {stage: sorted(RunDir(out).iter_records(stage), key=lambda r: r["context_id"])
                                          for stage in (CONTEXTS, CANDIDATES)}
    finally:
        for name, code in codes.items():
            if code != ROOT:
                subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", code], check=False)
    print(f"cosimlex candidates --run, {len(read_simlex(pairs))} pairs of {os.path.basename(pairs)}: "
          f"{articles[1]} and {articles[scale]} articles (1× and {scale}×), CPU s median of {repeats}")
    line = {}
    for name in codes:
        small, large = (statistics.median(figures[name, k]) for k in (1, scale))
        slope = (large - small) / (articles[scale] - articles[1])
        line[name] = (slope, small - slope * articles[1])
        print(f"  {name}: {small:.1f} CPU s at 1×, {large:.1f} at {scale}×; {slope:.3f} CPU s per article, "
              f"{line[name][1]:.1f} CPU s fixed")
    if against:
        (_, (new_slope, new_fixed)), (_, (old_slope, old_fixed)) = line.items()
        print(f"  per article {old_slope / new_slope:.1f}× less, fixed part {old_fixed / new_fixed:.1f}× less")
        for k in (1, scale):
            print(f"  {k}×: " + "; ".join(output_changes(stage, *(wrote[n, k][stage] for n in codes))
                                          for stage in (CONTEXTS, CANDIDATES)))


def output_changes(stage, new, old):
    """How a stage's records of the two codes compare: the same records (scores aside), the same candidate texts
    (pair, context, picked_by: a dump repeated K times holds K equal texts, whose order a score's last bits decide),
    and the largest score difference."""
    a, b = ({r["context_id"]: r for r in rows} for rows in (new, old))
    bare = [{k: v for k, v in r.items() if k != "scores"} for r in (*new, *old)]
    texts = [collections.Counter((r["pair_id"], r["context"], r.get("picked_by")) for r in rows) for rows in (new, old)]
    moved = max((abs(x["similarity"] - y["similarity"]) for key in a.keys() & b.keys()
                 for x, y in zip(a[key].get("scores", []), b[key].get("scores", []))), default=0.0)
    return (f"{stage} {len(new)} / {len(old)}: {'identical' if bare[:len(new)] == bare[len(new):] else 'other'} "
            f"records, {'the same' if texts[0] == texts[1] else 'OTHER'} texts, largest score change {moved:.1e}")


def scorer_flag(code):
    """The flag naming a scorer in the candidates verb of the code in `code` (`--scorer`; `--encoder` before the
    one-meaning-per-option rule)."""
    with open(os.path.join(code, "companions", "cosimlex", "cli", "candidates.py"), encoding="utf-8") as fh:
        return "--scorer" if '"--scorer"' in fh.read() else "--encoder"


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
