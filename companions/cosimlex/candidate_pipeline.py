"""Beam stages of the CoSimLex candidate search: Sentence records (a mined run's `sentences`) → contexts → scored,
selected candidates."""
import hashlib

import apache_beam as beam
from apache_beam.metrics import Metrics

from companions.cosimlex import contexts as ctx
from companions.cosimlex.encoders import make_encoder, pair_similarities
from companions.cosimlex.select import DEFAULT_MAX_CONTEXTS, select_candidates
from companions.cosimlex.stage_names import CANDIDATES, CONTEXTS
from picforge import shuffle


class _PageContextsFn(beam.DoFn):
    """The contexts of each page's sentences (`page_contexts`): only the sentences of windows where both words of a
    pair may occur are tagged and lemmatized (`contexts.page_search`)."""

    def __init__(self, spacy_model, pairs, low_resource):
        self.spacy_model = spacy_model
        self.pairs = list(pairs)
        self.low_resource = low_resource
        self.tagged = Metrics.counter(CONTEXTS, "sentences-tagged")
        self.with_targets = Metrics.counter(CONTEXTS, "sentences-with-targets")

    def setup(self):
        self.nlp = ctx.load_lemmatizer(self.spacy_model)
        self.vocabulary = frozenset(w for p in self.pairs for w in (p.word1, p.word2))
        self.inflections = ctx.language_inflections(self.nlp, self.vocabulary)
        self.pair_index = ctx.pairs_by_first_word(self.pairs)
        self.words_of_form = ctx.possible_words(self.nlp, self.vocabulary, self.inflections)

    def process(self, keyed_page):
        sentences = [dict(s) for s in keyed_page[1]]
        windows, searched, tagged = ctx.page_search(self.nlp, sentences, self.vocabulary, self.inflections,
                                                    self.pair_index, self.words_of_form)
        self.tagged.inc(len(tagged))
        self.with_targets.inc(sum(1 for s in tagged if s["targets"]))
        yield from page_contexts(len(windows), searched, self.pair_index, self.low_resource)


class FindContexts(beam.PTransform):
    """Sentence records → context records: 3-sentence windows inside one paragraph with each word once and no
    sentence flagged broken."""

    def __init__(self, pairs, spacy_model, low_resource=False):
        super().__init__()
        self.pairs = list(pairs)
        self.spacy_model = spacy_model
        self.low_resource = low_resource

    def expand(self, sentences):
        return (sentences
                | "key by page" >> beam.Map(lambda s: (s["page_id"], s))
                | "group pages" >> shuffle.GroupByKey()
                | "match pairs" >> beam.ParDo(_PageContextsFn(self.spacy_model, self.pairs, self.low_resource)))


def page_contexts(windows, searched, pair_index, low_resource):
    """The contexts of the windows `searched` of one page (of `windows` in all), dropping those holding a sentence
    mining flagged broken and, in low-resource mode, malformed ones (both counted)."""
    Metrics.counter(CONTEXTS, "windows").inc(windows)
    for window in searched:
        found = list(ctx.window_contexts(window, pair_index))
        if not found:
            continue
        if any(s["broken"] for s in window):
            Metrics.counter(CONTEXTS, "dropped-broken-sentence").inc(len(found))
            continue
        if low_resource:
            reasons = ctx.malformed_reasons([s["text"] for s in window])
            for reason in reasons:
                Metrics.counter(CONTEXTS, f"malformed-{reason}").inc(len(found))
            if reasons:
                continue
        Metrics.counter(CONTEXTS, "contexts").inc(len(found))
        yield from found


def sample_key(context):
    """A stable pseudo-random rank, so a pair's context sample is the same on every run and runner."""
    return hashlib.sha256(context["context_id"].encode("utf-8")).hexdigest()


class _ScoreFn(beam.DoFn):
    """Adds each encoder's contextual similarity of the pair (`scores`) to batches of context records."""

    def __init__(self, scorer, spacy_model, device):
        self.scorer = list(scorer)
        self.spacy_model = spacy_model
        self.device = device
        self.unscored = Metrics.counter(CANDIDATES, "unscored-contexts")

    def setup(self):
        self.encoders = {spec: make_encoder(spec, self.spacy_model, self.device).load() for spec in self.scorer}

    def teardown(self):
        self.encoders = {}  # the models (and their thread pools) go with the job, not at interpreter exit

    def process(self, batch):
        columns = {spec: pair_similarities(encoder, batch) for spec, encoder in self.encoders.items()}
        for row, context in enumerate(batch):
            scores = [{"encoder": spec, "similarity": sims[row]}
                      for spec, sims in columns.items() if sims[row] is not None]
            if len(scores) < len(columns):
                self.unscored.inc()
            yield dict(context, scores=scores)


def pair_candidates(keyed_contexts, scorer, per_encoder):
    """Candidates of one pair; a pair whose contexts all hold the same two occurrences gives none (counted)."""
    _, contexts = keyed_contexts
    contexts = list(contexts)
    if len({tuple(c["occurrences"]) for c in contexts}) < 2:
        Metrics.counter(CANDIDATES, "pairs-with-one-occurrence").inc()
        return []
    Metrics.counter(CANDIDATES, "pairs-with-candidates").inc()
    return select_candidates(contexts, scorer, per_encoder)


class SelectCandidates(beam.PTransform):
    """Context records → candidates: sample ≤ max_contexts per pair, score with each `scorer`, keep the ends."""

    def __init__(self, scorer, spacy_model, per_encoder, max_contexts=DEFAULT_MAX_CONTEXTS, device="auto"):
        super().__init__()
        self.scorer = list(scorer)
        self.spacy_model = spacy_model
        self.per_encoder = per_encoder
        self.max_contexts = max_contexts
        self.device = device

    def expand(self, contexts):
        return (contexts
                | "key by pair" >> beam.Map(lambda c: (c["pair_id"], c))
                | "sample contexts" >> beam.combiners.Top.PerKey(self.max_contexts, key=sample_key)
                | "flatten sample" >> beam.FlatMap(lambda kv: kv[1])
                | "batch contexts" >> beam.BatchElements(min_batch_size=8, max_batch_size=64)
                | "score pairs" >> beam.ParDo(_ScoreFn(self.scorer, self.spacy_model, self.device))
                | "key scored by pair" >> beam.Map(lambda c: (c["pair_id"], c))
                | "group pairs" >> shuffle.GroupByKey()
                | "select ends" >> beam.FlatMap(pair_candidates, self.scorer, self.per_encoder))


class CosimlexCandidates(beam.PTransform):
    """Sentence records → {cosimlex-contexts: every context found, cosimlex-candidates: the selected ones}; `lang`,
    the language of the sentences and pairs, is kept in the manifest for the rating forms."""

    def __init__(self, pairs, lang, spacy_model, scorer, per_encoder, low_resource=False,
                 max_contexts=DEFAULT_MAX_CONTEXTS, device="auto"):
        super().__init__()
        self.lang = lang
        self.find = FindContexts(pairs, spacy_model, low_resource)
        self.select = SelectCandidates(scorer, spacy_model, per_encoder, max_contexts, device)

    def expand(self, sentences):
        found = sentences | "find contexts" >> self.find
        return {CONTEXTS: found, CANDIDATES: found | "select candidates" >> self.select}
