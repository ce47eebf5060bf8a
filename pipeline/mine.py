"""`picforge mine`: Wikipedia dump → ranked annotation triplets (PiC Appendix C, Steps 1–6)."""
import json
import logging
import os

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from picforge import rundir, stage_jobs
from picforge.errors import InputError
from picforge.files import write_atomically
from picforge.options import check_device, pipeline_options
from picforge.paths import refuse_overlap
from picforge.resources import read_wic_words
from picforge.stage_jobs import Step
from pipeline.dump.download import fetch
from pipeline.mine_options import MineOptions
from pipeline.stages import select as select_stage
from pipeline.stages.clean import CleanPages
from pipeline.stages.domains import ApiCategoryTexts, PageCategoryTexts, ScoreDomains
from pipeline.stages.group import GroupPhrases
from pipeline.stages.pairs import PairContexts
from pipeline.stages.phrases import ExtractPhrases
from pipeline.dump.pages import article_fields
from pipeline.stages.read_dump import ReadDump
from pipeline.stages.select import SelectTriplets
from pipeline.stages.sentences import SplitSentences

log = logging.getLogger(__name__)
CANDIDATES_CSV = "annotation_candidates.csv"
FUNNEL_JSON = "funnel.json"


def resolve_input(path, cache_dir=None):
    """A dump path or glob that Beam FileSystems can read; https:// URLs are downloaded once into the cache."""
    if path.startswith(("https://", "http://")):
        return fetch(path, cache_dir)
    return path


def mine(input_path, wic_path, out, options=MineOptions(), beam_args=(), runner=None, force=False,
         cache_dir=None):
    """Run every mining stage into the run directory `out`, skipping stages that are up to date."""
    if options.categories_from_api and "://" in options.categories_cache_dir:
        raise InputError(
            f"--categories-cache-dir {options.categories_cache_dir}: the categories cache appends to files under a "
            "lock, which gs:// and s3:// do not offer; give a local path or a file system mounted on every worker")
    refuse_overlap(out, {"dump": input_path, "WiC zip": wic_path})
    check_windows(options)
    popts = lambda: pipeline_options(beam_args, runner)  # noqa: E731
    check_device(options.device, popts())
    FileSystems.set_options(popts())  # the run directory's own reads and writes see --s3_endpoint_url and the like
    run = rundir.RunDir(rundir.writable_folder(out))
    with run.locked("picforge mine"):
        dump = resolve_input(input_path, cache_dir)
        wic_words = read_wic_words(wic_path)
        manifests = stage_jobs.run_steps(run, mining_steps(run, dump, wic_path, wic_words, options),
                                         pipeline_options=popts(), force=force, one_job=not options.job_per_stage)
    if manifests["read-dump"]["records"] == 0:
        raise InputError(
            f"{input_path}: no articles were read (counters: {json.dumps(manifests['read-dump']['counters'])}); "
            "check that it is a non-empty pages-articles XML dump (see the log for unreadable files)")
    funnel = funnel_report(manifests)
    write_atomically(run.join(FUNNEL_JSON), json.dumps(funnel, indent=2))
    return funnel


def check_windows(options):
    """InputError when a similarity, word or quantile window is inverted (it would keep nothing)."""
    low_q, high_q = options.quantile_window
    for low, high, problem in (
            (options.min_similarity, options.max_similarity,
             f"--min-similarity {options.min_similarity} is above --max-similarity {options.max_similarity}"),
            (options.min_words, options.max_words,
             f"--min-words {options.min_words} is above --max-words {options.max_words}"),
            (low_q, high_q, f"--quantile-window {low_q} {high_q}: the lower quantile is above the upper")):
        if low > high:
            raise InputError(f"{problem}: the window would keep nothing; give the lower bound first (PiC's semantic "
                             "window is -0.3 to 0.2)")


def mining_steps(run, dump, wic_path, wic_words, options):
    """PiC Steps 1–6 as run steps: each transform with the options it is built with (its fingerprint's options)."""
    word_window, parse_wic_words = parse_cuts(options, wic_words)
    wic = rundir.input_identity(wic_path)
    from_api = options.categories_from_api
    return [
        Step({"read-dump": "article", "clean": "page"}, ReadAndClean, {"max_pages": options.max_pages},
             data={"dump": dump}, inputs={"dump": rundir.input_identity(dump)}),
        Step({"sentences": "sentence"}, SplitSentences, after=("clean",)),
        Step({"phrases": "occurrence"}, ExtractPhrases,
             {"model_name": options.spacy_model, "batch_size": options.spacy_batch_size, "word_window": word_window},
             data={"wic_words": parse_wic_words} if parse_wic_words else {},
             inputs={"wic_words": wic} if parse_wic_words else {}, after=("sentences",)),
        Step({"group": "phrase_contexts"}, GroupPhrases, {"seed": options.seed}, data={"wic_words": wic_words},
             inputs={"wic_words": wic}, after=("phrases",)),
        Step({"pairs": "candidate_pair"}, PairContexts, {name: getattr(options, name) for name in (
                 "seed", "embedding_model", "pooling", "max_contexts", "min_words", "max_words", "max_length_diff",
                 "min_similarity", "max_similarity", "threshold_mode", "quantile_window", "device",
                 "encode_batch_size")},
             after=("group", "sentences")),
        Step({"domains": "candidate_pair"}, score_domains, {
                 "embedding_model": options.embedding_model, "pooling": options.pooling,
                 "categories_from_api": from_api,
                 "categories_api_url": options.categories_api_url if from_api else None,
                 "categories_cache_dir": options.categories_cache_dir if from_api else None,
                 "categories_contact": (options.categories_contact or os.environ.get("PICFORGE_CONTACT")) if from_api
                 else None,
                 "device": options.device, "encode_batch_size": options.encode_batch_size},
             after=("pairs", "clean")),
        Step({"select": "triplet"}, SelectTriplets, {"top_n": options.top_n},
             after=("domains", "group", "clean", "sentences", "phrases"),
             finalise=lambda: finalise_selection(run), derived=(CANDIDATES_CSV,)),
    ]


class ReadAndClean(beam.PTransform):
    """The pipeline → {"read-dump": Article records, "clean": Page records}, both from one read of `dump`."""

    def __init__(self, dump, max_pages=None):
        super().__init__()
        self.dump, self.max_pages = dump, max_pages

    def expand(self, pipeline):
        articles = pipeline | "dump" >> ReadDump(self.dump, max_pages=self.max_pages)
        return {"read-dump": articles | "article fields" >> beam.Map(article_fields),
                "clean": articles | "clean" >> CleanPages()}


def parse_cuts(options, wic_words):
    """(word window, WiC words) that decide which sentences spaCy parses; (None, None) with parse_all_sentences."""
    if options.parse_all_sentences:
        return None, None
    return (options.min_words, options.max_words), wic_words


def score_domains(pages, *, embedding_model, pooling, categories_from_api, categories_api_url, categories_cache_dir,
                  categories_contact, device, encode_batch_size):
    """ScoreDomains with the pages' categories from the MediaWiki API, else from the `clean` Page records."""
    categories = (ApiCategoryTexts(categories_api_url, categories_cache_dir, categories_contact) if categories_from_api
                  else PageCategoryTexts(pages))
    return ScoreDomains(categories, embedding_model, pooling, device, encode_batch_size)


def finalise_selection(run):
    """Rewrite `select` as one Parquet file in rank order and export the annotation-candidate CSV; runs before
    the stage's manifest is written, so a crash here leaves a stage that is redone."""
    triplets = sorted(run.iter_records("select"), key=select_stage.triplet_rank)
    run.rewrite_rows("select", triplets, "triplet")
    write_atomically(run.join(CANDIDATES_CSV), select_stage.candidates_csv(triplets))


def funnel_report(manifests):
    """Counts after each step, in the order of PiC Table A1."""
    def counter(stage, name):
        return manifests[stage]["counters"].get(f"{stage}/{name}", 0)

    def records(stage):
        return manifests[stage]["records"]

    phrases_total = counter("group", "phrases")
    return [
        {"step": "1 pages read from the dump", "count": counter("read-dump", "pages-read")},
        {"step": "1 pages skipped as unparseable XML (each named in the log)",
         "count": counter("read-dump", "skipped-unparseable")},
        {"step": "1 articles (namespace 0, non-empty, no redirects)", "count": records("read-dump")},
        {"step": "1 pages with prose after cleaning", "count": records("clean")},
        {"step": "2 sentences", "count": records("sentences")},
        {"step": "2 sentences flagged broken (kept out of passages)", "count": sum(
            n for name, n in manifests["sentences"]["counters"].items() if name.startswith("sentences/broken-"))},
        {"step": "2 sentences parsed by spaCy (pair word window, WiC word)", "count": counter("phrases", "sentences-parsed")},
        {"step": "2 phrase occurrences (p, s)", "count": records("phrases")},
        {"step": "2 distinct phrases", "count": phrases_total},
        {"step": "3 phrases in >= 2 sentences", "count": phrases_total - counter("group", "dropped-single-context")},
        {"step": "4 phrases with a WiC word", "count": records("group")},
        {"step": "5 sentence pairs formed", "count": counter("pairs", "pairs-formed")},
        {"step": "5 pairs in the semantic window", "count": records("pairs")},
        {"step": "5 pairs with a domain score", "count": records("domains") - counter("domains", "pairs-without-categories")},
        {"step": "6 pairs after Step-6 filters", "count": counter("select", "pairs-after-filters")},
        {"step": "6 phrases after Step-6 filters", "count": counter("select", "phrases-after-filters")},
        {"step": "6 triplets selected", "count": records("select")},
    ]


def selection_summary(out, selected, annotators=3, ledger_hint=None):
    """What a run selected, where it is, and what comes next: the command that hands it to expert annotators, or
    `ledger_hint` (what the run's ledger still waits for) when annotation has begun."""
    if not selected:
        return (f"\n0 triplets selected in {out}: no phrase kept a pair of sentences from two pages; mine a larger "
                "dump (see the funnel above for the step that emptied it)")
    per_annotator = -(-selected // annotators)
    names = ",".join(f"expert{n}" for n in range(1, annotators + 1))
    hint = ledger_hint or (f"next, the expert sheets: picforge annotate export expert --run {out} --annotators "
                           f"{names} --per-annotator {per_annotator}")
    return f"\n{selected:,} triplets selected: {out}/select/ (ranked Parquet) and {out}/{CANDIDATES_CSV}\n{hint}"
