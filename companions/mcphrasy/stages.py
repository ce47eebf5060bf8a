"""Beam stages of McPhraSy: corpus documents, phrase contexts, A.1 triplets and frequent noun phrases."""
import logging
import zlib

import apache_beam as beam
import numpy as np
from apache_beam.metrics import Metrics

from companions.mcphrasy import corpus, grouping, match, nps, triplets
from companions.mcphrasy.settings import CONTEXTS, DOCUMENTS, MAX_CONTEXTS, PHRASES, TRIPLETS
from picforge.encoders import encode, load_sentence_model
from picforge.progress import Progress
from picforge.sentence_split import split_sentences


def parse_review(item, category):
    """The document of one (doc_id, line, file category) of a reviews file; a bad row is a counted skip."""
    doc_id, line, file_category = item
    reason, document = corpus.review_document(line, doc_id, category, file_category)
    Metrics.counter(DOCUMENTS, reason if reason == "kept" else f"skipped-{reason}").inc()
    if document:
        yield document


def read_review_file(path):
    """The lines of one reviews file; a file that stops being readable (truncated gzip…) is a counted skip."""
    try:
        yield from corpus.review_lines(path)
    except (OSError, EOFError, zlib.error) as err:
        logging.getLogger(__name__).warning("%s: unreadable after some lines (%s); the rest is skipped", path, err)
        Metrics.counter(DOCUMENTS, "skipped-unreadable-file").inc()


class ReadReviews(beam.PTransform):
    """Reviews files (Ni et al. 2019 JSON lines, plain or gzip) → documents; one category for all, or each row's."""

    def __init__(self, paths, category=None):
        super().__init__()
        self.paths = sorted(paths)
        self.category = category

    def expand(self, pipeline):
        return (pipeline
                | "list review files" >> beam.Create(self.paths)
                | "read review lines" >> beam.FlatMap(read_review_file)
                | "parse reviews" >> beam.FlatMap(parse_review, self.category))


class WikiDocuments(beam.PTransform):
    """Mined Sentence records → documents (page = product; category: each page's first from its `pages` Page
    record with `wiki_category` "page", else one for all)."""

    def __init__(self, pages=None, wiki_category="one"):
        super().__init__()
        self.pages, self.wiki_category = pages, wiki_category

    def expand(self, sentences):
        def as_document(sentence, page_categories):
            Metrics.counter(DOCUMENTS, "kept").inc()
            return corpus.wiki_document(sentence, page_categories)

        if self.wiki_category == "page":
            categories = self.pages | "page categories" >> beam.Map(
                lambda page: (page["page_id"], corpus.first_category(page)))
        else:
            categories = sentences.pipeline | "one category" >> beam.Create([])
        return sentences | "sentence to document" >> beam.Map(as_document, beam.pvalue.AsDict(categories))


def review_sentences(document):
    """The Punkt sentences of a review as documents of their own (id doc_id:n)."""
    return [dict(document, doc_id=f"{document['doc_id']}:{n}", text=text)
            for n, text in enumerate(split_sentences(document["text"]))]


class _MatchFn(beam.DoFn):
    """Every listed phrase found in a sentence, as (phrase, context) with each of its occurrences masked."""

    def __init__(self, phrases, seed):
        self.phrases = list(phrases)
        self.seed = seed
        self.sentences = Metrics.counter(CONTEXTS, "sentences")
        self.matched = Metrics.counter(CONTEXTS, "sentences-with-a-phrase")
        self.matches = Metrics.counter(CONTEXTS, "phrase-matches")

    def setup(self):
        self.automaton = match.build_automaton(self.phrases)
        self.progress = Progress(CONTEXTS, "sentences searched")

    def process(self, sentence):
        self.sentences.inc()
        self.progress.tick()
        found = match.find_phrases(self.automaton, sentence["text"])
        if found:
            self.matched.inc()
            self.matches.inc(len(found))
        for phrase, spans in sorted(found.items()):
            rank = match.context_rank(self.seed, phrase, sentence["doc_id"])
            yield phrase, (rank, {"sentence_id": sentence["doc_id"], "product": sentence["product"],
                           "category": sentence["category"], "text": sentence["text"],
                           "spans": [list(span) for span in spans], "masked": match.masked(sentence["text"], spans)})


class SampleContexts(beam.CombineFn):
    """Per phrase: how many sentences matched, and the `size` (rank, context) of smallest seeded rank."""

    def __init__(self, size):
        self.size = size

    def create_accumulator(self):
        return 0, []

    def add_input(self, accumulator, ranked_context):
        count, kept = accumulator
        kept.append(ranked_context)
        return self._trim(count + 1, kept)

    def merge_accumulators(self, accumulators):
        accumulators = list(accumulators)
        return self._trim(sum(a[0] for a in accumulators), [item for a in accumulators for item in a[1]])

    def _trim(self, count, kept):
        if len(kept) > 2 * self.size:
            kept = sorted(kept, key=lambda item: item[0])[:self.size]
        return count, kept

    def extract_output(self, accumulator):
        count, kept = accumulator
        return count, [context for _, context in sorted(kept, key=lambda item: item[0])[:self.size]]


def phrase_record(item):
    """The PhraseContexts record of one phrase (contexts in sample order)."""
    phrase, (count, contexts) = item
    Metrics.counter(CONTEXTS, "phrases-with-contexts").inc()
    Metrics.counter(CONTEXTS, "contexts-kept").inc(len(contexts))
    return {"phrase": phrase, "n_sentences": count, "contexts": contexts}


class RetrieveContexts(beam.PTransform):
    """Sentences → one record per matched phrase with up to `max_contexts` seeded-sample contexts (McPhraSy §3.1)."""

    def __init__(self, phrases, max_contexts=MAX_CONTEXTS, seed=0):
        super().__init__()
        self.phrases = phrases
        self.max_contexts = max_contexts
        self.seed = seed

    def expand(self, sentences):
        return (sentences
                | "match phrases" >> beam.ParDo(_MatchFn(self.phrases, self.seed))
                | "sample contexts" >> beam.CombinePerKey(SampleContexts(self.max_contexts))
                | "phrase records" >> beam.Map(phrase_record))


def negative_candidates(record):
    """Each sampled context of a phrase as a candidate negative sentence, with its phrase."""
    for context in record["contexts"]:
        yield dict(context, phrase=record["phrase"])


class _TripletFn(beam.DoFn):
    """A.1 triplet of one phrase: its contexts and the negatives drawn for it, embedded by the encoder (loaded
    once per worker)."""

    CACHE_LIMIT = 200_000  # embedded sentences kept per worker; the cache starts again past it

    def __init__(self, encoder, seed, device="auto"):
        self.encoder = encoder
        self.seed = seed
        self.device = device
        self.too_few = Metrics.counter(TRIPLETS, "skipped-single-context")
        self.no_negative = Metrics.counter(TRIPLETS, "skipped-no-negative")
        self.made = Metrics.counter(TRIPLETS, "triplets")

    def setup(self):
        self.model = load_sentence_model(self.encoder, device=self.device)
        self.cache = {}
        self.candidates = None
        self.progress = Progress(TRIPLETS, "phrases")

    def vectors(self, texts):
        if len(self.cache) > self.CACHE_LIMIT:
            self.cache.clear()
        missing = sorted({t for t in texts if t not in self.cache})
        if missing:
            self.cache.update(zip(missing, encode(self.model, missing)))
        return np.stack([self.cache[t] for t in texts])

    def sorted_candidates(self, candidates):
        """The candidates in a fixed order (sentence id, phrase) with their folded text, made once per worker: the
        side input is one list for the whole run, whatever order it arrives in."""
        if self.candidates is None:
            self.candidates = [(c, match.fold(c["text"]))
                               for c in sorted(candidates, key=lambda c: (c["sentence_id"], c["phrase"]))]
        return self.candidates

    def process(self, record, candidates):
        phrase, contexts = record["phrase"], record["contexts"][:triplets.ANCHOR_POOL]
        self.progress.tick()
        if len(contexts) < 2:
            self.too_few.inc()
            return
        pool = self.sorted_candidates(candidates)
        drawn = triplets.draw_negatives(self.seed, phrase, len(pool), lambda i: match.holds_phrase(pool[i][1], phrase))
        if not drawn:
            self.no_negative.inc()
            return
        negatives = [pool[i][0] for i in drawn]
        anchor, positive, negative = triplets.choose_triplet(self.vectors([c["masked"] for c in contexts]),
                                                             self.vectors([n["masked"] for n in negatives]))
        self.made.inc()
        yield {"phrase": phrase, "anchor": contexts[anchor], "positive": contexts[positive],
               "negative_phrase": negatives[negative]["phrase"],
               "negative": {k: v for k, v in negatives[negative].items() if k != "phrase"}}


class ContextTriplets(beam.PTransform):
    """PhraseContexts records → A.1 triplets; each phrase's 300 negative candidates are drawn for it (seeded) from
    every sampled context of the other phrases that does not hold it."""

    def __init__(self, encoder, seed=0, device="auto"):
        super().__init__()
        self.encoder = encoder
        self.seed = seed
        self.device = device

    def expand(self, records):
        candidates = records | "negative candidates" >> beam.FlatMap(negative_candidates)
        return records | "choose triplets" >> beam.ParDo(_TripletFn(self.encoder, self.seed, self.device),
                                                         beam.pvalue.AsList(candidates))


class _NounPhraseFn(beam.DoFn):
    """((product, category), phrase) for each B.1 noun phrase in the first 200 characters of each document."""

    def __init__(self, spacy_model):
        self.spacy_model = spacy_model
        self.documents = Metrics.counter(PHRASES, "documents")
        self.found = Metrics.counter(PHRASES, "noun-phrases")

    def setup(self):
        self.nlp = nps.load_tagger(self.spacy_model)
        self.progress = Progress(PHRASES, "documents tagged")

    def process(self, batch):
        prefixes = [nps.document_prefix(d["text"]) for d in batch]
        for document, doc in zip(batch, self.nlp.pipe(prefixes)):
            self.documents.inc()
            self.progress.tick()
            for phrase in nps.noun_phrases([t.text for t in doc], [t.tag_ for t in doc]):
                self.found.inc()
                yield (document["product"], document["category"]), phrase


def product_top(item, n):
    """((category, phrase), count) of a product's n most frequent phrases."""
    (_, category), phrases = item
    counts = {}
    for phrase in phrases:
        counts[phrase] = counts.get(phrase, 0) + 1
    Metrics.counter(PHRASES, "products").inc()
    for phrase, count in grouping.top_phrases(counts, n):
        yield (category, phrase), count


def category_phrases(item, n):
    """PhraseCount records of a category's n most frequent phrases that pass the B.1 filters (skips counted)."""
    category, counted = item
    rank = 0
    for phrase, count in grouping.top_phrases(dict(counted), n):
        reason = nps.filter_reason(phrase)
        if reason:
            Metrics.counter(PHRASES, f"filtered-{reason}").inc()
            continue
        rank += 1
        Metrics.counter(PHRASES, "kept").inc()
        yield {"category": category, "phrase": phrase, "count": count, "rank": rank}


class FrequentPhrases(beam.PTransform):
    """Documents → each category's top phrases: top `per_product` per product, summed, top `per_category`, filtered."""

    def __init__(self, spacy_model, per_product=grouping.PER_PRODUCT, per_category=grouping.PER_CATEGORY):
        super().__init__()
        self.spacy_model = spacy_model
        self.per_product = per_product
        self.per_category = per_category

    def expand(self, documents):
        return (documents
                | "batch documents" >> beam.BatchElements(min_batch_size=16, max_batch_size=256)
                | "noun phrases" >> beam.ParDo(_NounPhraseFn(self.spacy_model))
                | "group by product" >> beam.GroupByKey()
                | "top per product" >> beam.FlatMap(product_top, self.per_product)
                | "sum per category" >> beam.CombinePerKey(sum)
                | "key by category" >> beam.Map(lambda item: (item[0][0], (item[0][1], item[1])))
                | "group by category" >> beam.GroupByKey()
                | "top per category" >> beam.FlatMap(category_phrases, self.per_category))
