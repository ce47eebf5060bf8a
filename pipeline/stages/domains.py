"""Stage `domains`: score each pair by the similarity of its two pages' category lists."""
import apache_beam as beam
from apache_beam.metrics import Metrics
from apache_beam.ml.inference.base import KeyedModelHandler, RunInference

from pipeline.embeddings import BUNDLED_MODEL, SentenceTransformerHandler, cosine

STAGE = "domains"


def page_of(sentence_id):
    return int(sentence_id.split(":", 1)[0])


def category_text(categories):
    """The comma-joined category list PiC embeds, or '' when the page has none."""
    return ", ".join(categories)


class ScoreDomains(beam.PTransform):
    """CandidatePair + Page records → pairs with domain_score (None when a page has no categories)."""

    def __init__(self, pages, model_name=None, pooling="model"):
        super().__init__()
        self.pages = pages
        self.handler = SentenceTransformerHandler(model_name or BUNDLED_MODEL, pooling)

    def expand(self, pairs):
        pages_used = (
            pairs
            | "pages of pairs" >> beam.FlatMap(lambda p: [(page_of(p["sentence_id1"]), None), (page_of(p["sentence_id2"]), None)])
            | "distinct pages" >> beam.CombinePerKey(lambda _: None)
        )
        categories = self.pages | "categories by page" >> beam.Map(lambda page: (page["page_id"], category_text(page["categories"])))
        texts = (
            {"used": pages_used, "text": categories}
            | "join used pages" >> beam.CoGroupByKey()
            | "pages to embed" >> beam.FlatMap(
                lambda item: [(item[0], item[1]["text"][0])] if item[1]["used"] and item[1]["text"] and item[1]["text"][0] else [])
        )
        vectors = (
            texts
            | "embed categories" >> RunInference(KeyedModelHandler(self.handler))
            | "vector by page" >> beam.MapTuple(lambda page_id, result: (page_id, result.inference))
        )
        first = (
            {"pairs": pairs | "key by page 1" >> beam.Map(lambda p: (page_of(p["sentence_id1"]), p)), "vector": vectors}
            | "join page 1" >> beam.CoGroupByKey()
            | "rekey by page 2" >> beam.FlatMap(
                lambda item: [(page_of(p["sentence_id2"]), (p, item[1]["vector"][0] if item[1]["vector"] else None))
                              for p in item[1]["pairs"]])
        )
        return (
            {"pairs": first, "vector": vectors}
            | "join page 2" >> beam.CoGroupByKey()
            | "domain score" >> beam.FlatMap(_score_pairs)
        )


def _score_pairs(item):
    _, grouped = item
    vector2 = grouped["vector"][0] if grouped["vector"] else None
    for pair, vector1 in grouped["pairs"]:
        scored = dict(pair)
        if vector1 is None or vector2 is None:
            Metrics.counter(STAGE, "pairs-without-categories").inc()
            scored["domain_score"] = None
        else:
            scored["domain_score"] = round(cosine(vector1, vector2), 6)
        Metrics.counter(STAGE, "pairs").inc()
        yield scored
