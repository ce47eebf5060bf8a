"""Stage `group`: occurrences grouped by phrase; keep phrases in ≥2 sentences that contain a WiC word."""
import re

import apache_beam as beam
from apache_beam.metrics import Metrics

from picforge import shuffle
from picforge.sampling import seeded_rank

STAGE = "group"
MAX_CONTEXTS_KEPT = 1000  # a phrase's context list is capped (seeded) so hot phrases stay small records
WORD = re.compile(r"[a-z0-9]+")


def wic_words_in(phrase, wic_words):
    """The WiC words that are words of the phrase, sorted."""
    return sorted(set(WORD.findall(phrase)) & wic_words)


def group_phrase(phrase, occurrences, wic_words, seed, min_contexts=2):
    """A PhraseContexts record, or (reason, None) when the phrase is filtered out."""
    sentence_ids = sorted({o["sentence_id"] for o in occurrences})
    if len(sentence_ids) < min_contexts:
        return "single-context", None
    matched = wic_words_in(phrase, wic_words)
    if not matched:
        return "no-wic-word", None
    kept = sorted(sentence_ids, key=lambda sid: seeded_rank(seed, phrase, sid))[:MAX_CONTEXTS_KEPT]
    return "kept", {
        "phrase": phrase,
        "wic_words": matched,
        "kinds": sorted({o["kind"] for o in occurrences}),
        "contexts": sorted(kept),
        "n_contexts": len(sentence_ids),
    }


class GroupPhrases(beam.PTransform):
    """Occurrence records → PhraseContexts records (Steps 3 and 4 of PiC Appendix C)."""

    def __init__(self, wic_words, seed=0, min_contexts=2):
        super().__init__()
        self.wic_words = frozenset(wic_words)
        self.seed = seed
        self.min_contexts = min_contexts

    def expand(self, occurrences):
        wic_words, seed, min_contexts = self.wic_words, self.seed, self.min_contexts

        def group(item):
            phrase, occs = item
            Metrics.counter(STAGE, "phrases").inc()
            reason, record = group_phrase(phrase, list(occs), wic_words, seed, min_contexts)
            Metrics.counter(STAGE, reason if record else f"dropped-{reason}").inc()
            if record:
                yield record

        return (
            occurrences
            | "key by phrase" >> beam.Map(lambda o: (o["phrase"], {"sentence_id": o["sentence_id"], "kind": o["kind"]}))
            | "group by phrase" >> shuffle.GroupByKey()
            | "filter phrases" >> beam.FlatMap(group)
        )
