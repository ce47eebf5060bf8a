"""`stsb-context evaluate`: correlation of gold scores with a model's best-span similarity, per setup of the paper.

Setups: `full` (one vector for the whole context), `ngram-forward` (a forward pass per word n-gram),
`ngram-single` (one forward pass, n-grams mean-pooled from token embeddings) and `bm25` (Okapi BM25 of
the origin phrase against the context, via rank_bm25, IDF from the evaluated contexts); with `--vectors`, the
paper's GloVe rows for `full` and `ngram-single`; then Williams' test of every row against the best (stage
`eval-comparison`).
"""
import dataclasses
import logging
import re
import time

import numpy as np

from companions.stsb_context import dataset, significance, spans
from companions.stsb_context.declarations import (EVALUATIONS, GLOVE, MODEL, SPAN_SETUPS, Comparison,  # noqa: F401
                                                  EvaluateOptions)
from companions.stsb_context.glove import WordVectorEncoder
from companions.stsb_context.settings import COMPARISON, GENERATIONS, SETUPS  # noqa: F401
from picforge import stages
from picforge.encoders import BUNDLED_MODEL, TokenEncoder, load_sentence_model, resolve_model_path
from picforge.errors import InputError
from picforge.rundir import input_identity

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


def evaluated_stages(setups, with_vectors):
    """The Evaluation declarations a run writes: every setup with the model, and the GloVe setups given --vectors."""
    return [stage for stage in EVALUATIONS
            if stage.setup in setups and (stage.encoder == MODEL or with_vectors)]


def glove_encoder(vectors, rows):
    """The word-vector encoder holding the vectors of every token of the rows."""
    encoder = WordVectorEncoder(vectors)
    encoder.load([text for r in rows for text in (r["origin_phrase"], r["context"])])
    return encoder


def evaluate(run, options=EvaluateOptions(), force=False):
    """Run stage `eval-<setup>` for each setup of `options` (and `eval-glove-<setup>` given word vectors), then the
    Williams comparison of every evaluated row of the run; returns {stage: manifest}, the comparison's under
    COMPARISON."""
    if not 1 <= options.min_span <= options.max_span:
        raise InputError(f"--min-span {options.min_span} / --max-span {options.max_span}: need 1 <= MIN <= MAX")
    model_name = options.encoder or "all-MiniLM-L6-v2"
    options = dataclasses.replace(options, encoder=options.encoder or resolve_model_path(BUNDLED_MODEL))
    encoders = {MODEL: Encoder(options.encoder, batch_size=options.batch_size, device=options.device_spec())}
    vectors = {"vectors": input_identity(options.vectors, "--vectors")} if options.vectors else {}
    rows = None
    manifests = {}
    for stage in evaluated_stages(options.setup, options.vectors is not None):
        started = time.time()
        inputs = stage.inputs(run, options, {name: vectors[name] for name in stage.sources})
        done = stages.current(run, stage, options, inputs, force)
        if done is not None:
            manifests[stage.name] = done
            continue
        rows = evaluation_rows(run, options.source) if rows is None else rows
        if stage.encoder not in encoders:
            encoders[stage.encoder] = glove_encoder(options.vectors, rows)
        scored = score_rows(stage.setup, rows, encoders[stage.encoder], options.min_span, options.max_span)
        records = [{"row": i, "score": r["score"], "prediction": sim, "best_span": text, "best_span_start": start}
                   for i, (r, (sim, text, start)) in enumerate(zip(rows, scored))]
        metrics = spans.correlations([r["score"] for r in records], [r["prediction"] for r in records])
        manifests[stage.name] = stages.write(
            run, stage, records, options, inputs=inputs, started=started, metrics=metrics,
            encoder=encoder_label(stage.setup, stage.encoder, model_name, options.vectors))
    manifests[Comparison.name] = compare_evaluations(run, options.source, run.stage_identity(options.source),
                                                     force=force)
    return manifests


def score(inputs, options, force=False):
    """The hook of the core's `picforge stsb-context evaluate`: evaluate the run `inputs["run"]` (stages written
    into it) and return the comparison's rows and its test."""
    from picforge.rundir import RunDir

    run = RunDir(inputs["run"])
    manifests = evaluate(run, options, force=force)
    return {"rows": list(run.iter_records(COMPARISON)), "test": manifests[COMPARISON]["test"]}


def report(results):
    """The comparison as a plain table: each row's correlations and its p against the best of its setup and of all."""
    lines = [f"{'stage':<24} {'encoder':<24} {'pearson':>8} {'spearman':>8} {'n':>6} {'p best/setup':>12} "
             f"{'p best/all':>10}"]
    for row in results["rows"]:
        cells = [_cell(row["pearson"], ".3f"), _cell(row["spearman"], ".3f"),
                 _cell(row["p_vs_best_in_setup"], ".3g", best=row["best_in_setup"] == row["stage"]),
                 _cell(row["p_vs_best_in_all"], ".3g", best=row["best_in_all"] == row["stage"])]
        lines.append(f"{row['stage']:<24} {row['encoder'][:24]:<24} {cells[0]:>8} {cells[1]:>8} {row['n']:>6} "
                     f"{cells[2]:>12} {cells[3]:>10}")
    lines.append(f"p: {results['test']}; 'best' marks the row the others are compared with")
    return lines


def _cell(value, form, best=False):
    """A table cell: 'best', 'n/a' for an undefined value, else the number."""
    if best:
        return "best"
    return "n/a" if value is None else format(value, form)


def encoder_label(setup, encoder, model, vectors):
    """What scored a stage, for the comparison table and the card."""
    if setup == "bm25":
        return "BM25 (Okapi)"
    if encoder == GLOVE:
        return f"GloVe ({vectors.rsplit('/', 1)[-1]})"
    return model.rstrip("/").rsplit("/", 1)[-1]


def compare_evaluations(run, source, source_identity, *, force=False):
    """Stage `eval-comparison`: Williams' test of each evaluated stage of `source` (up to date with it) against the
    best Pearson row of its setup and of all; its rows in Table 1 order (setup, then model before GloVe)."""
    started = time.time()
    current = []
    for stage in EVALUATIONS:
        manifest = run.read_manifest(stage.name)
        if manifest and manifest["options"]["source"] == source and manifest["inputs"][source] == source_identity:
            current.append((stage.name, stage.setup, manifest))
    inputs = {stage: manifest["fingerprint"] for stage, _, manifest in current}
    given = Comparison.Options(source=source)
    done = stages.current(run, Comparison, given, inputs, force)
    if done is not None:
        return done
    gold, rows = None, []
    for stage, setup, manifest in current:
        scored = list(run.iter_records(stage, columns=["score", "prediction"]))
        gold = [r["score"] for r in scored]
        rows.append({"stage": stage, "setup": setup, "encoder": manifest.get("encoder", stage),
                     "predictions": [r["prediction"] for r in scored]})
    table = significance.compare(gold or [], rows)
    return stages.write(run, Comparison, table, given, inputs=inputs, started=started, test="Williams (1959) t-test of dependent correlations sharing the gold "
                                                  "scores, on Pearson's r, two-sided, n - 3 degrees of freedom")
