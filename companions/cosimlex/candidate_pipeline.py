"""Beam stages of the CoSimLex candidate search: Sentence records (a mined run's `sentences`) → contexts → scored,
selected candidates."""
import hashlib

import apache_beam as beam
from apache_beam.metrics import Metrics

from companions.cosimlex import contexts as ctx
from companions.cosimlex.encoders import make_encoder, pair_similarities
from companions.cosimlex.select import (DEFAULT_MAX_CONTEXTS, DEFAULT_PER_ENCODER, LOW_RESOURCE_PER_ENCODER,
                                       select_candidates)
from picforge import shuffle
from picforge.errors import InputError

CONTEXTS = "cosimlex-contexts"
CANDIDATES = "cosimlex-candidates"


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

    def __init__(self, encoder_specs, spacy_model, device):
        self.encoder_specs = list(encoder_specs)
        self.spacy_model = spacy_model
        self.device = device
        self.unscored = Metrics.counter(CANDIDATES, "unscored-contexts")

    def setup(self):
        self.encoders = {spec: make_encoder(spec, self.spacy_model, self.device).load() for spec in self.encoder_specs}

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


def pair_candidates(keyed_contexts, encoders, per_encoder):
    """Candidates of one pair; a pair whose contexts all hold the same two occurrences gives none (counted)."""
    _, contexts = keyed_contexts
    contexts = list(contexts)
    if len({tuple(c["occurrences"]) for c in contexts}) < 2:
        Metrics.counter(CANDIDATES, "pairs-with-one-occurrence").inc()
        return []
    Metrics.counter(CANDIDATES, "pairs-with-candidates").inc()
    return select_candidates(contexts, encoders, per_encoder)


class SelectCandidates(beam.PTransform):
    """Context records → candidates: sample ≤ max_contexts per pair, score with each encoder, keep the ends."""

    def __init__(self, encoders, spacy_model, per_encoder, max_contexts=DEFAULT_MAX_CONTEXTS, device="auto"):
        super().__init__()
        self.encoders = list(encoders)
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
                | "score pairs" >> beam.ParDo(_ScoreFn(self.encoders, self.spacy_model, self.device))
                | "key scored by pair" >> beam.Map(lambda c: (c["pair_id"], c))
                | "group pairs" >> shuffle.GroupByKey()
                | "select ends" >> beam.FlatMap(pair_candidates, self.encoders, self.per_encoder))


class CosimlexCandidates(beam.PTransform):
    """Sentence records → {cosimlex-contexts: every context found, cosimlex-candidates: the selected ones}; `lang`,
    the language of the sentences and pairs, is kept in the manifest for the rating forms."""

    def __init__(self, pairs, lang, spacy_model, encoders, per_encoder, low_resource=False,
                 max_contexts=DEFAULT_MAX_CONTEXTS, device="auto"):
        super().__init__()
        self.lang = lang
        self.find = FindContexts(pairs, spacy_model, low_resource)
        self.select = SelectCandidates(encoders, spacy_model, per_encoder, max_contexts, device)

    def expand(self, sentences):
        found = sentences | "find contexts" >> self.find
        return {CONTEXTS: found, CANDIDATES: found | "select candidates" >> self.select}


def candidates_step(pairs, pairs_path, arguments, mined_run):
    """The step writing both stages, built with `arguments`, over the `sentences` of the mined run `mined_run` (read
    through the stage store; its path and dump go into the inputs)."""
    from picforge.croissant import dump_inputs
    from picforge.rundir import RunDir, input_identity, upstream
    from picforge.stage_jobs import Step, read_stage

    stages = {CONTEXTS: "cosimlex_context", CANDIDATES: "cosimlex_candidate"}
    pairs_input = {"pairs": input_identity(pairs_path, "--pairs")}
    mined = RunDir(mined_run)
    return Step(stages, CosimlexCandidates, arguments, data={"pairs": pairs},
                inputs=dict(upstream(mined, "sentences"), mined_run=mined.location(), **dump_inputs(mined),
                            **pairs_input),
                reads=lambda job: read_stage(job.pipeline, mined, "sentences"))


def find_candidates(pairs_path, out, *, mined_run, lang, spacy_model, encoders, per_encoder, low_resource,
                    max_contexts, beam_args, force, device="auto"):
    """Stages `cosimlex-contexts` and `cosimlex-candidates` in the run `out`, from the sentences of the mined run
    `mined_run`: (pairs, their manifests, pairs with candidates, the candidates' folder);
    the encoders are checked before Beam starts."""
    from companions.cosimlex.simlex import read_simlex
    from picforge.options import pipeline_options
    from picforge.rundir import RunDir, writable_folder
    from picforge.stage_jobs import run_steps

    pairs = read_simlex(pairs_path)
    spacy_model = spacy_model or ctx.default_spacy_model(lang)
    if not encoders:
        raise InputError("--scorer: name at least one encoder, e.g. --scorer minilm --scorer tok2vec")
    for spec in encoders:
        make_encoder(spec, spacy_model)
    if per_encoder is None:
        per_encoder = LOW_RESOURCE_PER_ENCODER if low_resource else DEFAULT_PER_ENCODER
    arguments = {"lang": lang, "spacy_model": spacy_model, "encoders": encoders, "per_encoder": per_encoder,
                 "low_resource": low_resource, "max_contexts": max_contexts, "device": device}
    step = candidates_step(pairs, pairs_path, arguments, mined_run)
    run_dir = RunDir(writable_folder(out))
    manifests = run_steps(run_dir, [step], pipeline_options=pipeline_options(beam_args), force=force)
    with_candidates = len(set(run_dir.read_table(CANDIDATES, columns=["pair_id"]).column("pair_id").to_pylist())) \
        if manifests[CANDIDATES]["records"] else 0
    return pairs, manifests, with_candidates, run_dir.stage_dir(CANDIDATES)
