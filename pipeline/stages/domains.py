"""Stage `domains`: score each pair by the similarity of its two pages' category lists."""
import apache_beam as beam
from apache_beam.metrics import Metrics

from picforge import shuffle
from picforge.encoders import BUNDLED_MODEL, DEFAULT_ENCODE_BATCH_SIZE, cosine
from picforge.inference import EmbedDistinctTexts, SentenceTransformerHandler
from pipeline.categories_api import BATCH_SIZE, FetchCategories
from pipeline.category_source import CATEGORIES_API_URL

STAGE = "domains"


def page_of(sentence_id):
    return int(sentence_id.split(":", 1)[0])


def category_text(categories):
    """The comma-joined category list PiC embeds, or '' when the page has none."""
    return ", ".join(categories)


class PageCategoryTexts(beam.PTransform):
    """Page ids → (page_id, category text) from the Page records' [[Category:…]] links (stage `clean`)."""

    def __init__(self, pages):
        super().__init__()
        self.pages = pages

    def expand(self, page_ids):
        texts = self.pages | "categories by page" >> beam.Map(lambda page: (page["page_id"], category_text(page["categories"])))
        return (
            {"used": page_ids | "key page ids" >> beam.Map(lambda page_id: (page_id, None)), "text": texts}
            | "join used pages" >> shuffle.CoGroupByKey()
            | "texts of used pages" >> beam.FlatMap(
                lambda item: [(item[0], item[1]["text"][0])] if item[1]["used"] and item[1]["text"] else [])
        )


class ApiCategoryTexts(beam.PTransform):
    """Page ids → (page_id, category text) from the MediaWiki API, 50 ids per request, through the cache."""

    def __init__(self, api_url=CATEGORIES_API_URL, cache_dir=None, contact=None):
        super().__init__()
        self.fetch = FetchCategories(api_url, cache_dir, contact, namespace=STAGE)

    def expand(self, page_ids):
        return (
            page_ids
            | "batches of 50 ids" >> beam.BatchElements(min_batch_size=BATCH_SIZE, max_batch_size=BATCH_SIZE)
            | "fetch categories" >> beam.ParDo(self.fetch)
            | "category texts" >> beam.MapTuple(lambda page_id, categories: (page_id, category_text(categories)))
        )


class ScoreDomains(beam.PTransform):
    """CandidatePair records → pairs with domain_score (None when a page has no categories).

    `categories` turns the distinct page ids of the pairs into (page_id, category text): PageCategoryTexts
    or ApiCategoryTexts."""

    def __init__(self, categories, encoder=None, pooling="model", device="auto",
                 encode_batch_size=DEFAULT_ENCODE_BATCH_SIZE):
        super().__init__()
        self.categories = categories
        self.handler = SentenceTransformerHandler(encoder or BUNDLED_MODEL, pooling, encode_batch_size,
                                                  device=device, stage=STAGE)

    def expand(self, pairs):
        texts = (
            pairs
            | "pages of pairs" >> beam.FlatMap(lambda p: [page_of(p["sentence_id1"]), page_of(p["sentence_id2"])])
            | "distinct pages" >> beam.Distinct()
            | "categories of used pages" >> self.categories
            | "pages with categories" >> beam.Filter(lambda page_text: page_text[1])
        )
        vectors = texts | "embed categories" >> EmbedDistinctTexts(self.handler)
        first = (
            {"pairs": pairs | "key by page 1" >> beam.Map(lambda p: (page_of(p["sentence_id1"]), p)), "vector": vectors}
            | "join page 1" >> shuffle.CoGroupByKey()
            | "rekey by page 2" >> beam.FlatMap(
                lambda item: [(page_of(p["sentence_id2"]), (p, item[1]["vector"][0] if item[1]["vector"] else None))
                              for p in item[1]["pairs"]])
        )
        return (
            {"pairs": first, "vector": vectors}
            | "join page 2" >> shuffle.CoGroupByKey()
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
