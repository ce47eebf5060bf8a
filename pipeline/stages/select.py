"""Stage `select`: Step-6 filters, rank by domain dissimilarity, top N triplets with 5-sentence passages."""
import csv
import hashlib
import io
import math

import apache_beam as beam
from apache_beam.metrics import Metrics

from picforge.sheets import neutralise
from pipeline.stages.domains import page_of

STAGE = "select"
PASSAGE_SENTENCES = 5
CSV_COLUMNS = ("rank", "triplet_id", "phrase", "wic_words", "page1_title", "page1_url", "passage1", "sentence1",
               "page2_title", "page2_url", "passage2", "sentence2", "semantic_score", "domain_score")


def rank_key(pair):
    """Sort key: most dissimilar page categories first, then most dissimilar sentences, then ids."""
    domain = pair["domain_score"]
    return (math.inf if domain is None else domain, pair["semantic_score"], pair["phrase"],
            pair["sentence_id1"], pair["sentence_id2"])


def triplet_rank(triplet):
    """Rank order of selected triplets (all have a domain score): the same order as rank_key."""
    return triplet["domain_score"], triplet["semantic_score"], triplet["phrase"], triplet["triplet_id"]


def passage_window(idx, n_sentences, size=PASSAGE_SENTENCES):
    """[start, end) of a `size`-sentence window centred on sentence idx (two before, two after),
    shifted inside the page when idx is near its start or end."""
    half = size // 2
    start = max(0, min(idx - half, n_sentences - size))
    return start, min(n_sentences, start + size)


def triplet_id(phrase, sentence_id1, sentence_id2):
    """A stable id from the phrase and its two sentences."""
    return "t" + hashlib.sha1(f"{phrase}\x1f{sentence_id1}\x1f{sentence_id2}".encode("utf-8")).hexdigest()[:16]


def rejection_reason(pair, kinds, broken_pages):
    """Why a pair fails Step 6 ('' to keep): proper noun, newline in phrase, page with missing words."""
    if kinds == ["PROPN"]:
        return "proper-noun"
    if "\n" in pair["phrase"]:
        return "newline"
    if page_of(pair["sentence_id1"]) in broken_pages or page_of(pair["sentence_id2"]) in broken_pages:
        return "missing-words"
    return ""


def page_ref(page, sentences, sentence_id, span):
    """A Triplet page{…}: passage of 5 sentences centred on the phrase's sentence, and the phrase's span."""
    idx = int(sentence_id.split(":")[1])
    start, end = passage_window(idx, len(sentences))
    return {
        "page_id": page["page_id"],
        "title": page["title"],
        "url": page["url"],
        "passage": " ".join(sentences[start:end]),
        "sentence": sentences[idx],
        "char_span": list(span),
    }


def build_triplet(pair, wic_words, pages, page_sentences, spans):
    """The Triplet record of a selected pair (pages: {page_id: Page}, page_sentences: {page_id: [text]})."""
    sid1, sid2 = pair["sentence_id1"], pair["sentence_id2"]
    page1, page2 = page_of(sid1), page_of(sid2)
    return {
        "triplet_id": triplet_id(pair["phrase"], sid1, sid2),
        "phrase": pair["phrase"],
        "page1": page_ref(pages[page1], page_sentences[page1], sid1, spans[(pair["phrase"], sid1)]),
        "page2": page_ref(pages[page2], page_sentences[page2], sid2, spans[(pair["phrase"], sid2)]),
        "semantic_score": pair["semantic_score"],
        "domain_score": pair["domain_score"],
        "wic_words": wic_words,
    }


def candidates_csv(triplets):
    """The annotation-candidate CSV (one row per triplet, in rank order); Wikipedia text never a formula."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rank, t in enumerate(triplets, 1):
        writer.writerow([rank, t["triplet_id"], *(neutralise(text) for text in (
                         t["phrase"], " ".join(t["wic_words"]), t["page1"]["title"], t["page1"]["url"],
                         t["page1"]["passage"], t["page1"]["sentence"], t["page2"]["title"], t["page2"]["url"],
                         t["page2"]["passage"], t["page2"]["sentence"])), t["semantic_score"], t["domain_score"]])
    return out.getvalue()


class _SideInputSetDoFn(beam.DoFn):
    """A DoFn that looks elements up in a side-input list, turned into a set once per side input."""

    def __init__(self):
        self._source = self._set = None

    def as_set(self, side_input):
        if self._source is not side_input:
            self._source, self._set = side_input, {tuple(w) if isinstance(w, list) else w for w in side_input}
        return self._set


class _KeepWanted(_SideInputSetDoFn):
    """Keep elements whose key is in a side-input list."""

    def __init__(self, key):
        super().__init__()
        self.key = key

    def process(self, element, wanted):
        if self.key(element) in self.as_set(wanted):
            yield element


class _Step6Filter(_SideInputSetDoFn):
    def process(self, item, broken_pages):
        phrase, grouped = item
        if not grouped["contexts"]:
            return
        contexts = grouped["contexts"][0]
        broken = self.as_set(broken_pages)
        best = None
        for pair in grouped["pairs"]:
            Metrics.counter(STAGE, "pairs-in").inc()
            reason = rejection_reason(pair, contexts["kinds"], broken)
            if reason:
                Metrics.counter(STAGE, f"dropped-{reason}").inc()
                continue
            if pair["domain_score"] is None:
                Metrics.counter(STAGE, "dropped-no-categories").inc()
                continue
            if best is None or rank_key(pair) < rank_key(best):
                best = pair
        if best is not None:
            Metrics.counter(STAGE, "phrases-after-filters").inc()
            yield dict(best, wic_words=contexts["wic_words"])


class SelectTriplets(beam.PTransform):
    """Scored pairs → the top-N Triplet records (one per phrase, best-ranked pair)."""

    def __init__(self, phrase_contexts, pages, sentences, occurrences, top_n=19500):
        super().__init__()
        self.phrase_contexts = phrase_contexts
        self.pages = pages
        self.sentences = sentences
        self.occurrences = occurrences
        self.top_n = top_n

    def expand(self, pairs):
        broken_pages = (
            self.pages
            | "pages with missing words" >> beam.Filter(lambda p: p["missing_words"] > 0)
            | "broken page ids" >> beam.Map(lambda p: p["page_id"])
        )
        kinds = self.phrase_contexts | "kinds by phrase" >> beam.Map(
            lambda pc: (pc["phrase"], {"kinds": pc["kinds"], "wic_words": pc["wic_words"]}))
        best = (
            {"pairs": pairs | "key by phrase" >> beam.Map(lambda p: (p["phrase"], p)), "contexts": kinds}
            | "join phrase kinds" >> beam.CoGroupByKey()
            | "step 6 filters" >> beam.ParDo(_Step6Filter(), beam.pvalue.AsList(broken_pages))
        )
        top = best | "top N" >> beam.combiners.Top.Smallest(self.top_n, key=rank_key)
        chosen = top | "selected pairs" >> beam.FlatMap(lambda pairs_: pairs_)
        needed_pages = chosen | "needed pages" >> beam.FlatMap(
            lambda p: [page_of(p["sentence_id1"]), page_of(p["sentence_id2"])])
        needed_spans = chosen | "needed spans" >> beam.FlatMap(
            lambda p: [(p["phrase"], p["sentence_id1"]), (p["phrase"], p["sentence_id2"])])
        page_rows = (
            self.pages
            | "keep needed pages" >> beam.ParDo(_KeepWanted(lambda p: p["page_id"]), beam.pvalue.AsList(needed_pages))
            | "page by id" >> beam.Map(lambda p: (p["page_id"], {k: p[k] for k in ("page_id", "title", "url")}))
        )
        sentence_lists = (
            self.sentences
            | "keep needed sentences" >> beam.ParDo(_KeepWanted(lambda s: s["page_id"]), beam.pvalue.AsList(needed_pages))
            | "sentence by page" >> beam.Map(lambda s: (s["page_id"], (s["idx"], s["text"])))
            | "group page sentences" >> beam.GroupByKey()
            | "order sentences" >> beam.MapTuple(lambda page_id, rows: (page_id, [t for _, t in sorted(rows)]))
        )
        spans = (
            self.occurrences
            | "keep needed spans" >> beam.ParDo(
                _KeepWanted(lambda o: (o["phrase"], o["sentence_id"])), beam.pvalue.AsList(needed_spans))
            | "span by phrase and sentence" >> beam.Map(lambda o: ((o["phrase"], o["sentence_id"]), (o["start"], o["end"])))
            | "first span" >> beam.CombinePerKey(min)
        )
        return top | "build triplets" >> beam.FlatMap(
            lambda pairs_, pages, page_sentences, spans_: [
                build_triplet(p, p["wic_words"], pages, page_sentences, spans_) for p in pairs_],
            beam.pvalue.AsDict(page_rows), beam.pvalue.AsDict(sentence_lists), beam.pvalue.AsDict(spans),
        )
