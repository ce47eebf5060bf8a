"""STS-B-Context generation through the core LLM client (picforge/llm.py): one context per STS-B pair."""
import logging
import os
import time

from companions.stsb_context import prompts, verbatim
from companions.stsb_context.declarations import Generations
from companions.stsb_context.settings import GENERATIONS
from companions.stsb_context.stsb import read_pairs
from picforge.errors import InputError
from picforge.llm import check_spend, endpoint_settings, job_for, make_fetcher
from picforge import stages
from picforge.rundir import input_identity

STAGE = GENERATIONS
log = logging.getLogger(__name__)


def generation_record(pair, letter, prompt, key, outcome, exact=False):
    """The `generations` row of one pair: its answer (if any) and where the target phrase sits in it."""
    record = {
        "pair_id": pair["pair_id"], "line": pair["line"], "genre": pair["genre"], "score": pair["score"],
        "origin_phrase": pair["sentence1"], "target_sentence": pair["sentence2"],
        "letter": letter, "prompt": prompt, "cache_key": key, "status": outcome["status"],
        "context": None, "target_phrase": None, "target_start": None, "starts_with_letter": None,
        "error": outcome.get("error"),
    }
    if outcome["status"] == "answered":
        context = outcome["response"]["content"]
        found = verbatim.locate(context, pair["sentence2"], exact)
        record.update(context=context, starts_with_letter=context[:1].upper() == letter,
                      status="kept" if found else "no-verbatim")
        if found:
            record["target_start"], record["target_phrase"] = found
    return record


def generation_counters(records, fetch_counts):
    """The funnel of a generation run, with the verbatim drop rate over answered pairs."""
    by_status = {}
    for record in records:
        by_status[record["status"]] = by_status.get(record["status"], 0) + 1
    answered = by_status.get("kept", 0) + by_status.get("no-verbatim", 0)
    counters = {f"{STAGE}/pairs": len(records), **{f"{STAGE}/{k}": v for k, v in sorted(by_status.items())},
                **{f"{STAGE}/{k}": v for k, v in fetch_counts.items()},
                f"{STAGE}/starts_with_letter": sum(1 for r in records if r["starts_with_letter"])}
    drop_rate = by_status.get("no-verbatim", 0) / answered if answered else None
    pending = len(records) - answered
    return counters, drop_rate, pending


def generate_contexts(run, stsb_path, settings, options, *, cache_dir, force=False):
    """Run stage `generations` with `options` (GenerationsOptions) against the endpoint of `settings`: one context
    per STS-B pair, written as Parquet with a manifest; returns it."""
    started = time.time()
    pairs = read_pairs(stsb_path)
    inputs = Generations.inputs(run, options, {"stsb": input_identity(stsb_path), "endpoint": settings.endpoint})
    done = stages.current(run, Generations, options, inputs, force)
    if done is not None:
        log.info("skipping %s: up to date", STAGE)
        return done
    planned, jobs = [], {}
    for pair in pairs:
        letter = prompts.start_letter(settings.seed, pair["pair_id"])
        prompt = prompts.build_prompt(pair["sentence2"], letter)
        job = job_for(settings, prompts.chat_messages(prompt))
        planned.append((pair, letter, prompt, job.key))
        jobs.setdefault(job.key, job)
    fetcher = make_fetcher(settings, cache_dir=cache_dir, offline=options.offline, max_requests=options.max_requests,
                           max_tokens=options.max_tokens, max_retries=options.max_retries, timeout=options.timeout)
    outcomes = fetcher.run(list(jobs.values()), options.concurrency)
    records = [generation_record(pair, letter, prompt, key, outcomes[key], options.exact_match)
               for pair, letter, prompt, key in planned]
    counters, drop_rate, pending = generation_counters(records, fetcher.counts)
    return stages.write(run, Generations, records, options, inputs=inputs, counters=counters, started=started,
                        complete=pending == 0, pending=pending, verbatim_drop_rate=drop_rate,
                        budget={"max_requests": options.max_requests, "max_tokens": options.max_tokens},
                        offline=options.offline)


def default_cache(out):
    """RUN_DIR/cache for a local run directory; remote run directories need --cache."""
    if "://" in out:
        raise InputError(f"{out}: the response cache must be local; pass --cache DIR")
    return os.path.join(out, "cache")


def generate_into(out, stsb_path, options, *, live, cache_dir, force):
    """`stsb-context` generation into run folder `out` with `options` (GenerationsOptions); a non-loopback endpoint
    needs `live` (or `options.offline`)."""
    from picforge.rundir import RunDir, writable_folder

    if not stsb_path or not out:
        raise InputError("stsb-context: generation needs --stsb FILE and --out RUN_DIR")
    settings = endpoint_settings(options.base_url, model=options.model, temperature=options.temperature,
                                 max_tokens=options.completion_tokens, seed=options.seed)
    check_spend(settings.url, live=live, offline=options.offline, max_requests=options.max_requests,
                max_tokens=options.max_tokens)
    return generate_contexts(RunDir(writable_folder(out)), stsb_path, settings, options,
                             cache_dir=cache_dir or default_cache(out), force=force)
