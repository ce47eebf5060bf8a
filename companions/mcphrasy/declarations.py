"""The stages McPhraSy writes, each one declaration with its options (McPhraSy §3.1, Appendices A.1 and B.1): the
verbs' flags, each stage's fingerprint and manifest options, and the command that makes a missing stage derive from
here. This module imports no Beam (each `expand` imports its transforms), so `picforge mcphrasy --help` stays light."""
import dataclasses

from companions.mcphrasy import grouping
from companions.mcphrasy.settings import CLUSTERS, CONTEXTS, DOCUMENTS, GROUPS, MAX_CONTEXTS, PHRASES, TRIPLETS
from picforge import stages
from picforge.encoders import BUNDLED_MODEL, DeviceOptions
from picforge.options import at_least, finite_float, non_negative_int, positive_int
from picforge.stages import Stage, option

WIKI_CATEGORY_MODES = ("one", "page")

DEFAULT_SHARED = 6  # groups every annotator gets, for agreement


@dataclasses.dataclass(frozen=True)
class ClusterSheetOptions:
    """Who annotates, and how many groups every one of them gets (for agreement)."""

    annotators: tuple = option((), "annotator names", output=False, many=True, required=True)
    shared: int = option(DEFAULT_SHARED, "first N groups go to every annotator, for agreement", output=False,
                         type=non_negative_int)


@dataclasses.dataclass(frozen=True)
class DocumentsOptions:
    """The corpus's categories; None: as the McPhraSy run recorded them (the fingerprint holds what was used)."""

    category: str | None = option(None, "category of every review (default: the row's `category`, else the file "
                                         "name, e.g. Office_Products_5.json.gz → Office Products)", output=True)
    wiki_category: str | None = option(None, "Wikipedia category: 'one' for the whole corpus (default) or 'page' "
                                              "(first visible category)", output=True, choices=WIKI_CATEGORY_MODES)


@dataclasses.dataclass(frozen=True)
class SeedOptions:
    seed: int = option(0, "seed of the context sample and of the triplets' negatives", output=True,
                       type=non_negative_int)


@dataclasses.dataclass(frozen=True)
class EncoderOptions(DeviceOptions):
    encoder: str = option(BUNDLED_MODEL, "sentence encoder, a sentence-transformers model name or folder",
                          output=True, metavar="MODEL")


@dataclasses.dataclass(frozen=True)
class ContextsOptions(SeedOptions):
    max_contexts: int = option(MAX_CONTEXTS, "m, contexts kept per phrase (a seeded sample)", output=True,
                               type=positive_int)


@dataclasses.dataclass(frozen=True)
class TripletsOptions(SeedOptions, EncoderOptions):
    """The A.1 triplets' options: the seed of the negatives drawn and the encoder that picks among them."""


@dataclasses.dataclass(frozen=True)
class PhrasesOptions:
    spacy_model: str | None = option(None, "spaCy model for Penn tags (default: first installed English sm)",
                                     output=True)
    per_product: int = option(grouping.PER_PRODUCT, "most frequent phrases kept per product (document), B.1",
                              output=True, type=positive_int)
    per_category: int = option(grouping.PER_CATEGORY, "most frequent phrases kept per category, B.1", output=True,
                               type=positive_int)


@dataclasses.dataclass(frozen=True)
class GroupsOptions(EncoderOptions):
    vectors: str | None = option(None, "word vectors, word2vec or FastText text format (.vec/.txt, may be .gz); a "
                                       "phrase is the mean of its words' vectors, as in the paper (default: the "
                                       "--encoder's phrase vectors); counted by the file's identity", output=False)
    groups: int = option(grouping.PAPER_GROUPS, f"target number of groups over all categories (the paper's "
                                                f"{grouping.PAPER_GROUPS} over 5 categories), taken in turn from each "
                                                "category's groups in seed order; the report says how many were "
                                                "reached", output=True, type=positive_int, metavar="N")
    max_groups: int = option(25, "groups per category at most", output=True, type=positive_int)
    group_size: int = option(grouping.GROUP_SIZE, "phrases per group, the seed included (a seed and its nearest)",
                             output=True, type=at_least(2))
    near_duplicate: float = option(grouping.NEAR_DUPLICATE, "cosine above which a phrase is a near duplicate of the "
                                                            "seed and left out of its group", output=True,
                                   type=finite_float)


@stages.register
class Documents(Stage):
    """The corpus as documents: review files (source `reviews`), else a mined run's sentences (and, for page
    categories, its `clean` pages)."""

    name, schema, upstream, sources = DOCUMENTS, "mcphrasy_document", ("sentences", "clean"), ("reviews", "dump")
    Options = DocumentsOptions

    def expand(self, inputs, options):
        from companions.mcphrasy.stages import ReadReviews, WikiDocuments

        if inputs.get("reviews"):
            return inputs["pipeline"] | self.name >> ReadReviews(inputs["reviews"], options.category)
        return inputs["sentences"] | self.name >> WikiDocuments(inputs.get("clean"), options.wiki_category)


@stages.register
class Contexts(Stage):
    """Up to m seeded-sample masked contexts of each listed phrase (§3.1); review documents are split into
    sentences first (source `review_corpus`, which the documents' fingerprint already counts)."""

    name, schema, upstream, sources = CONTEXTS, "mcphrasy_contexts", (DOCUMENTS,), ("phrases", "review_corpus")
    Options = ContextsOptions

    def expand(self, inputs, options):
        import apache_beam as beam

        from companions.mcphrasy.stages import RetrieveContexts, review_sentences

        sentences = inputs[DOCUMENTS]
        if inputs["review_corpus"]:
            sentences = sentences | "review sentences" >> beam.FlatMap(review_sentences)
        return sentences | self.name >> RetrieveContexts(inputs["phrases"], options.max_contexts, options.seed)


@stages.register
class Triplets(Stage):
    """Appendix A.1 anchor/positive/negative triplets of the phrases with contexts."""

    name, schema, upstream = TRIPLETS, "mcphrasy_triplet", (CONTEXTS,)
    Options = TripletsOptions

    def expand(self, inputs, options):
        from companions.mcphrasy.stages import ContextTriplets

        return inputs[CONTEXTS] | self.name >> ContextTriplets(options.encoder, options.seed, options.device_spec())


@stages.register
class Phrases(Stage):
    """Appendix B.1: each category's frequent, filtered noun phrases."""

    name, schema, upstream = PHRASES, "mcphrasy_phrase_count", (DOCUMENTS,)
    Options = PhrasesOptions

    def expand(self, inputs, options):
        from companions.mcphrasy.stages import FrequentPhrases

        return inputs[DOCUMENTS] | self.name >> FrequentPhrases(options.spacy_model, options.per_product,
                                                                options.per_category)


@stages.register
class Groups(Stage):
    """Appendix B.1 phrase groups: a seed and its nearest phrases per category (written outside Beam)."""

    name, schema, upstream, sources = GROUPS, "mcphrasy_group", (PHRASES,), ("vectors",)
    Options = GroupsOptions


@stages.register
class Clusters(Stage):
    """The reconciled clusters of each annotated group, from the ledger's labels (source `labels`)."""

    name, schema, upstream, sources = CLUSTERS, "mcphrasy_clustering", (GROUPS,), ("labels",)


MCPHRASY = (Documents, Contexts, Triplets, Phrases, Groups, Clusters)
stages.produced_by("picforge mcphrasy groups --run MINED_RUN --out {run}", (Documents, Phrases, Groups))
stages.produced_by("picforge mcphrasy contexts --phrases FILE --run MINED_RUN --out {run}", (Contexts, Triplets))
stages.produced_by("picforge mcphrasy reconcile --run {run}", (Clusters,))
