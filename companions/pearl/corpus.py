"""The PEARL corpus as Beam transforms: sentences → typed phrases (count ≥ 2) → augmentations → hard negatives."""
import collections
import functools
import hashlib

import apache_beam as beam
from apache_beam.metrics import Metrics

from companions.pearl import augment, negatives, synonyms
from companions.pearl.constituents import LEXICAL_TYPES, benepar_constituents, dependency_constituents, \
    phrase_occurrences
from companions.pearl.splits import split_of
from picforge import shuffle
from picforge.encoders import SentenceModelOnFirstUse, encode
from picforge.progress import Progress
from picforge.spacy_models import shared_pipeline

STAGE = "pearl-phrases"
SYNONYM_CACHE_SIZE = 200_000  # distinct tokens whose synonyms a worker keeps
EMBED_GROUPS = 64  # groups the phrases are embedded in; a group's batches depend only on the phrases in it
SPACY_PIPES_NOT_NEEDED = ("lemmatizer", "trainable_lemmatizer", "textcat", "textcat_multilabel", "spancat")


def _prepare_parser(nlp, parser, benepar_model):
    from pipeline.pos_rules import replace_attribute_ruler

    replace_attribute_ruler(nlp)
    if parser == "benepar":
        import benepar  # noqa: F401 - registers the "benepar" factory

        nlp.add_pipe("benepar", config={"model": benepar_model})


def load_parser(model_name=None, parser="spacy", benepar_model="benepar_en3"):
    """The worker's spaCy pipeline with tagger, dependency parser and NER (the attribute_ruler's POS rules
    compiled); with parser='benepar', benepar's constituency parser added after it."""
    return shared_pipeline(model_name, SPACY_PIPES_NOT_NEEDED, _prepare_parser, parser, benepar_model)


def token_entities(doc, ner_doc=None):
    """(start, end, label) token spans of the entities of `ner_doc` (a second model's parse of the same text)
    or of `doc` itself."""
    if ner_doc is None:
        return [(ent.start, ent.end, ent.label_) for ent in doc.ents]
    spans = (doc.char_span(ent.start_char, ent.end_char, alignment_mode="expand") for ent in ner_doc.ents)
    return [(span.start, span.end, ent.label_) for span, ent in zip(spans, ner_doc.ents) if span is not None]


class _ParsePhrases(beam.DoFn):
    """Batches of Sentence records → {phrase, lexical_type, entity_type, label} occurrences (spaCy in setup)."""

    def __init__(self, settings):
        self.settings = settings
        self.sentences = Metrics.counter(STAGE, "sentences-parsed")
        self.occurrences = Metrics.counter(STAGE, "occurrences")

    def setup(self):
        s = self.settings
        self.nlp = load_parser(s["spacy_model"], s["parser"], s["benepar_model"])
        self.ner = load_parser(s["ner_model"]) if s["ner_model"] else None
        self.constituents = benepar_constituents if s["parser"] == "benepar" else dependency_constituents
        self.progress = Progress(STAGE, "sentences parsed")

    def process(self, batch):
        s = self.settings
        texts = [sentence["text"] for sentence in batch]
        ner_docs = self.ner.pipe(texts) if self.ner else (None for _ in texts)
        for doc, ner_doc in zip(self.nlp.pipe(texts, batch_size=s["batch_size"]), ner_docs):
            self.sentences.inc()
            self.progress.tick()
            for reason, occurrence in phrase_occurrences(
                    doc, self.constituents(doc), token_entities(doc, ner_doc), min_tokens=s["min_tokens"],
                    max_tokens=s["max_tokens"], min_entity_share=s["min_entity_share"]):
                if reason:
                    Metrics.counter(STAGE, f"skipped-{reason}").inc()
                    continue
                self.occurrences.inc()
                yield occurrence


class ParsePhrases(beam.PTransform):
    """Sentence records → typed phrase occurrences."""

    def __init__(self, settings):
        super().__init__()
        self.settings = settings

    def expand(self, sentences):
        size = self.settings["batch_size"]
        return (sentences
                | "batch sentences" >> beam.BatchElements(min_batch_size=size, max_batch_size=size * 4)
                | "parse constituents" >> beam.ParDo(_ParsePhrases(self.settings)))


def phrase_record(phrase, seen, min_count=2):
    """(reason, record): the phrase with its count, most frequent (lexical, entity) type (ties: the earlier lexical
    type in NP, VP, PP, ADVP, ADJP order, then the entity name) and most frequent word tags (ties: the first in
    order), or why it is dropped. `seen` holds ((lexical, entity), word tags) per occurrence."""
    counts = collections.Counter(label for label, _ in seen)
    total = sum(counts.values())
    if total < min_count:
        return "rare", None
    (lex, ent), _ = min(counts.items(), key=lambda item: (-item[1], LEXICAL_TYPES.index(item[0][0]), item[0][1]))
    taggings = collections.Counter(tuple(tags) for _, tags in seen)
    tags, _ = min(taggings.items(), key=lambda item: (-item[1], item[0]))
    return "kept", {"phrase": phrase, "lexical_type": lex, "entity_type": ent, "label": f"{lex}-{ent}",
                    "count": total, "word_tags": list(tags)}


class CountPhrases(beam.PTransform):
    """Occurrences → one record per phrase seen at least `min_count` times."""

    def __init__(self, min_count=2):
        super().__init__()
        self.min_count = min_count

    def expand(self, occurrences):
        min_count = self.min_count

        def count(item):
            phrase, seen = item
            reason, record = phrase_record(phrase, seen, min_count)
            Metrics.counter(STAGE, f"phrases-{reason}").inc()
            if record:
                yield record

        return (occurrences
                | "key by phrase" >> beam.Map(
                    lambda o: (o["phrase"], ((o["lexical_type"], o["entity_type"]), o["word_tags"])))
                | "group by phrase" >> shuffle.GroupByKey()
                | "count and label" >> beam.FlatMap(count))


class _Augment(beam.DoFn):
    """Adds character- and token-level augmentations (replacing the record's word tags); WordNet and the user's
    word vectors load in setup, and each (word, tag)'s synonyms are looked up once per worker (the lookups cost
    100x the augmentations themselves)."""

    def __init__(self, settings):
        self.settings = settings

    def setup(self):
        s = self.settings
        self.sources = {}
        if s["wordnet"]:
            wordnet = synonyms.load_wordnet(s["wordnet"])
            self.sources["synonym-wordnet"] = functools.lru_cache(maxsize=SYNONYM_CACHE_SIZE)(
                lambda word, tag: synonyms.wordnet_synonyms(wordnet, word, tag))
        if s["vectors"]:
            vectors = synonyms.load_word_vectors(s["vectors"])
            self.sources["synonym-embedding"] = functools.lru_cache(maxsize=SYNONYM_CACHE_SIZE)(
                lambda word, tag: synonyms.vector_neighbours(vectors, word, tag, s["min_vector_cosine"]))

    def process(self, record):
        record = dict(record)
        tags = record.pop("word_tags")
        made = augment.augment_phrase(record["phrase"], self.settings["seed"], self.sources, tags)
        for item in made:
            Metrics.counter(STAGE, f"augmented-{item['kind']}").inc()
        yield dict(record, augmentations=made)


def embed_group(phrase, groups=EMBED_GROUPS):
    """The group a phrase is embedded in: a stable hash of its text, the same in every process."""
    return int.from_bytes(hashlib.sha1(phrase.encode("utf-8")).digest()[:4], "big") % groups


class _EmbedGroup(beam.DoFn):
    """(group, phrases) → (phrase, unit vector), encoded in sorted order so each phrase is in the same batch on
    every run (a vector's last bits depend on its batch; RunInference's adaptive batches vary between runs)."""

    def __init__(self, encoder, device):
        self.encoder, self.device = encoder, device
        self.embedded = Metrics.counter(STAGE, "phrases-embedded")

    def setup(self):
        self.model = SentenceModelOnFirstUse(self.encoder, "model", self.device)
        self.progress = Progress(STAGE, "phrases embedded")

    def process(self, item):
        _, phrases = item
        texts = sorted(phrases)
        self.embedded.inc(len(texts))
        self.progress.tick(len(texts))
        yield from zip(texts, encode(self.model.get(), texts))


def picked_negatives(item, k):
    """(phrase, candidates) → (phrase, [k hard negatives]); each pick counted in the bins of its cosine and edit
    similarity."""
    phrase, found = item
    picked = negatives.pick_hard_negatives(found, k)
    for cosine, similarity, _ in picked:
        Metrics.counter(STAGE, f"negative-cosine-{negatives.bucket(cosine)}").inc()
        Metrics.counter(STAGE, f"negative-edit-similarity-{negatives.bucket(similarity)}").inc()
    return phrase, [other for _, _, other in picked]


class HardNegatives(beam.PTransform):
    """Phrase records → (phrase, [hard negatives]): phrases of one split sharing a content word are compared (in
    windows of `max_block` by length), kept when the edit similarity is high and the cosine low, k of lowest cosine."""

    def __init__(self, encoder, *, seed, ratios, k=2, min_edit_similarity=0.5, max_cosine=0.6, max_block=1000,
                 device="auto"):
        super().__init__()
        self.encoder, self.seed, self.ratios, self.device = encoder, seed, tuple(ratios), device
        self.k, self.min_edit_similarity, self.max_cosine, self.max_block = k, min_edit_similarity, max_cosine, max_block

    def expand(self, records):
        seed, ratios, k, max_block = self.seed, self.ratios, self.k, self.max_block
        min_edit_similarity, max_cosine = self.min_edit_similarity, self.max_cosine

        def by_split_and_word(item):
            phrase, vector = item
            split = split_of(phrase, seed, ratios)
            for word in negatives.blocking_keys(phrase):
                yield (split, word), (phrase, vector)

        def compare(item):
            _, members = item
            windows = negatives.block_windows(list(members), max_block)
            if len(windows) > 1:
                Metrics.counter(STAGE, "blocks-windowed").inc()
            for window in windows:
                yield from negatives.hard_negative_candidates(
                    window, min_edit_similarity=min_edit_similarity, max_cosine=max_cosine)

        return (records
                | "key by embed group" >> beam.Map(lambda r: (embed_group(r["phrase"]), r["phrase"]))
                | "group for embedding" >> shuffle.GroupByKey()
                | "embed phrases" >> beam.ParDo(_EmbedGroup(self.encoder, self.device))
                | "key by split and content word" >> beam.FlatMap(by_split_and_word)
                | "group blocks" >> shuffle.GroupByKey()
                | "score pairs in block" >> beam.FlatMap(compare)
                | "group candidates" >> shuffle.GroupByKey()
                | "pick k" >> beam.Map(picked_negatives, k))


def attach_negatives(item):
    """(phrase, {record: [r], negatives: [[...]]}) → the record with its hard negatives ([] when none)."""
    _, joined = item
    for record in joined["record"]:
        found = joined["negatives"]
        yield dict(record, hard_negatives=found[0] if found else [])


class BuildCorpus(beam.PTransform):
    """Sentence records → PearlPhrase records (the `pearl-phrases` stage); the hard negatives' encoder on `device`."""

    def __init__(self, device="auto", **settings):
        super().__init__()
        self.settings, self.device = settings, device

    def expand(self, sentences):
        s = self.settings
        phrases = (sentences
                   | "typed phrases" >> ParsePhrases(s)
                   | "count" >> CountPhrases(s["min_count"])
                   | "augment" >> beam.ParDo(_Augment(s)))
        hard = phrases | "hard negatives" >> HardNegatives(
            s["encoder"], seed=s["seed"], ratios=s["ratios"], k=s["negatives_k"],
            min_edit_similarity=s["min_edit_similarity"], max_cosine=s["max_cosine"], max_block=s["max_block"],
            device=self.device)
        return ({"record": phrases | "key record" >> beam.Map(lambda r: (r["phrase"], r)), "negatives": hard}
                | "join negatives" >> shuffle.CoGroupByKey()
                | "attach negatives" >> beam.FlatMap(attach_negatives))
