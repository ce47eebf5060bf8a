"""EmbedDistinctTexts on Beam's TestPipeline with the bundled MiniLM: one embedding per distinct text, shared by
every key that carries the text."""
import apache_beam as beam
import numpy as np
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that

from picforge.encoders import BUNDLED_MODEL, encode, load_sentence_model
from picforge.inference import EmbedDistinctTexts, SentenceTransformerHandler

REPEATED = "The bank raised its interest rate."
KEYED_TEXTS = [("1:0", REPEATED), ("2:4", "They walked along the river bank at dusk."), ("3:7", REPEATED),
               ("4:1", "A short one."), ("5:2", REPEATED), ("1:0", REPEATED)]


def test_each_distinct_text_is_embedded_once_and_every_key_gets_its_vector():
    texts = list(dict.fromkeys(text for _, text in KEYED_TEXTS))
    expected = dict(zip(texts, encode(load_sentence_model(BUNDLED_MODEL, device="cpu"), texts)))

    def check(keyed_vectors):
        vectors = dict(keyed_vectors)
        assert sorted(vectors) == sorted({key for key, _ in KEYED_TEXTS}) and len(keyed_vectors) == len(vectors)
        for key, text in KEYED_TEXTS:
            np.testing.assert_allclose(vectors[key], expected[text], atol=1e-5)
        repeated = [vectors[key] for key, text in KEYED_TEXTS if text == REPEATED]
        assert all(np.array_equal(repeated[0], vector) for vector in repeated[1:])

    pipeline = TestPipeline()
    vectors = (pipeline
               | beam.Create(KEYED_TEXTS, reshuffle=True)
               | EmbedDistinctTexts(SentenceTransformerHandler(batch_size=2, max_batch_size=2, device="cpu")))
    assert_that(vectors, check)
    result = pipeline.run()
    result.wait_until_finish()
    inferences = result.metrics().query(MetricsFilter().with_name("texts-embedded"))["counters"]
    assert sum(counter.committed for counter in inferences) == len(texts) == 3
