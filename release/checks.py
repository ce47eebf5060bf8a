"""Checks every released record must pass: schema, answer offsets, PSD occurrence count, no markup residue."""
import re

from picforge import schemas
from pipeline.stages.clean import RESIDUE
from release.configs import CONFIGS

# Markup the clean stage's RESIDUE pattern does not look for: heading lines, external links, hex entities,
# comment ends, magic words and file-link options.
MORE_RESIDUE = re.compile(r"^=+[^=\n]+=+\s*$|\[https?://|&#x[0-9A-Fa-f]+;|-->|__[A-Z]+__"
                          r"|\|\s*(?:thumb|upright|left|right)\b", re.MULTILINE)


def phrase_pattern(phrase):
    """A case-insensitive pattern matching `phrase` as whole words."""
    return re.compile(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", re.IGNORECASE)


def count_phrase(text, phrase):
    """How many times `phrase` occurs in `text` as whole words, ignoring case."""
    return len(phrase_pattern(phrase).findall(text))


def markup_residue(text):
    """The first piece of markup left in `text`, or None when it is clean."""
    found = RESIDUE.search(text) or MORE_RESIDUE.search(text)
    return found.group(0) if found else None


def _text_fields(record):
    if "answers" in record:
        return {"context": record["context"], "query": record["query"],
                **{f"answers/text/{i}": t for i, t in enumerate(record["answers"]["text"])}}
    return {k: record[k] for k in ("phrase1", "phrase2", "sentence1", "sentence2")}


def _span_problems(record):
    answers = record["answers"]
    if len(answers["text"]) != len(answers["answer_start"]):
        return [f"answers: {len(answers['text'])} texts but {len(answers['answer_start'])} answer_start values"]
    found = []
    for text, start in zip(answers["text"], answers["answer_start"]):
        at = record["context"][start:start + len(text)]
        if at != text:
            found.append(f"answers: answer_start {start} indexes {at!r}, not the answer {text!r}")
    return found


def problems(config, record):
    """Why `record` may not be released in `config` (empty when it may)."""
    found = schemas.errors(CONFIGS[config].schema, record)
    if found:
        return found
    for field, text in _text_fields(record).items():
        residue = markup_residue(text)
        if residue:
            found.append(f"{field}: markup residue {residue!r}")
    if config == "PS":
        return found
    found += _span_problems(record)
    if config == "PSD" and not found:
        occurrences = count_phrase(record["context"], record["answers"]["text"][0])
        if occurrences != 2:
            found.append(f"context: the phrase occurs {occurrences} times, PSD needs exactly 2")
    return found

