"""Statistics of released records, as in PiC Tables 1 (PS) and 2 (PR-pass, PR-page, PSD)."""
import functools
import re
from statistics import fmean

from release import tokens
from picforge.release_writer import SPLITS
from release.configs import CONFIGS

WORD = re.compile(r"\w+")


def lexical_overlap(phrase1, phrase2):
    """Whether two phrases share at least one word (case-insensitive)."""
    return bool(set(WORD.findall(phrase1.casefold())) & set(WORD.findall(phrase2.casefold())))


@functools.lru_cache(maxsize=4096)
def document_lengths(text):
    """(sentences, tokens, tokens of each sentence) of a context."""
    per_sentence = [len(tokens.words(text[start:end])) for start, end in tokens.sentence_spans(text)]
    return len(per_sentence), sum(per_sentence), per_sentence


def _mean(values):
    return round(fmean(values), 2) if values else 0.0


def _instances(splits):
    counts = {split: len(splits[split]) for split in SPLITS}
    return dict(counts, all=sum(counts.values()))


def ps_lengths(records):
    """Per-record token lengths of PS phrases and sentences."""
    return {"phrase1 (tokens)": [len(tokens.words(r["phrase1"])) for r in records],
            "phrase2 (tokens)": [len(tokens.words(r["phrase2"])) for r in records],
            "sentence (tokens)": [len(tokens.words(r["sentence1"])) for r in records]}


def span_lengths(records):
    """Per-record token lengths of PR/PSD queries, answers and documents (per-sentence lengths pooled)."""
    docs = [document_lengths(r["context"]) for r in records]
    return {"query (tokens)": [len(tokens.words(r["query"])) for r in records],
            "answer (tokens)": [len(tokens.words(r["answers"]["text"][0])) for r in records],
            "sentence (tokens)": [n for doc in docs for n in doc[2]],
            "document (sentences)": [doc[0] for doc in docs],
            "document (tokens)": [doc[1] for doc in docs]}


def describe(config, splits):
    """(statistics, per-record lengths) of one config from its records per split."""
    records = [r for split in SPLITS for r in splits[split]]
    if CONFIGS[config].schema == "ps":
        lengths = ps_lengths(records)
        labels = [r["label"] for r in records]
        stats = {
            "instances": _instances(splits),
            "unique_phrases": len({r["phrase1"].casefold() for r in records}
                                  | {r["phrase2"].casefold() for r in records}),
            "lexical_overlap_pct": _mean([100 * lexical_overlap(r["phrase1"], r["phrase2"]) for r in records]),
            "labels": {"negative": labels.count(0), "positive": labels.count(1)},
        }
    else:
        lengths = span_lengths(records)
        stats = {
            "instances": _instances(splits),
            "unique_queries": len({r["query"].casefold() for r in records}),
            "unique_answers": len({r["answers"]["text"][0].casefold() for r in records}),
        }
    stats["mean_length"] = {name: _mean(values) for name, values in lengths.items()}
    return stats, lengths
