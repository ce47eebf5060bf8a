"""`picforge pearl build`: the PEARL corpus from a mining run's `sentences` stage, into its own run directory."""
import importlib.util

import pyarrow as pa
import pyarrow.parquet as pq

from companions.pearl import corpus, synonyms
from companions.pearl.declarations import PearlPhrases
from companions.pearl.options import PearlOptions
from picforge import rundir, stage_jobs
from picforge.croissant import dump_inputs
from picforge.errors import InputError
from picforge.files import open_input
from picforge.options import check_device, pipeline_options
from picforge.release_writer import SPLITS


def check_options(options):
    """InputError for options that cannot work here (before any pipeline starts)."""
    if options.parser not in ("spacy", "benepar"):
        raise InputError(f"--parser {options.parser}: choose spacy (dependency mapping) or benepar")
    if options.parser == "benepar" and importlib.util.find_spec("benepar") is None:
        raise InputError("--parser benepar: the benepar package is not installed; `pip install benepar` and "
                         f"install its model {options.benepar_model}, or use --parser spacy")
    if not 1 <= options.min_tokens <= options.max_tokens:
        raise InputError(f"--min-tokens {options.min_tokens} / --max-tokens {options.max_tokens}: need "
                         "1 <= min <= max")
    if options.min_count < 1 or options.negatives_k < 0:
        raise InputError("--min-count must be >= 1 and --negatives-k >= 0")
    ratios = options.ratios
    if len(ratios) != len(SPLITS) or any(r < 0 for r in ratios) or abs(sum(ratios) - 1) > 1e-6:
        raise InputError(f"--ratios {ratios}: give three non-negative shares (train, validation, test) summing to 1")


def check_sentences(mining_run):
    """InputError unless the run's `sentences` stage completed and each of its files is Parquet with the
    Sentence columns PEARL reads."""
    mining_run.require("sentences")
    for path in mining_run.output_files("sentences"):
        try:
            with open_input(path) as fh:
                names = set(pq.ParquetFile(fh).schema_arrow.names)
        except (OSError, pa.ArrowInvalid) as err:
            raise InputError(f"{path}: not a readable Parquet file ({err}); re-run `picforge mine` for this run "
                             "directory with --force") from err
        if not {"sentence_id", "text"} <= names:
            raise InputError(f"{path}: no sentence_id/text columns (has {sorted(names)}); is this the `sentences` "
                             "stage of a picforge mining run?")
    if mining_run.count_rows("sentences") == 0:
        raise InputError(f"{mining_run.stage_dir('sentences')}: the run holds no sentences, so PEARL has no phrase to "
                         "type; mine a dump with articles (`picforge mine` prints how many sentences it kept)")


def build_corpus(mining_run_dir, out, options=PearlOptions(), beam_args=(), runner=None, force=False):
    """Run stage `pearl-phrases` into `out` from the mining run's sentences; returns its manifest."""
    check_options(options)
    check_device(options.device_spec(), pipeline_options(beam_args, runner))
    mining_run, run = rundir.RunDir(mining_run_dir), rundir.RunDir(out)
    check_sentences(mining_run)
    if options.wordnet:
        synonyms.load_wordnet(options.wordnet)
    if options.vectors:
        synonyms.load_word_vectors(options.vectors)  # a bad file fails here, not inside the pipeline
    step = corpus_step(mining_run, run, options)
    return stage_jobs.run_steps(run, [step], pipeline_options=pipeline_options(beam_args, runner),
                                force=force)[corpus.STAGE]


def corpus_step(mining_run, run, options):
    """The `pearl-phrases` step into `run`, reading `mining_run`'s sentences: its sources are the dump the mining
    run read (for the release's lineage) and the --vectors file (None when not given)."""
    vectors = rundir.input_identity(options.vectors, "--vectors") if options.vectors else None
    sources = {"dump": (None, dump_inputs(mining_run).get("dump")), "vectors": (None, vectors)}
    (step,) = stage_jobs.declared_steps(run, [PearlPhrases], options, sources, elsewhere={"sentences": mining_run})
    return step
