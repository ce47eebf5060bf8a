"""Retrieval rate of `picforge mcphrasy contexts` on real text: one Aho–Corasick pass per sentence beside the
baseline of one regular expression per phrase, and the Beam stage end to end. Prints figures.

    python bench/mcphrasy_contexts.py [DUMP.xml.bz2] [--phrases N] [--baseline-sentences N] [--beam]
"""
import argparse
import collections
import os
import re
import time

from companions.mcphrasy import match
from pipeline.stages.clean import iter_clean_pages
from pipeline.stages.sentences import page_sentences

DEFAULT_DUMP = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "wiki",
                            "enwiki-sample-103pages.xml.bz2")


def frequent_bigrams(texts, n):
    """The n most frequent lower-cased word pairs of the texts: a phrase list of realistic size and hit rate."""
    counts = collections.Counter()
    for text in texts:
        words = re.findall(r"[^\W_]+", text.lower())
        counts.update(" ".join(pair) for pair in zip(words, words[1:]))
    return [phrase for phrase, _ in counts.most_common(n)]


def automaton_pass(phrases, texts):
    """(seconds, phrase-sentence matches) of one Aho–Corasick pass over every sentence."""
    started = time.perf_counter()
    automaton = match.build_automaton(phrases)
    matches = sum(len(match.find_phrases(automaton, text)) for text in texts)
    return time.perf_counter() - started, matches


def regex_pass(phrases, texts):
    """(seconds, phrase-sentence matches) of one compiled regular expression per phrase over every sentence."""
    started = time.perf_counter()
    patterns = [re.compile(r"(?<![^\W_])" + re.escape(p) + r"(?![^\W_])", re.IGNORECASE) for p in phrases]
    matches = sum(1 for text in texts for pattern in patterns if pattern.search(text))
    return time.perf_counter() - started, matches


def beam_pass(phrases, texts):
    """Seconds of the RetrieveContexts stage on the DirectRunner (m = 300, seed 0), records discarded."""
    import apache_beam as beam

    from companions.mcphrasy.stages import RetrieveContexts

    sentences = [{"doc_id": f"0:{n}", "product": "0", "category": "wikipedia", "text": t} for n, t in enumerate(texts)]
    started = time.perf_counter()
    with beam.Pipeline() as pipeline:
        _ = pipeline | beam.Create(sentences) | RetrieveContexts(phrases) | beam.combiners.Count.Globally()
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", nargs="?", default=DEFAULT_DUMP)
    parser.add_argument("--phrases", type=int, default=2000, help="phrase-list size (default 2000)")
    parser.add_argument("--baseline-sentences", type=int, default=2000,
                        help="sentences the regex baseline reads (it is slow; default 2000)")
    parser.add_argument("--beam", action="store_true", help="also time the Beam stage on the DirectRunner")
    args = parser.parse_args()
    texts = [s["text"] for page in iter_clean_pages(args.dump) for s in page_sentences(page)]
    phrases = frequent_bigrams(texts, args.phrases)
    print(f"input: {args.dump}: {len(texts)} sentences; {len(phrases)} phrases (most frequent word pairs)")

    seconds, matches = automaton_pass(phrases, texts)
    print(f"aho-corasick, all sentences:  {len(texts) / seconds:10.0f} sentences/s  {matches / seconds:10.0f} "
          f"phrases matched/s  ({matches} matches in {seconds:.2f} s)")
    sample = texts[:args.baseline_sentences]
    ac_seconds, ac_matches = automaton_pass(phrases, sample)
    re_seconds, re_matches = regex_pass(phrases, sample)
    print(f"on the first {len(sample)} sentences:")
    print(f"  aho-corasick (one pass):    {len(sample) / ac_seconds:10.0f} sentences/s  "
          f"{ac_matches / ac_seconds:10.0f} phrases matched/s  ({ac_matches} matches)")
    print(f"  regex per phrase (baseline):{len(sample) / re_seconds:10.0f} sentences/s  "
          f"{re_matches / re_seconds:10.0f} phrases matched/s  ({re_matches} matches)")
    print(f"  speed-up: {re_seconds / ac_seconds:.1f}x; same matches: {ac_matches == re_matches}")
    if args.beam:
        seconds = beam_pass(phrases, texts)
        print(f"beam RetrieveContexts (DirectRunner, m=300): {len(texts) / seconds:.0f} sentences/s "
              f"({seconds:.1f} s, {matches / seconds:.0f} phrases matched/s)")


if __name__ == "__main__":
    main()
