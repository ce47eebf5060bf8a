"""The Beam side of the sentence encoders: their handler and EmbedDistinctTexts (apart from picforge.encoders, which
imports no Beam). Batches go through Beam's BatchElements and a plain DoFn, not RunInference: its module imports
torch and scipy in every process that builds a pipeline, a runner that never embeds included."""
from collections.abc import Sequence

import apache_beam as beam
from apache_beam.metrics import Metrics

from picforge.encoders import BUNDLED_MODEL, DEFAULT_ENCODE_BATCH_SIZE, SentenceModelOnFirstUse, encode
from picforge.progress import Progress

METRICS_NAMESPACE = "embeddings"


class SentenceTransformerHandler:
    """How a stage embeds: batches of texts → normalised embeddings; one model per worker process, loaded with the
    first batch; `stage` names the periodic progress line."""

    def __init__(self, encoder=BUNDLED_MODEL, pooling="model", batch_size=DEFAULT_ENCODE_BATCH_SIZE,
                 max_batch_size=None, device="auto", stage="embed"):
        self.encoder = encoder
        self.pooling = pooling
        self.batch_size = batch_size
        self.max_batch_size = max_batch_size or 4 * batch_size
        self.device = device
        self.progress = Progress(stage, "texts embedded")

    def load_model(self):
        return SentenceModelOnFirstUse(self.encoder, self.pooling, self.device)

    def run_inference(self, batch: Sequence[str], model):
        """The vectors of a batch of texts, in order."""
        vectors = encode(model.get(), batch, self.batch_size)
        self.progress.tick(len(batch))
        return vectors

    def batch_elements_kwargs(self):
        return {"min_batch_size": min(8, self.max_batch_size), "max_batch_size": self.max_batch_size}


class _EmbedBatch(beam.DoFn):
    """A batch of (key, text) → (key, vector) of each, with the handler's model; counts the texts embedded."""

    def __init__(self, handler):
        self.handler = handler
        self.embedded = Metrics.counter(METRICS_NAMESPACE, "texts-embedded")

    def setup(self):
        self.model = self.handler.load_model()

    def process(self, batch):
        vectors = self.handler.run_inference([text for _, text in batch], self.model)
        self.embedded.inc(len(batch))
        for (key, _), vector in zip(batch, vectors):
            yield key, vector


class EmbedTexts(beam.PTransform):
    """(key, text) → (key, vector), in the handler's batches (the batching RunInference does)."""

    def __init__(self, handler):
        super().__init__()
        self.handler = handler

    def expand(self, keyed_texts):
        return (keyed_texts
                | "batch texts" >> beam.BatchElements(**self.handler.batch_elements_kwargs())
                | "embed batch" >> beam.ParDo(_EmbedBatch(self.handler)))


class EmbedDistinctTexts(beam.PTransform):
    """(key, text) → (key, vector), each distinct text embedded once: equal texts get the very same vector whatever
    batches a runner forms, so their scores tie exactly (and ties break on ids, the same on every runner)."""

    def __init__(self, handler):
        super().__init__()
        self.handler = handler

    def expand(self, keyed_texts):
        return (
            keyed_texts
            | "key by text" >> beam.MapTuple(lambda key, text: (text, key))
            | "group by text" >> beam.GroupByKey()
            | "keys of text" >> beam.MapTuple(lambda text, keys: (tuple(sorted(set(keys))), text))
            | "embed" >> EmbedTexts(self.handler)
            | "vector by key" >> beam.FlatMap(lambda keyed: [(key, keyed[1]) for key in keyed[0]])
        )
