"""Triplet records for tests, built the way stage `select` builds them (select.page_ref and its passage window)."""
from pipeline.stages.select import page_ref, passage_window


def triplet_side(page_id, sentences, phrase, title=None, url=None):
    """A Triplet page side: the first of the page's `sentences` holding `phrase`, its span and its passage."""
    index = next(i for i, sentence in enumerate(sentences) if phrase in sentence.lower())
    start = sentences[index].lower().index(phrase)
    page = {"page_id": page_id, "title": title or f"Page {page_id}",
            "url": url or f"https://en.wikipedia.org/wiki?curid={page_id}"}
    return page_ref(page, sentences, f"{page_id}:{index}", (start, start + len(phrase)),
                    passage_window(index, len(sentences)))


def triplet(triplet_id, phrase, page1, page2, semantic_score=-0.1, domain_score=0.05, wic_words=None):
    """A Triplet record (schema triplet) from its two sides."""
    return {"triplet_id": triplet_id, "phrase": phrase, "page1": page1, "page2": page2,
            "semantic_score": semantic_score, "domain_score": domain_score,
            "wic_words": phrase.split()[-1:] if wic_words is None else wic_words}
