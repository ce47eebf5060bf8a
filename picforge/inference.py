"""The Beam side of the sentence encoders: their RunInference handler and EmbedDistinctTexts (apart from
picforge.encoders, which imports no Beam)."""
from collections.abc import Iterable, Sequence

import apache_beam as beam
from apache_beam.ml.inference.base import KeyedModelHandler, ModelHandler, PredictionResult, RunInference

from picforge.encoders import BUNDLED_MODEL, DEFAULT_ENCODE_BATCH_SIZE, SentenceModelOnFirstUse, encode
from picforge.progress import Progress


class SentenceTransformerHandler(ModelHandler[str, PredictionResult, object]):
    """RunInference handler: batches of texts → normalised embeddings; one model per worker process, loaded with
    the first batch; `stage` names the periodic progress line."""

    def __init__(self, encoder=BUNDLED_MODEL, pooling="model", batch_size=DEFAULT_ENCODE_BATCH_SIZE,
                 max_batch_size=None, device="auto", stage="embed"):
        super().__init__()
        self.encoder = encoder
        self.pooling = pooling
        self.batch_size = batch_size
        self.max_batch_size = max_batch_size or 4 * batch_size
        self.device = device
        self.progress = Progress(stage, "texts embedded")

    def load_model(self):
        return SentenceModelOnFirstUse(self.encoder, self.pooling, self.device)

    def run_inference(self, batch: Sequence[str], model, inference_args=None) -> Iterable[PredictionResult]:
        vectors = encode(model.get(), batch, self.batch_size)
        self.progress.tick(len(batch))
        return [PredictionResult(text, vector) for text, vector in zip(batch, vectors)]

    def batch_elements_kwargs(self):
        return {"min_batch_size": min(8, self.max_batch_size), "max_batch_size": self.max_batch_size}

    def get_metrics_namespace(self):
        return "embeddings"


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
            | "embed" >> RunInference(KeyedModelHandler(self.handler))
            | "vector by key" >> beam.FlatMap(lambda keyed: [(key, keyed[1].inference) for key in keyed[0]])
        )
