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
from companions.pearl.stage_names import PHRASES
from picforge import shuffle
from picforge.encoders import SentenceModelOnFirstUse, encode
from picforge.progress import Progress
from picforge.resources import stopwords
from picforge.spacy_models import shared_pipeline, use_one_thread_blas

STAGE = PHRASES
SYNONYM_CACHE_SIZE = 200_000
AUGMENT_BATCH = 256  # phrases whose WordNet senses are chosen in one encoder batch  # distinct tokens whose synonyms a worker keeps
EMBED_GROUPS = 64  # groups the phrases are embedded in; a group's batches depend only on the phrases in it
SPACY_PIPES_NOT_NEEDED = ("lemmatizer", "trainable_lemmatizer", "textcat", "textcat_multilabel", "spancat")


def _prepare_parser(nlp, parser, benepar_model):
    from picforge.pos_rules import replace_attribute_ruler

    replace_attribute_ruler(nlp)
    use_one_thread_blas(nlp)
    if parser == "benepar":
        import benepar  # noqa: F401 - registers the "benepar" factory

        nlp.add_pipe("benepar", config={"model": benepar_model})


def load_parser(model_name=None, parser="spacy", benepar_model="benepar_en3"):
    """The worker's spaCy pipeline with tagger, dependency parser and NER (the attribute_ruler's POS rules
    compiled, matrix products in numpy's BLAS on one thread); with parser='benepar', benepar's constituency parser
    added after it."""
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


RARE = "rare"  # the tagged output of CountPhrases: phrases seen fewer than min_count times


class CountPhrases(beam.PTransform):
    """Occurrences → one record per phrase seen at least `min_count` times (main output) and the text of each
    phrase seen fewer times (output RARE: hard-negative candidates that no split holds)."""

    def __init__(self, min_count=2):
        super().__init__()
        self.min_count = min_count

    def expand(self, occurrences):
        min_count = self.min_count

        def count(item):
            phrase, seen = item
            reason, record = phrase_record(phrase, seen, min_count)
            Metrics.counter(STAGE, f"phrases-{reason}").inc()
            yield record if record else beam.pvalue.TaggedOutput(RARE, phrase)

        return (occurrences
                | "key by phrase" >> beam.Map(
                    lambda o: (o["phrase"], ((o["lexical_type"], o["entity_type"]), o["word_tags"])))
                | "group by phrase" >> shuffle.GroupByKey()
                | "count and label" >> beam.FlatMap(count).with_outputs(RARE, main="kept"))


class _Augment(beam.DoFn):
    """Batches of phrase records → each with its character- and token-level augmentations (replacing its word
    tags); WordNet, the encoder that picks a word's sense in its phrase (one batch per batch of records) and the
    user's word vectors load in setup; senses and vector neighbours are looked up once per (word, tag) and worker."""

    def __init__(self, settings, device):
        self.settings, self.device = settings, device

    def setup(self):
        s = self.settings
        self.sources = {}
        self.in_context = None
        if s["wordnet"]:
            model = SentenceModelOnFirstUse(s["encoder"], "model", self.device)
            self.in_context = synonyms.SensesInContext(synonyms.load_wordnet(s["wordnet"]),
                                                       lambda texts: encode(model.get(), texts),
                                                       s["min_synonym_cosine"])
        if s["vectors"]:
            vectors = synonyms.load_word_vectors(s["vectors"])
            self.sources["synonym-embedding"] = functools.lru_cache(maxsize=SYNONYM_CACHE_SIZE)(
                lambda word, tag: synonyms.vector_neighbours(vectors, word, tag, s["min_vector_cosine"]))

    def process(self, batch):
        seed = self.settings["seed"]
        asked = [(record["phrase"], word, tag) for record in batch
                 for word, tag in zip(record["phrase"].split(" "), record["word_tags"]) if word.lower() not in stopwords()]
        in_context = self.in_context.in_context(asked) if self.in_context else {}
        for record in batch:
            record = dict(record)
            tags, phrase = record.pop("word_tags"), record["phrase"]
            sources = dict(self.sources)
            if self.in_context:
                sources["synonym-wordnet"] = lambda word, tag, phrase=phrase: in_context.get((phrase, word, tag), [])
            made = augment.augment_phrase(phrase, seed, sources, tags)
            for item in made:
                Metrics.counter(STAGE, f"augmented-{item['kind']}").inc()
            yield dict(record, augmentations=made)


def embed_group(phrase, groups=EMBED_GROUPS):
    """The group a phrase is embedded in: a stable hash of its text, the same in every process."""
    return int.from_bytes(hashlib.sha1(phrase.encode("utf-8")).digest()[:4], "big") % groups


class _EmbedGroup(beam.DoFn):
    """(group, phrases) → (phrase, unit vector) for each distinct phrase, encoded in sorted order so each phrase is in the same batch on
    every run (a vector's last bits depend on its batch; RunInference's adaptive batches vary between runs)."""

    def __init__(self, encoder, device):
        self.encoder, self.device = encoder, device
        self.embedded = Metrics.counter(STAGE, "phrases-embedded")

    def setup(self):
        self.model = SentenceModelOnFirstUse(self.encoder, "model", self.device)
        self.progress = Progress(STAGE, "phrases embedded")

    def process(self, item):
        _, phrases = item
        texts = sorted(set(phrases))
        self.embedded.inc(len(texts))
        self.progress.tick(len(texts))
        yield from zip(texts, encode(self.model.get(), texts))


def picked_negatives(item, k, max_cosine):
    """(phrase, {vector: [v], candidates: [(edit similarity, other, other's vector)]}) → (phrase, [k hard negatives]):
    the k of lowest cosine at most `max_cosine`, each pick counted in the bins of its cosine and edit similarity."""
    phrase, joined = item
    picked = negatives.pick_hard_negatives(negatives.low_cosine(joined["vector"][0], joined["candidates"], max_cosine), k)
    for cosine, similarity, _ in picked:
        Metrics.counter(STAGE, f"negative-cosine-{negatives.bucket(cosine)}").inc()
        Metrics.counter(STAGE, f"negative-edit-similarity-{negatives.bucket(similarity)}").inc()
    return phrase, [other for _, _, other in picked]


class HardNegatives(beam.PTransform):
    """(phrase records, rare phrases) → (phrase, [hard negatives]). Each phrase is compared with the phrases of its
    own split and the rare ones (seen fewer than --min-count times, in no split) that share a content word with it
    (in windows of `max_block` by length); of its `budget` candidates of highest edit similarity (at least
    `min_edit_similarity`) the `encoded` sharing the fewest words with it are encoded, and the k of lowest cosine
    (at most `max_cosine`) kept. The rare phrases,
    ten times the kept ones, give a phrase of a small split the candidates its split lacks, without a negative
    that is another split's phrase."""

    def __init__(self, encoder, *, seed, ratios, k=2, budget=20, encoded=6, min_edit_similarity=0.5, max_cosine=0.6,
                 max_block=1000, device="auto"):
        super().__init__()
        self.encoder, self.seed, self.ratios, self.device = encoder, seed, tuple(ratios), device
        self.k, self.budget, self.encoded, self.max_block = k, budget, encoded, max_block
        self.min_edit_similarity, self.max_cosine = min_edit_similarity, max_cosine

    def expand(self, inputs):
        records, rare = inputs
        seed, ratios, k, budget, encoded, max_block = (self.seed, self.ratios, self.k, self.budget, self.encoded,
                                                       self.max_block)
        min_edit_similarity, max_cosine = self.min_edit_similarity, self.max_cosine

        def by_content_word(phrase, split):
            for word in negatives.blocking_keys(phrase):
                yield word, (phrase, split)

        def compare(item):
            _, members = item
            members = list(members)
            for split in sorted({split for _, split in members if split}):
                windows = negatives.block_windows(negatives.split_members(members, split), max_block)
                if len(windows) > 1:
                    Metrics.counter(STAGE, "blocks-windowed").inc()
                for window in windows:
                    yield from negatives.look_alike_candidates(window, min_edit_similarity)

        anchors = records | "anchor phrases" >> beam.Map(lambda r: r["phrase"])
        blocks = ((anchors | "key phrase by content word" >> beam.FlatMap(
                      lambda p: by_content_word(p, split_of(p, seed, ratios))),
                   rare | "key rare phrase by content word" >> beam.FlatMap(by_content_word, None))
                  | "phrases and rare phrases" >> beam.Flatten()
                  | "group blocks" >> shuffle.GroupByKey())
        budgeted = (blocks
                    | "look-alike pairs in block" >> beam.FlatMap(compare)
                    | "group candidates" >> shuffle.GroupByKey()
                    | "keep the budget" >> beam.Map(lambda item: (item[0], negatives.fewest_shared_words(
                        item[0], negatives.within_budget(item[1], budget), encoded))))
        vectors = (budgeted
                   | "phrases to embed" >> beam.FlatMap(lambda item: [item[0]] + [other for _, other in item[1]])
                   | "key by embed group" >> beam.Map(lambda p: (embed_group(p), p))
                   | "group for embedding" >> shuffle.GroupByKey()
                   | "embed phrases" >> beam.ParDo(_EmbedGroup(self.encoder, self.device)))
        pairs = budgeted | "key pair by candidate" >> beam.FlatMap(
            lambda item: [(other, (item[0], similarity)) for similarity, other in item[1]])
        candidates = ({"pair": pairs, "vector": vectors}
                      | "join candidate vectors" >> shuffle.CoGroupByKey()
                      | "key pair by phrase" >> beam.FlatMap(
                          lambda item: [(phrase, (similarity, item[0], item[1]["vector"][0]))
                                        for phrase, similarity in item[1]["pair"]]))
        return ({"candidates": candidates, "vector": vectors}
                | "join phrase vectors" >> shuffle.CoGroupByKey()
                | "drop phrases without candidates" >> beam.Filter(lambda item: item[1]["candidates"])
                | "pick k" >> beam.Map(picked_negatives, k, max_cosine))


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
        counted = sentences | "typed phrases" >> ParsePhrases(s) | "count" >> CountPhrases(s["min_count"])
        phrases = (counted.kept
                   | "batch phrases" >> beam.BatchElements(min_batch_size=AUGMENT_BATCH, max_batch_size=AUGMENT_BATCH)
                   | "augment" >> beam.ParDo(_Augment(s, self.device)))
        hard = (phrases, counted[RARE]) | "hard negatives" >> HardNegatives(
            s["encoder"], seed=s["seed"], ratios=s["ratios"], k=s["negatives_k"], budget=s["negative_candidates"],
            encoded=s["negatives_encoded"],
            min_edit_similarity=s["min_edit_similarity"], max_cosine=s["max_cosine"], max_block=s["max_block"],
            device=self.device)
        return ({"record": phrases | "key record" >> beam.Map(lambda r: (r["phrase"], r)), "negatives": hard}
                | "join negatives" >> shuffle.CoGroupByKey()
                | "attach negatives" >> beam.FlatMap(attach_negatives))
