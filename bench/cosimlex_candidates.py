"""Throughput of the CoSimLex candidate search on a pages-articles dump: lemma matching per sentence and
pair scoring per context for each encoder (single process, no Beam overhead). Prints figures, and what the
surface-form and proper-name rules change against form-or-lemma matching alone.

    python bench/cosimlex_candidates.py DUMP.xml.bz2 PAIRS.txt [--encoders minilm,tok2vec]
"""
import argparse
import time

from companions.cosimlex import contexts as ctx
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
    parser.add_argument("--encoders", default="minilm,tok2vec")
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
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
    for spec in args.encoders.split(","):
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


if __name__ == "__main__":
    main()
