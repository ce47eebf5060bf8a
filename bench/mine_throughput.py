"""Words per second per core of the `sentences` + `phrases` stages, beside the original PiC extraction loop.

Both sides read the same dump slice through `iter_pages` + `clean_wikitext` (not timed) and split the same
Punkt sentences; picforge then runs spaCy with only the components noun chunks need (the attribute_ruler's
POS patterns compiled into `PosRules`) over `nlp.pipe` batches, and only on sentences in the pairs word window
that can hold a WiC word (as `ExtractPhrases` does; side `picforge-all` parses every sentence), while the original loop (PiC
`extract_wiki_phrases.py`) calls the full spaCy pipeline plus `merge_noun_chunks` once per sentence. Words are
the input's words on every side. Each side runs in its own process, so CPU time and peak RSS are its own. The
final candidate phrases (WiC word, >= 2 contexts in the word window: those that can form pairs) are compared.
`--repeat K` streams the input's pages K times (fresh page ids, same text) on every side, for more words than a
small input holds. spaCy's vocabulary and tokenizer keep each word string they have seen, so on both sides the
copies after the first cost less than distinct text would; picforge's rate gains the most (about 25% at 8x the
5-page sample), so its speed-up on distinct text is the one at --repeat 1.

    python bench/mine_throughput.py [--input DUMP] [--wic WIC_ZIP] [--max-pages N] [--repeat K] [--scale] [--components]
"""
import argparse
import collections
import multiprocessing
import os
import re
import resource
import sys
import time

from sample_paths import DEFAULT_INPUT, DEFAULT_WIC
from scaled_dump import PAGE_ID_STRIDE

SCALES = (1, 2, 4)
REPEATS = 2
WORD_WINDOW = (5, 25)  # MineOptions' min_words, max_words
EDGE_SYMBOLS = re.compile(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$")


class Stopwatch:
    """CPU and wall seconds, per named part, with the time spent inside `excluded` iterators left out."""

    def __init__(self):
        self.cpu = collections.defaultdict(float)
        self.wall = collections.defaultdict(float)

    def timed(self, part, fn, *args):
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return fn(*args)
        finally:
            self.cpu[part] += time.process_time() - cpu
            self.wall[part] += time.perf_counter() - wall

    def excluded(self, iterable):
        """Yield from `iterable`, booking the time it takes to produce each item as 'untimed'."""
        iterator = iter(iterable)
        while True:
            try:
                item = self.timed("untimed", next, iterator)
            except StopIteration:
                return
            yield item


def iter_clean_pages(dump, max_pages=None, repeat=1):
    """Cleaned pages {page_id, paragraphs} of the dump's articles, streamed `repeat` times (constant memory)."""
    from pipeline.stages import clean

    for copy in range(repeat):
        for page in clean.iter_clean_pages(dump, max_pages):
            yield dict(page, page_id=page["page_id"] + copy * PAGE_ID_STRIDE)


def start_clock():
    """CPU and wall time now, and the peak RSS so far (imports + model), where the timed part starts."""
    return time.process_time(), time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def picforge_side(pages, watch, occurrences, model_name, batch_size, wic_words, cuts=True):
    """The project's stages: page_sentences, then nlp.pipe (needed components only) on the sentences in the
    word window that can hold a WiC word (every sentence without the cuts) and extract_phrases."""
    from pipeline.stages.phrases import extract_phrases, in_pair_window, load_spacy, may_hold_wic_phrase
    from pipeline.stages.sentences import page_sentences

    nlp = load_spacy(model_name)
    counts = collections.Counter()

    def sentence_stream():
        for page in watch.excluded(pages):
            for sentence in watch.timed("split", list, page_sentences(page)):
                counts["words"] += sentence["n_words"]
                counts["sentences"] += 1
                if not cuts:
                    yield sentence["text"], sentence
                elif in_pair_window(sentence["n_words"], WORD_WINDOW):
                    doc = nlp.make_doc(sentence["text"])
                    if may_hold_wic_phrase(doc, wic_words):
                        yield doc, sentence

    started = start_clock()
    for doc, sentence in nlp.pipe(sentence_stream(), as_tuples=True, batch_size=batch_size):
        counts["parsed"] += 1
        for phrase, _, _, kind in watch.timed("extract", extract_phrases, doc):
            if occurrences is not None:
                occurrences[phrase].append({"sentence_id": sentence["sentence_id"], "kind": kind,
                                            "n_words": sentence["n_words"]})
    return counts["words"], counts["sentences"], counts["parsed"], started


def picforge_all_side(pages, watch, occurrences, model_name, batch_size, wic_words):
    """picforge with both cuts off (`mine --parse-all-sentences`)."""
    return picforge_side(pages, watch, occurrences, model_name, batch_size, wic_words, cuts=False)


def _trimmable(token, stop):
    core = EDGE_SYMBOLS.sub("", token)
    return not core or core in stop


def original_phrase(text, stop):
    """PiC's normalisation: lower-case, stopwords and symbols off both ends; None for unigrams/non-ASCII."""
    tokens = text.lower().replace("\n", " ").split()
    while tokens and _trimmable(tokens[0], stop):
        tokens.pop(0)
    while tokens and _trimmable(tokens[-1], stop):
        tokens.pop()
    phrase = EDGE_SYMBOLS.sub("", " ".join(tokens))
    if len(phrase.split()) < 2 or not phrase.isascii():
        return None
    return phrase


def original_phrases(doc, stop):
    """(phrase, kind) of a doc run through the full pipeline + merge_noun_chunks, as PiC's extraction loop: the
    noun chunks and the merged NOUN/PROPN tokens, normalised by `original_phrase`."""
    noun_phrases = [chunk.text.lower() for chunk in doc.noun_chunks]
    proper_nouns = [t.text.lower() for t in doc if t.pos_ == "PROPN"]
    nouns = [t.text.lower() for t in doc if t.pos_ == "NOUN"]
    found = []
    for candidate in set(noun_phrases + proper_nouns + nouns):
        phrase = original_phrase(candidate, stop)
        if phrase:
            found.append((phrase, "PROPN" if candidate in proper_nouns else "NOUN"))
    return found


def original_side(pages, watch, occurrences, model_name, batch_size, wic_words):
    """The PiC loop: spaCy's full pipeline + merge_noun_chunks called once per sentence."""
    import spacy

    from picforge.resources import stopwords
    from picforge.spacy_models import default_spacy_model
    from picforge.sentence_split import split_sentences

    nlp = spacy.load(model_name or default_spacy_model())
    nlp.add_pipe("merge_noun_chunks")
    stop = stopwords()
    words = sentences = 0
    started = start_clock()
    for page in watch.excluded(pages):
        idx = 0
        for paragraph in page["paragraphs"]:
            for text in watch.timed("split", split_sentences, paragraph):
                doc = nlp(text)
                n_words = len(text.split())
                words += n_words
                sentences += 1
                for phrase, kind in watch.timed("extract", original_phrases, doc, stop):
                    if occurrences is not None:
                        occurrences[phrase].append({"sentence_id": f"{page['page_id']}:{idx}", "kind": kind,
                                                    "n_words": n_words})
                idx += 1
    return words, sentences, sentences, started


SIDES = {"picforge": picforge_side, "picforge-all": picforge_all_side, "original": original_side}


def pairable_candidates(occurrences, wic_words):
    """Phrases with a WiC word and >= 2 contexts in the word window: the ones `pairs` can pair."""
    from pipeline.stages.group import group_phrase
    from pipeline.stages.phrases import in_pair_window

    return sorted(phrase for phrase, occs in occurrences.items()
                  if group_phrase(phrase, [o for o in occs if in_pair_window(o["n_words"], WORD_WINDOW)],
                                  wic_words, seed=0)[1])


def measure(side, dump, max_pages, repeat, model_name, batch_size, wic_path, keep_candidates=True):
    """Run one side in this (fresh) process; figures plus the final candidate phrases when keep_candidates."""
    from picforge.resources import read_wic_words

    watch = Stopwatch()
    wic_words = frozenset(read_wic_words(wic_path))
    occurrences = collections.defaultdict(list) if keep_candidates else None
    words, sentences, parsed, (cpu0, wall0, rss_before) = SIDES[side](
        iter_clean_pages(dump, max_pages, repeat), watch, occurrences, model_name, batch_size, wic_words)
    cpu = time.process_time() - cpu0 - watch.cpu["untimed"]
    wall = time.perf_counter() - wall0 - watch.wall["untimed"]
    figures = {
        "side": side, "words": words, "sentences": sentences, "parsed": parsed, "cpu_s": cpu, "wall_s": wall,
        "split_cpu_s": watch.cpu["split"], "extract_cpu_s": watch.cpu["extract"],
        "spacy_cpu_s": cpu - watch.cpu["split"] - watch.cpu["extract"], "untimed_cpu_s": watch.cpu["untimed"],
        "rss_before_mib": rss_before, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if keep_candidates:
        figures["candidates"] = pairable_candidates(occurrences, wic_words)
    return figures


def cpu_seconds(fn):
    started = time.process_time()
    fn()
    return time.process_time() - started


def component_costs(dump, max_pages, model_name, batch_size):
    """Cumulative CPU seconds (best of REPEATS) of spaCy with its first n components (full pipeline +
    merge_noun_chunks) over the slice's sentences: in nlp.pipe batches and with one call per sentence; last,
    picforge's PosRules (which replaces attribute_ruler) over the parsed sentences."""
    import spacy

    from picforge.pos_rules import PosRules
    from picforge.spacy_models import default_spacy_model
    from pipeline.stages.sentences import page_sentences

    texts = [s["text"] for page in iter_clean_pages(dump, max_pages) for s in page_sentences(page)]
    nlp = spacy.load(model_name or default_spacy_model())
    nlp.add_pipe("merge_noun_chunks")
    collections.deque(nlp.pipe(texts, batch_size=batch_size), maxlen=0)  # warm-up: lazy init, tokenizer cache
    rows = []
    for n in range(len(nlp.pipe_names) + 1):
        with nlp.select_pipes(enable=nlp.pipe_names[:n]):
            batched = min(cpu_seconds(lambda: collections.deque(nlp.pipe(texts, batch_size=batch_size), maxlen=0))
                          for _ in range(REPEATS))
            one_by_one = min(cpu_seconds(lambda: collections.deque(map(nlp, texts), maxlen=0)) for _ in range(REPEATS))
        rows.append((nlp.pipe_names[n - 1] if n else "tokenizer", batched, one_by_one))
    with nlp.select_pipes(enable=["tok2vec", "tagger", "parser"]):
        parsed = list(nlp.pipe(texts, batch_size=batch_size))
    rules = PosRules(nlp.get_pipe("attribute_ruler").patterns)
    rules_cpu = min(cpu_seconds(lambda: collections.deque(map(rules, parsed), maxlen=0)) for _ in range(REPEATS))
    return rows, rules_cpu


def run_isolated(fn, *args):
    """fn(*args) in a fresh spawned process, so CPU time and peak RSS belong to that run alone."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)


def print_sides(results):
    header = (f"{'side':<13}{'words':>9}{'sentences':>10}{'parsed':>8}{'CPU s':>9}{'wall s':>9}{'words/s/core':>14}"
              f"{'words/s wall':>14}{'split':>8}{'spaCy':>8}{'extract':>9}{'RSS at start':>14}{'peak RSS':>10}")
    print(header)
    for r in results:
        print(f"{r['side']:<13}{r['words']:>9,}{r['sentences']:>10,}{r['parsed']:>8,}{r['cpu_s']:>9.2f}{r['wall_s']:>9.2f}"
              f"{r['words'] / r['cpu_s']:>14,.0f}{r['words'] / r['wall_s']:>14,.0f}{r['split_cpu_s']:>8.2f}"
              f"{r['spacy_cpu_s']:>8.2f}{r['extract_cpu_s']:>9.2f}{r['rss_before_mib']:>14,.0f}{r['peak_rss_mib']:>10,.0f}")
    print("(words: all the input's words; parsed: sentences spaCy ran on; split / spaCy / extract: CPU seconds\n"
          " of the timed part; reading + cleaning the dump is not timed;\n"
          " RSS in MiB: peak after imports + model load, where timing starts, and peak at the end)")


def print_comparison(picforge, original):
    per_core = (picforge["words"] / picforge["cpu_s"]) / (original["words"] / original["cpu_s"])
    wall = (picforge["words"] / picforge["wall_s"]) / (original["words"] / original["wall_s"])
    print(f"\n{picforge['side']} vs {original['side']}: speed-up per core (CPU time): {per_core:.2f}x   "
          f"speed-up (wall): {wall:.2f}x" + ("   target: >= 10x" if original["side"] == "original" else ""))
    ours, theirs = set(picforge["candidates"]), set(original["candidates"])
    union = ours | theirs
    jaccard = len(ours & theirs) / len(union) if union else 1.0
    print(f"candidate phrases (WiC word, >= 2 contexts of 5-25 words): {picforge['side']} {len(ours)}, "
          f"{original['side']} {len(theirs)}, both {len(ours & theirs)}, Jaccard {jaccard:.3f}")
    print(f"  only {picforge['side']} ({len(ours - theirs)}): {', '.join(sorted(ours - theirs)) or '-'}")
    print(f"  only {original['side']} ({len(theirs - ours)}): {', '.join(sorted(theirs - ours)) or '-'}")


def print_scale(results):
    print(f"\npicforge side at {'/'.join(f'{s}x' for s in SCALES)} the input (pages streamed again; phrases extracted, "
          "not kept):")
    print(f"{'scale':<7}{'words':>10}{'CPU s':>9}{'words/s/core':>14}{'RSS at start':>14}{'peak RSS':>10}")
    for scale, r in zip(SCALES, results):
        print(f"{scale:<7}{r['words']:>10,}{r['cpu_s']:>9.2f}{r['words'] / r['cpu_s']:>14,.0f}"
              f"{r['rss_before_mib']:>14,.0f}{r['peak_rss_mib']:>10,.0f}")


def print_components(costs):
    rows, rules_cpu = costs
    print("\nCPU seconds each spaCy component adds (cumulative pipeline, same sentences; picforge runs "
          "tok2vec, tagger, parser and PosRules in place of attribute_ruler):")
    print(f"{'component':<20}{'nlp.pipe batches':>18}{'one call per sentence':>23}")
    previous = (0.0, 0.0)
    for name, batched, one_by_one in rows:
        print(f"{('+ ' if name != 'tokenizer' else '') + name:<20}{batched - previous[0]:>18.2f}{one_by_one - previous[1]:>23.2f}")
        previous = (batched, one_by_one)
    print(f"{'total':<20}{rows[-1][1]:>18.2f}{rows[-1][2]:>23.2f}")
    print(f"{'PosRules':<20}{rules_cpu:>18.2f}   (picforge's compiled attribute_ruler POS patterns, per parsed doc)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", default=DEFAULT_INPUT, help="pages-articles dump (default: the shared enwiki sample)")
    parser.add_argument("--wic", default=DEFAULT_WIC, help="the official WiC_dataset.zip")
    parser.add_argument("--max-pages", type=int, help="read at most N articles")
    parser.add_argument("--spacy-model", help="spaCy model (default: picforge's default)")
    parser.add_argument("--batch-size", type=int, default=256, help="nlp.pipe batch size (ExtractPhrases' default)")
    parser.add_argument("--repeat", type=int, default=1, help="stream the input's pages K times on every side")
    parser.add_argument("--scale", action="store_true", help="also measure peak RSS at 1x/2x/4x the input")
    parser.add_argument("--components", action="store_true", help="also time each spaCy component, batched and per sentence")
    args = parser.parse_args(argv)
    for path in (args.input, args.wic):
        if not os.path.exists(path) and "://" not in path:
            parser.error(f"{path}: not found (set PICFORGE_SHARED_DATA or pass --input/--wic)")

    import spacy
    print(f"input: {args.input}  max pages: {args.max_pages or 'all'}  repeat: {args.repeat}x  spaCy {spacy.__version__} "
          f"model: {args.spacy_model or 'default'}  batch: {args.batch_size}  CPUs: {os.cpu_count()}  "
          f"load: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    results = [run_isolated(measure, side, args.input, args.max_pages, args.repeat, args.spacy_model, args.batch_size,
                            args.wic)
               for side in SIDES]
    print_sides(results)
    picforge, picforge_all, original = results
    print_comparison(picforge, original)
    print_comparison(picforge_all, original)
    print_comparison(picforge, picforge_all)
    print(f"\nload at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.scale:
        print_scale([run_isolated(measure, "picforge", args.input, args.max_pages, scale, args.spacy_model,
                                  args.batch_size, args.wic, False)
                     for scale in SCALES])
    if args.components:
        print_components(run_isolated(component_costs, args.input, args.max_pages, args.spacy_model, args.batch_size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
