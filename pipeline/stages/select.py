"""Stage `select`: Step-6 filters, rank by domain dissimilarity, top N triplets with 5-sentence passages."""
import hashlib
import math
from operator import itemgetter

import apache_beam as beam
from apache_beam.metrics import Metrics

from picforge import shuffle
from picforge.sentence_split import PASSAGE_SENTENCES, passage_window
from pipeline.stages.domains import page_of

STAGE = "select"
CSV_COLUMNS = ("rank", "triplet_id", "phrase", "wic_words", "page1_title", "page1_url", "passage1", "sentence1",
               "page2_title", "page2_url", "passage2", "sentence2", "semantic_score", "domain_score")


def choice_key(pair):
    """Which of a phrase's eligible pairs it keeps (PiC Step 5): the most dissimilar sentences, then ids."""
    return pair["semantic_score"], pair["sentence_id1"], pair["sentence_id2"]


def rank_key(pair):
    """Rank of the chosen pairs (PiC Step 5): most dissimilar page categories first, then most dissimilar
    sentences, then ids."""
    domain = pair["domain_score"]
    return (math.inf if domain is None else domain, pair["semantic_score"], pair["phrase"],
            pair["sentence_id1"], pair["sentence_id2"])


def triplet_rank(triplet):
    """Rank order of selected triplets (all have a domain score): the same order as rank_key."""
    return triplet["domain_score"], triplet["semantic_score"], triplet["phrase"], triplet["triplet_id"]


def clean_passage(idx, n_sentences, broken, size=PASSAGE_SENTENCES):
    """(reason, window) of sentence idx on a page of n_sentences whose broken sentences are `broken` (a set of
    idx): the window nearest the centred one that holds idx and no broken sentence; a broken sentence idx
    itself is 'broken-sentence', no such window 'broken-passage' (window None)."""
    if idx in broken:
        return "broken-sentence", None
    centred, _ = passage_window(idx, n_sentences, size)
    length = min(size, n_sentences)
    starts = range(max(0, idx - length + 1), min(idx, n_sentences - length) + 1)
    for start in sorted(starts, key=lambda s: (abs(s - centred), s)):
        if broken.isdisjoint(range(start, start + length)):
            return "", (start, start + length)
    return "broken-passage", None


def page_layout(page_id, sentences):
    """(page_id, (n_sentences, broken idx)) from the page's (idx, broken reason) pairs."""
    sentences = list(sentences)
    return page_id, (len(sentences), tuple(sorted(idx for idx, reason in sentences if reason)))


def with_passage(item, side):
    """The pairs of one page (page_id, {pairs, layout}) with their `side` passage window ([] when none) and why it
    has none ('')."""
    _, grouped = item
    n_sentences, broken = grouped["layout"][0] if grouped["layout"] else (0, ())
    for pair in grouped["pairs"]:
        idx = int(pair[f"sentence_id{side}"].split(":")[1])
        reason, window = clean_passage(idx, n_sentences, set(broken))
        yield dict(pair, **{f"passage{side}": list(window or ()), f"broken{side}": reason})


def wanted_value(item, reduce_rows):
    """(key, reduce_rows(rows)) of a joined (key, {"wanted": […], "rows": […]}) whose key is wanted and has rows."""
    key, grouped = item
    if grouped["wanted"] and grouped["rows"]:
        yield key, reduce_rows(grouped["rows"])


def texts_in_order(rows):
    """The texts of a page's (idx, text) rows in sentence order."""
    return [text for _, text in sorted(rows)]


def triplet_id(phrase, sentence_id1, sentence_id2):
    """A stable id from the phrase and its two sentences."""
    return "t" + hashlib.sha1(f"{phrase}\x1f{sentence_id1}\x1f{sentence_id2}".encode("utf-8")).hexdigest()[:16]


def rejection_reason(pair, kinds):
    """Why a pair fails Step 6 ('' to keep): proper noun, newline in phrase, a broken sentence or no passage
    without one on either page."""
    if kinds == ["PROPN"]:
        return "proper-noun"
    if "\n" in pair["phrase"]:
        return "newline"
    return pair["broken1"] or pair["broken2"]


def page_ref(page, sentences, sentence_id, span, window):
    """A Triplet page{…}: the passage window's sentences, the phrase's sentence and the phrase's span."""
    idx = int(sentence_id.split(":")[1])
    start, end = window
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
        "page1": page_ref(pages[page1], page_sentences[page1], sid1, spans[(pair["phrase"], sid1)], pair["passage1"]),
        "page2": page_ref(pages[page2], page_sentences[page2], sid2, spans[(pair["phrase"], sid2)], pair["passage2"]),
        "semantic_score": pair["semantic_score"],
        "domain_score": pair["domain_score"],
        "wic_words": wic_words,
    }


def candidates_csv(triplets):
    """The annotation-candidate CSV (one row per triplet, in rank order); Wikipedia text never a formula (the sheets
    module, with openpyxl, is imported only by the process that writes it)."""
    from picforge.sheets import csv_text

    rows = [dict(zip(CSV_COLUMNS, (
        rank, t["triplet_id"], t["phrase"], " ".join(t["wic_words"]), t["page1"]["title"], t["page1"]["url"],
        t["page1"]["passage"], t["page1"]["sentence"], t["page2"]["title"], t["page2"]["url"], t["page2"]["passage"],
        t["page2"]["sentence"], t["semantic_score"], t["domain_score"]))) for rank, t in enumerate(triplets, 1)]
    return csv_text(CSV_COLUMNS, rows, line_end="\n")


class _Step6Filter(beam.DoFn):
    def process(self, item):
        phrase, grouped = item
        if not grouped["contexts"]:
            return
        contexts = grouped["contexts"][0]
        best = None
        for pair in grouped["pairs"]:
            Metrics.counter(STAGE, "pairs-in").inc()
            reason = rejection_reason(pair, contexts["kinds"])
            if reason:
                Metrics.counter(STAGE, f"dropped-{reason}").inc()
                continue
            if pair["domain_score"] is None:
                Metrics.counter(STAGE, "dropped-no-categories").inc()
                continue
            Metrics.counter(STAGE, "pairs-after-filters").inc()
            if best is not None:
                Metrics.counter(STAGE, "dropped-less-dissimilar-pair").inc()
            if best is None or choice_key(pair) < choice_key(best):
                best = pair
        if best is not None:
            Metrics.counter(STAGE, "phrases-after-filters").inc()
            yield dict(best, wic_words=contexts["wic_words"])


class AttachPassages(beam.PTransform):
    """Pairs → pairs with each side's clean passage window, from the sentences' broken flags."""

    def __init__(self, sentences):
        super().__init__()
        self.sentences = sentences

    def expand(self, pairs):
        layouts = (
            self.sentences
            | "idx and broken by page" >> beam.Map(lambda s: (s["page_id"], (s["idx"], s["broken"])))
            | "group page layout" >> shuffle.GroupByKey()
            | "page layout" >> beam.MapTuple(page_layout)
        )
        for side in (1, 2):
            keyed = pairs | f"key by page {side}" >> beam.Map(lambda p, s: (page_of(p[f"sentence_id{s}"]), p), side)
            pairs = (
                {"pairs": keyed, "layout": layouts}
                | f"join page {side} layout" >> shuffle.CoGroupByKey()
                | f"passage {side}" >> beam.FlatMap(with_passage, side)
            )
        return pairs


def _built_triplets(pairs, pages, page_sentences, spans):
    """Triplets of the top pairs, counting the passages moved off the centre to avoid a broken sentence."""
    for pair in pairs:
        triplet = build_triplet(pair, pair["wic_words"], pages, page_sentences, spans)
        for side in (1, 2):
            sentence_id = pair[f"sentence_id{side}"]
            centred = passage_window(int(sentence_id.split(":")[1]), len(page_sentences[page_of(sentence_id)]))
            if tuple(pair[f"passage{side}"]) != centred:
                Metrics.counter(STAGE, "passages-moved-off-broken-sentences").inc()
        yield triplet


class SelectTriplets(beam.PTransform):
    """Scored pairs → the top-N Triplet records: each phrase's most dissimilar pair among those passing Step 6,
    ranked by the dissimilarity of their pages' categories."""

    def __init__(self, phrase_contexts, pages, sentences, occurrences, top_n=19500):
        super().__init__()
        self.phrase_contexts = phrase_contexts
        self.pages = pages
        self.sentences = sentences
        self.occurrences = occurrences
        self.top_n = top_n

    def expand(self, pairs):
        kinds = self.phrase_contexts | "kinds by phrase" >> beam.Map(
            lambda pc: (pc["phrase"], {"kinds": pc["kinds"], "wic_words": pc["wic_words"]}))
        with_passages = pairs | "clean passages" >> AttachPassages(self.sentences)
        best = (
            {"pairs": with_passages | "key by phrase" >> beam.Map(lambda p: (p["phrase"], p)), "contexts": kinds}
            | "join phrase kinds" >> shuffle.CoGroupByKey()
            | "step 6 filters" >> beam.ParDo(_Step6Filter())
        )
        top = best | "top N" >> beam.combiners.Top.Smallest(self.top_n, key=rank_key)
        chosen = top | "selected pairs" >> beam.FlatMap(lambda pairs_: pairs_)
        needed_pages = chosen | "needed pages" >> beam.FlatMap(
            lambda p: [(page_of(p["sentence_id1"]), None), (page_of(p["sentence_id2"]), None)])
        needed_spans = chosen | "needed spans" >> beam.FlatMap(
            lambda p: [((p["phrase"], p["sentence_id1"]), None), ((p["phrase"], p["sentence_id2"]), None)])
        # Joins, not side-input filters: a filter's main input waits whole in memory for its side input on Beam's
        # embedded runner, where these joins go through files (picforge.shuffle).
        page_rows = (
            {"wanted": needed_pages, "rows": self.pages | "page by id" >> beam.Map(
                lambda p: (p["page_id"], {k: p[k] for k in ("page_id", "title", "url")}))}
            | "join needed pages" >> shuffle.CoGroupByKey()
            | "needed page rows" >> beam.FlatMap(wanted_value, itemgetter(0))
        )
        sentence_lists = (
            {"wanted": needed_pages, "rows": self.sentences | "sentence by page" >> beam.Map(
                lambda s: (s["page_id"], (s["idx"], s["text"])))}
            | "join needed sentences" >> shuffle.CoGroupByKey()
            | "needed page sentences" >> beam.FlatMap(wanted_value, texts_in_order)
        )
        spans = (
            {"wanted": needed_spans, "rows": self.occurrences | "span by phrase and sentence" >> beam.Map(
                lambda o: ((o["phrase"], o["sentence_id"]), (o["start"], o["end"])))}
            | "join needed spans" >> shuffle.CoGroupByKey()
            | "first span" >> beam.FlatMap(wanted_value, min)
        )
        return top | "build triplets" >> beam.FlatMap(
            _built_triplets, beam.pvalue.AsDict(page_rows), beam.pvalue.AsDict(sentence_lists),
            beam.pvalue.AsDict(spans))
