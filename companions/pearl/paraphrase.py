"""Phrase-level augmentation: one LLM paraphrase per phrase through the core LLM client (picforge/llm.py: response
cache, caps per HTTP attempt), standing in for the paper's Parrot; off unless asked for."""
import re
import time

from companions.pearl.declarations import PearlParaphrases
from companions.pearl.stage_names import PARAPHRASES as STAGE, PHRASES
from picforge import stages
from picforge.llm import job_for, make_fetcher

MAX_WORDS_FACTOR = 3


def build_prompt(phrase):
    """The user message asking for one paraphrase of `phrase`."""
    return ("Paraphrase the following phrase: give one different wording with the same meaning, about as short "
            f"as the original. Answer with the paraphrase only, no quotes.\nPhrase: {phrase}")


def chat_messages(phrase):
    return [{"role": "user", "content": build_prompt(phrase)}]


def parse_paraphrase(phrase, content):
    """(status, paraphrase): the answer's first line without quotes or a final full stop; rejected when empty,
    the phrase itself, or more than three times its length in words."""
    line = next((line.strip() for line in content.splitlines() if line.strip()), "")
    line = re.sub(r"^(?:paraphrase:\s*)", "", line, flags=re.I).strip().strip("\"'“”‘’").rstrip(".").strip()
    if not line or line.lower() == phrase.lower():
        return "rejected", None
    if len(line.split()) > MAX_WORDS_FACTOR * len(phrase.split()):
        return "rejected", None
    return "kept", line


def paraphrase_record(phrase, key, outcome):
    """The `pearl-paraphrases` row of one phrase."""
    status, text = outcome["status"], None
    if status == "answered":
        status, text = parse_paraphrase(phrase, outcome["response"]["content"])
    return {"phrase": phrase, "cache_key": key, "status": status, "paraphrase": text, "error": outcome.get("error")}


def paraphrase_phrases(run, settings, options, *, cache_dir, force=False):
    """Run stage `pearl-paraphrases` over the phrases of `pearl-phrases`, most frequent first (so a budget
    goes to them), with `settings` (the endpoint's GenerationSettings) and `options` (ParaphraseOptions: the
    budget, retries, offline); answers come from the cache when present. Returns the manifest."""
    started = time.time()
    inputs = PearlParaphrases.inputs(run, options, {"endpoint": settings.endpoint})
    done = stages.current(run, PearlParaphrases, options, inputs, force)
    if done is not None:
        return done
    phrases = sorted(run.iter_records(PHRASES, columns=["phrase", "count"]),
                     key=lambda r: (-r["count"], r["phrase"]))
    planned, jobs = [], {}
    for row in phrases:
        job = job_for(settings, chat_messages(row["phrase"]))
        planned.append((row["phrase"], job.key))
        jobs.setdefault(job.key, job)
    fetcher = make_fetcher(settings, cache_dir=cache_dir, offline=options.offline, max_requests=options.max_requests,
                           max_tokens=options.max_tokens, max_retries=options.max_retries, timeout=options.timeout)
    outcomes = fetcher.run(list(jobs.values()), options.concurrency)
    records = sorted((paraphrase_record(phrase, key, outcomes[key]) for phrase, key in planned),
                     key=lambda r: r["phrase"])
    by_status = {}
    for record in records:
        by_status[record["status"]] = by_status.get(record["status"], 0) + 1
    pending = sum(n for status, n in by_status.items() if status not in ("kept", "rejected"))
    counters = {**{f"{STAGE}/{k}": v for k, v in sorted(by_status.items())},
                **{f"{STAGE}/{k}": v for k, v in fetcher.counts.items()}}
    return stages.write(run, PearlParaphrases, records, options, inputs=inputs, counters=counters, started=started,
                        complete=pending == 0, pending=pending, offline=options.offline,
                        budget={"max_requests": options.max_requests, "max_tokens": options.max_tokens})
