"""Throughput of the CoSimLex candidate search on a pages-articles dump: lemma matching per sentence and
pair scoring per context for each encoder (single process, no Beam overhead). Prints figures.

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
    pages = list(dump_sentences(args.dump))
    n_sentences = sum(len(p) for p in pages)

    started = time.perf_counter()
    found = []
    for sentences in pages:
        for sentence, doc in zip(sentences, nlp.pipe([s["text"] for s in sentences], batch_size=256)):
            sentence["targets"] = ctx.sentence_targets(doc, vocabulary)
        for window in ctx.context_windows(sentences):
            found += ctx.window_contexts(window, index)
    search = time.perf_counter() - started
    print(f"{len(pages)} pages, {n_sentences} sentences, {len(pairs)} pairs, {len(found)} contexts")
    print(f"lemma search ({model}): {search:.2f} s, {n_sentences / search:.0f} sentences/s")
    for spec in args.encoders.split(","):
        encoder = make_encoder(spec, model).load()
        started = time.perf_counter()
        pair_similarities(encoder, found)
        took = time.perf_counter() - started
        print(f"scoring with {spec}: {took:.2f} s, {len(found) / took if took else 0:.0f} contexts/s")


if __name__ == "__main__":
    main()
