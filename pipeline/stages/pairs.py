"""Stage `pairs`: pair each phrase's context sentences and keep the semantically dissimilar pairs."""
import apache_beam as beam
from apache_beam.metrics import Metrics

from picforge import shuffle
from picforge.encoders import BUNDLED_MODEL, DEFAULT_ENCODE_BATCH_SIZE, cosine
from picforge.inference import EmbedDistinctTexts, SentenceTransformerHandler
from picforge.sampling import seeded_rank

STAGE = "pairs"


def sentence_order(sentence_id):
    """Numeric (page_id, idx) order of a 'page_id:idx' id."""
    page, idx = sentence_id.split(":")
    return int(page), int(idx)


def contexts_of_length(contexts, min_words, max_words):
    """The contexts of `min_words` to `max_words` words, the only ones pairs are formed from."""
    return [c for c in contexts if min_words <= c["n_words"] <= max_words]


def candidate_pairs(phrase, contexts, seed, max_contexts=32, min_words=5, max_words=25, max_length_diff=3):
    """(sampled contexts, [(sid1, sid2)]) for one phrase: contexts of 5–25 words, ≤32 sampled with the seed,
    pairs from different pages whose lengths differ by at most `max_length_diff` words."""
    eligible = contexts_of_length(contexts, min_words, max_words)
    sampled = sorted(eligible, key=lambda c: seeded_rank(seed, phrase, c["sentence_id"]))[:max_contexts]
    sampled.sort(key=lambda c: sentence_order(c["sentence_id"]))
    pairs = [
        (a["sentence_id"], b["sentence_id"])
        for i, a in enumerate(sampled)
        for b in sampled[i + 1:]
        if a["page_id"] != b["page_id"]
        and abs(a["n_words"] - b["n_words"]) <= max_length_diff
        and a["text"].lower() != b["text"].lower()
    ]
    return sampled, pairs


def in_window(score, low, high):
    return low <= score <= high


def quantile_bounds(quantiles, low_q, high_q):
    """Similarity thresholds at quantiles low_q, high_q of a 101-point ApproximateQuantiles list."""
    return quantiles[round(low_q * 100)], quantiles[round(high_q * 100)]


class _AttachContexts(beam.DoFn):
    """(sentence_id, {phrases, sentence}) → (phrase, context) for sentences that exist."""

    def process(self, item):
        sentence_id, grouped = item
        sentences = grouped["sentence"]
        if not sentences:
            return
        sentence = sentences[0]
        for phrase in grouped["phrases"]:
            yield phrase, sentence


class PairContexts(beam.PTransform):
    """PhraseContexts + Sentence records → scored (phrase, sid1, sid2, semantic_score) in the window."""

    def __init__(self, sentences, seed=0, encoder=None, pooling="model", max_contexts=32, min_words=5,
                 max_words=25, max_length_diff=3, min_similarity=-0.3, max_similarity=0.2, threshold_mode="fixed",
                 quantile_window=None, device="auto", encode_batch_size=DEFAULT_ENCODE_BATCH_SIZE):
        super().__init__()
        self.sentences = sentences
        self.seed = seed
        self.handler = SentenceTransformerHandler(encoder or BUNDLED_MODEL, pooling, encode_batch_size,
                                                  device=device, stage=STAGE)
        self.limits = dict(max_contexts=max_contexts, min_words=min_words, max_words=max_words,
                           max_length_diff=max_length_diff)
        self.window = (min_similarity, max_similarity)
        self.threshold_mode = threshold_mode
        self.quantile_window = quantile_window

    def expand(self, phrase_contexts):
        seed, limits = self.seed, self.limits
        by_sentence = phrase_contexts | "phrase per context" >> beam.FlatMap(
            lambda pc: [(sid, pc["phrase"]) for sid in pc["contexts"]])
        sentence_rows = self.sentences | "sentence by id" >> beam.Map(
            lambda s: (s["sentence_id"], {k: s[k] for k in ("sentence_id", "page_id", "n_words", "text")}))
        contexts = (
            {"phrases": by_sentence, "sentence": sentence_rows}
            | "join sentences" >> shuffle.CoGroupByKey()
            | "context per phrase" >> beam.ParDo(_AttachContexts())
            | "group contexts" >> shuffle.GroupByKey()
        )

        def pair(item):
            phrase, phrase_contexts_ = item
            phrase_contexts_ = list(phrase_contexts_)
            sampled, pairs = candidate_pairs(phrase, phrase_contexts_, seed, **limits)
            off_length = len(phrase_contexts_) - len(
                contexts_of_length(phrase_contexts_, limits["min_words"], limits["max_words"]))
            Metrics.counter(STAGE, "dropped-context-length").inc(off_length)
            Metrics.counter(STAGE, "dropped-context-beyond-sample").inc(len(phrase_contexts_) - off_length - len(sampled))
            Metrics.counter(STAGE, "pairs-formed").inc(len(pairs))
            used = {sid for p in pairs for sid in p}
            for context in sampled:
                if context["sentence_id"] in used:
                    yield beam.pvalue.TaggedOutput("texts", (context["sentence_id"], context["text"]))
            for sid1, sid2 in pairs:
                yield phrase, sid1, sid2

        formed = contexts | "form pairs" >> beam.FlatMap(pair).with_outputs("texts", main="pairs")
        vectors = formed.texts | "embed sentences" >> EmbedDistinctTexts(self.handler)
        first = (
            {"pairs": formed.pairs | "key by first" >> beam.Map(lambda p: (p[1], p)), "vector": vectors}
            | "join first vector" >> shuffle.CoGroupByKey()
            | "rekey by second" >> beam.FlatMap(
                lambda item: [(p[2], (p, item[1]["vector"][0])) for p in item[1]["pairs"]] if item[1]["vector"] else [])
        )
        scored = (
            {"pairs": first, "vector": vectors}
            | "join second vector" >> shuffle.CoGroupByKey()
            | "cosine" >> beam.FlatMap(
                lambda item: [
                    {"phrase": p[0], "sentence_id1": p[1], "sentence_id2": p[2],
                     "semantic_score": round(cosine(v1, item[1]["vector"][0]), 6), "domain_score": None}
                    for p, v1 in item[1]["pairs"]
                ] if item[1]["vector"] else [])
        )
        return scored | "semantic window" >> self._window_filter()

    def _window_filter(self):
        if self.threshold_mode == "fixed":
            return beam.ParDo(_KeepInWindow(), *self.window)
        return QuantileWindow(*self.quantile_window)


class QuantileWindow(beam.PTransform):
    """Keep pairs whose score lies between the low_q and high_q quantiles of all scored pairs."""

    def __init__(self, low_q, high_q):
        super().__init__()
        self.low_q, self.high_q = low_q, high_q

    def expand(self, scored):
        bounds = (
            scored
            | "scores" >> beam.Map(lambda p: p["semantic_score"])
            | "quantiles" >> beam.ApproximateQuantiles.Globally(101)
            | "bounds" >> beam.Map(quantile_bounds, self.low_q, self.high_q)
        )
        return scored | "keep in quantile window" >> beam.ParDo(
            _KeepInWindow(),
            beam.pvalue.AsSingleton(bounds | "low" >> beam.Map(lambda b: b[0])),
            beam.pvalue.AsSingleton(bounds | "high" >> beam.Map(lambda b: b[1])),
        )


class _KeepInWindow(beam.DoFn):
    def process(self, pair, low, high):
        Metrics.counter(STAGE, "pairs-scored").inc()
        if in_window(pair["semantic_score"], low, high):
            Metrics.counter(STAGE, "pairs-kept").inc()
            yield pair
        else:
            Metrics.counter(STAGE, "dropped-outside-semantic-window").inc()
