"""`picforge mine`: Wikipedia dump → ranked annotation triplets (PiC Appendix C, Steps 1–6)."""
import json
import logging

from apache_beam.io.filesystems import FileSystems

from picforge import rundir, stage_jobs
from picforge.errors import InputError
from picforge.files import write_atomically
from picforge.encoders import device_spec
from picforge.options import check_device, pipeline_options
from picforge.paths import refuse_overlap
from picforge.resources import read_wic_words
from pipeline.dump.download import fetch
from pipeline.mine_stages import CANDIDATES_CSV, MINING, MineOptions

log = logging.getLogger(__name__)
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
    check_device(device_spec(options.device, options.precision), popts())
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
    """PiC Steps 1–6 as run steps: the stage declarations (pipeline.mine_stages) with their options and sources."""
    wic = (wic_words, rundir.input_identity(wic_path))
    return stage_jobs.declared_steps(run, MINING, options,
                                     {"dump": (dump, rundir.input_identity(dump)), "wic_words": wic})


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
