"""`stsb-context evaluate`: correlation of gold scores with a model's best-span similarity, per setup of the paper.

Setups: `full` (one vector for the whole context), `ngram-forward` (a forward pass per word n-gram),
`ngram-single` (one forward pass, n-grams mean-pooled from token embeddings) and `bm25` (Okapi BM25 of
the origin phrase against the context, via rank_bm25, IDF from the evaluated contexts).
"""
import logging
import re
import time

import numpy as np

from companions.stsb_context import dataset, spans
from companions.stsb_context.settings import GENERATIONS, SETUPS, SOURCES
from picforge.encoders import BUNDLED_MODEL, TokenEncoder, load_sentence_model, resolve_model_path
from picforge.errors import InputError
from picforge.rundir import fingerprint

SPAN_SETUPS = ("ngram-forward", "ngram-single")
SCHEMA = "stsb_span_score"
BM25_TOKEN = re.compile(r"\w+")
log = logging.getLogger(__name__)


class Encoder:
    """A sentence-transformers model loaded on first use, offline."""

    def __init__(self, model, batch_size=64, device=None):
        self.name, self.batch_size, self.device = model, batch_size, device
        self._model = None

    @property
    def model(self):
        if self._model is None:
            self._model = load_sentence_model(self.name, device=self.device or "auto")
        return self._model

    def sentences(self, texts):
        """One embedding per text."""
        return self.model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True)

    def tokens(self, texts):
        """[(token vectors, token character offsets)] from one forward pass per text (the model's transformer)."""
        return list(TokenEncoder.of_sentence_model(self.model, self.batch_size).token_vectors(list(texts)))


def score_full(encoder, rows):
    """Cosine of the origin phrase with the whole context."""
    origins = encoder.sentences(r["origin_phrase"] for r in rows)
    contexts = encoder.sentences(r["context"] for r in rows)
    return [(float(spans.cosine(o, c)[0]), r["context"], 0) for o, c, r in zip(origins, contexts, rows)]


def _no_span(row):
    log.warning("context has no words of the requested span sizes: %r", row["context"][:80])
    return 0.0, None, None


def score_ngram_forward(encoder, rows, min_size, max_size, rows_per_pass=32):
    """Best cosine of the origin phrase with each word n-gram of the context, each encoded on its own
    (the distinct n-grams of `rows_per_pass` rows go through the model together)."""
    results = []
    for first in range(0, len(rows), rows_per_pass):
        chunk = rows[first:first + rows_per_pass]
        origins = encoder.sentences(r["origin_phrase"] for r in chunk)
        candidates = []
        for row in chunk:
            words = spans.word_offsets(row["context"])
            candidates.append([spans.span_text(row["context"], words, s)
                               for s in spans.word_spans(len(words), min_size, max_size)])
        distinct = list(dict.fromkeys(text for found in candidates for _, text in found))
        vectors = dict(zip(distinct, encoder.sentences(distinct))) if distinct else {}
        for origin, row, found in zip(origins, chunk, candidates):
            if not found:
                results.append(_no_span(row))
                continue
            index, sim = spans.best_match(origin, np.array([vectors[text] for _, text in found]))
            results.append((sim, found[index][1], found[index][0]))
    return results


def score_ngram_single(encoder, rows, min_size, max_size):
    """Best cosine of the origin phrase with each word n-gram, mean-pooled from one pass over the context."""
    origins = encoder.sentences(r["origin_phrase"] for r in rows)
    results = []
    for origin, row, (vectors, offsets) in zip(origins, rows, encoder.tokens([r["context"] for r in rows])):
        words = spans.word_offsets(row["context"])
        usable, pooled = spans.pooled_span_vectors(
            vectors, spans.word_token_ranges(offsets, words), spans.word_spans(len(words), min_size, max_size))
        if not usable:
            results.append(_no_span(row))
            continue
        index, sim = spans.best_match(origin, pooled)
        start, text = spans.span_text(row["context"], words, usable[index])
        results.append((sim, text, start))
    return results


def bm25_tokens(text):
    """Lower-cased word tokens for BM25."""
    return BM25_TOKEN.findall(text.lower())


def score_bm25(rows):
    """Okapi BM25 of the origin phrase (query) against its own context, over the corpus of all contexts."""
    from rank_bm25 import BM25Okapi
    if not rows:
        return []
    index = BM25Okapi([bm25_tokens(r["context"]) for r in rows])
    return [(float(index.get_batch_scores(bm25_tokens(r["origin_phrase"]), [i])[0]), r["context"], 0)
            for i, r in enumerate(rows)]


def score_rows(setup, rows, encoder, min_size, max_size):
    """[(prediction, best span, its start)] of one setup for each row."""
    if setup == "bm25":
        return score_bm25(rows)
    if setup == "full":
        return score_full(encoder, rows)
    scorer = score_ngram_forward if setup == "ngram-forward" else score_ngram_single
    return scorer(encoder, rows, min_size, max_size)


def evaluation_rows(run, source):
    """The (origin_phrase, context, score) rows to evaluate: the released dataset or the kept generations."""
    if source == GENERATIONS:
        return [dataset.final_row(r) for r in run.iter_records(GENERATIONS) if r["status"] == "kept"]
    return list(run.iter_records(dataset.STAGE))


def evaluate(run, setups, *, model=None, min_size=1, max_size=20, source=dataset.STAGE, batch_size=64,
             device=None, force=False):
    """Run stage `eval-<setup>` for each setup (per-row predictions + correlations); returns {setup: manifest}."""
    if not 1 <= min_size <= max_size:
        raise InputError(f"--min-span {min_size} / --max-span {max_size}: need 1 <= MIN <= MAX")
    model = model or resolve_model_path(BUNDLED_MODEL)
    encoder = Encoder(model, batch_size=batch_size, device=device)
    rows = None
    manifests = {}
    for setup in setups:
        started = time.time()
        stage = f"eval-{setup}"
        options = {"setup": setup, "source": source}
        if setup != "bm25":
            options["model"] = model
        if setup in SPAN_SETUPS:
            options.update(min_span=min_size, max_span=max_size)
        inputs = {source: run.stage_identity(source)}
        stage_print = fingerprint(stage, inputs, options)
        done = None if force else run.up_to_date(stage, stage_print)
        if done is not None:
            manifests[setup] = dict(done, skipped=True)
            continue
        rows = evaluation_rows(run, source) if rows is None else rows
        scored = score_rows(setup, rows, encoder, min_size, max_size)
        records = [{"row": i, "score": r["score"], "prediction": sim, "best_span": text, "best_span_start": start}
                   for i, (r, (sim, text, start)) in enumerate(zip(rows, scored))]
        metrics = spans.correlations([r["score"] for r in records], [r["prediction"] for r in records])
        manifests[setup] = run.write_stage(stage, records, SCHEMA, inputs=inputs, options=options, started=started,
                                           metrics=metrics)
    return manifests
