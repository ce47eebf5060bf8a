"""Construct the PS, PR-pass, PR-page and PSD examples from annotated triplets (PiC Section 4), then split them."""
import hashlib
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from release import checks
from picforge.release_writer import SPLITS
from release.configs import SPLIT_RATIOS

PASSAGE_SENTENCES = 11


@dataclass(frozen=True)
class Example:
    """A proposed record of one config, or why there is none: `skip` (a construction rule) or `error`."""

    key: str
    triplet_id: str
    record: dict = None
    skip: str = None
    error: str = None


@dataclass
class Release:
    """The built release: records per config and split, and what was left out and why."""

    splits: dict = field(default_factory=dict)
    rejected: list = field(default_factory=list)
    skipped: dict = field(default_factory=dict)
    scores: list = field(default_factory=list)
    provenance: tuple = ((), ())  # ([(what, value)], [departure from PiC]) for the card
    sources: dict = field(default_factory=dict)  # {page_id: inputs.Source} of every page whose text is released
    facts: tuple = ((), {}, "")  # (inputs, RAI fields, runner) of the run for croissant.json (run_description)
    left_out: dict = field(default_factory=dict)  # {reason: [item id]}: annotated items not released (run_left_out)
    agreement: tuple = ()  # lines on the verifiers' agreement for the card (provenance.run_agreement)
    rehearsal: str = ""  # the card's first line when the ledger holds rehearsed answers (provenance.rehearsal_note)


def ps_record(sentence, start, end, paraphrase, label):
    """A PS pair: the phrase at [start, end) of `sentence` versus `paraphrase` put in its place."""
    return {"phrase1": sentence[start:end], "phrase2": paraphrase, "sentence1": sentence,
            "sentence2": sentence[:start] + paraphrase + sentence[end:], "label": label, "idx": 0}


# How a PSD record's page fields join its two pages (MediaWiki titles cannot hold "|").
PAGES_JOINED = " | "


def span_record(example_id, anchors, context, query, answer, answer_start):
    """A PR/PSD record in the SQuAD-like layout of the PiC release, naming the page revisions of `anchors` (title,
    url, revision_id; PSD's two pages joined by ` | `)."""
    sources = [anchor.source for anchor in anchors]
    return {"id": example_id, "title": PAGES_JOINED.join(s.title for s in sources), "context": context,
            "query": query, "answers": {"text": [answer], "answer_start": [answer_start]},
            "url": PAGES_JOINED.join(s.url for s in sources),
            "revision_id": PAGES_JOINED.join(str(s.revision_id) for s in sources)}


def window_starts(n_sentences, index, width):
    """First sentences of every `width`-sentence window of a page that contains sentence `index`."""
    return range(max(0, index - width + 1), min(index, n_sentences - width) + 1)


def clean_window_starts(anchor, width):
    """First sentences of the `width`-sentence windows holding the anchor sentence and no broken sentence."""
    return [lo for lo in window_starts(len(anchor.sentences), anchor.index, width)
            if anchor.broken.isdisjoint(range(lo, lo + width))]


def random_window(anchor, size, rng):
    """A random window of `size` sentences (or the whole page if shorter) containing the anchor sentence and no
    sentence flagged broken; narrower when no window of that size avoids one."""
    for width in range(min(size, len(anchor.sentences)), 0, -1):
        starts = clean_window_starts(anchor, width)
        if starts:
            break
    start = rng.choice(starts)
    return start, start + width


def exclusive_window(anchor, size, rng):
    """The widest window (≤ size sentences) holding the anchor's phrase exactly once, or None if none does."""
    sentences = anchor.sentences
    for width in range(min(size, len(sentences)), 0, -1):
        starts = [lo for lo in clean_window_starts(anchor, width)
                  if checks.count_phrase(" ".join(sentences[lo:lo + width]), anchor.surface) == 1]
        if starts:
            start = rng.choice(starts)
            return start, start + width
    return None


def join_window(anchor, start, end):
    """The passage of sentences [start, end) joined by spaces, and where the anchor's phrase begins in it."""
    before = anchor.sentences[start:anchor.index]
    return " ".join(anchor.sentences[start:end]), sum(len(s) + 1 for s in before) + anchor.start


def sentence_offsets(text, sentences):
    """Where each sentence starts in the page text, searching in order; ValueError names one not found."""
    offsets, cursor = [], 0
    for idx, sentence in enumerate(sentences):
        at = text.find(sentence, cursor)
        if at < 0:
            raise ValueError(f"sentence {idx} ({sentence[:40]!r}…) is not in the page text")
        offsets.append(at)
        cursor = at + len(sentence)
    return offsets


def page_without_broken(anchor):
    """(the page text without its sentences flagged broken, where the anchor sentence starts in it); ValueError
    when a sentence is not found in the page text."""
    if not anchor.broken:
        return anchor.page_text, sentence_offsets(anchor.page_text, anchor.sentences)[anchor.index]
    offsets = sentence_offsets(anchor.page_text, anchor.sentences)
    pieces, kept_from = [], 0
    for idx in sorted(anchor.broken):
        pieces.append(anchor.page_text[kept_from:offsets[idx]])
        kept_from = offsets[idx] + len(anchor.sentences[idx])
    pieces.append(anchor.page_text[kept_from:])
    paragraphs = (re.sub(r" {2,}", " ", p).strip() for p in "".join(pieces).split("\n\n"))
    text = "\n\n".join(p for p in paragraphs if p)
    kept = [s for i, s in enumerate(anchor.sentences[:anchor.index + 1]) if i not in anchor.broken]
    return text, sentence_offsets(text, kept)[-1]


def ps_examples(triplet):
    """PS pairs in the page-1 sentence that the PS verification endorsed, with the experts' second phrase: positive
    (p, q1) where q1 is kept, negative (p, q2) where q2 and a Q3 = No label are kept."""
    anchor = triplet.anchors[0]
    sentence = anchor.sentences[anchor.index]
    pairs = [("positive", triplet.q1 is not None, triplet.ps_q1, triplet.ps_q1_phrase, 1)]
    if triplet.same_meaning is False:
        pairs.append(("negative", triplet.q2 is not None, triplet.ps_q2, triplet.ps_q2_phrase, 0))
    for name, kept, verified, phrase2, label in pairs:
        key = f"{triplet.triplet_id}:{name}"
        if not kept:
            yield Example(key, triplet.triplet_id, skip=f"{name} pair: its paraphrase was not kept by the rounds")
        elif verified is None:
            yield Example(key, triplet.triplet_id, skip=f"{name} pair not verified by the PS experts")
        elif verified is False:
            yield Example(key, triplet.triplet_id, skip=f"{name} pair rejected by PS verification")
        else:
            yield Example(key, triplet.triplet_id, ps_record(sentence, anchor.start, anchor.end, phrase2, label))


def kept_sides(triplet):
    """[(side number, paraphrase, anchor)] for each kept paraphrase: q1 in page 1, q2 in page 2."""
    return [(side, query, anchor) for side, (query, anchor) in enumerate(zip((triplet.q1, triplet.q2),
                                                                            triplet.anchors), 1)
            if query is not None]


def pr_pass_examples(triplet, seed):
    """PR-pass: each kept paraphrase against a random 11-sentence passage of its page containing p."""
    for side, query, anchor in kept_sides(triplet):
        key = f"{triplet.triplet_id}-{side}"
        start, end = random_window(anchor, PASSAGE_SENTENCES, random.Random(f"{seed}:PR-pass:{key}"))
        context, answer_start = join_window(anchor, start, end)
        yield Example(key, triplet.triplet_id,
                      span_record(key, [anchor], context, query, anchor.surface, answer_start))


def pr_page_examples(triplet):
    """PR-page: each kept paraphrase against its whole page less the sentences flagged broken, unless the page
    holds the paraphrase verbatim."""
    for side, query, anchor in kept_sides(triplet):
        key = f"{triplet.triplet_id}-{side}"
        try:
            context, offset = page_without_broken(anchor)
        except ValueError as err:
            yield Example(key, triplet.triplet_id, error=f"page {anchor.page_id}: {err}")
            continue
        if query.strip() and checks.count_phrase(context, query.strip()):
            yield Example(key, triplet.triplet_id, skip="the page contains the query verbatim")
            continue
        yield Example(key, triplet.triplet_id, span_record(key, [anchor], context, query,
                                                           anchor.surface, offset + anchor.start))


def psd_examples(triplet, seed):
    """PSD (kept Q3 = No only): two paragraphs each holding p once; a kept paraphrase whose PS pair was not
    rejected is the query (seeded choice of side), and the occurrence of its sense is the answer."""
    if triplet.same_meaning is not False:
        return
    rng = random.Random(f"{seed}:PSD:{triplet.triplet_id}")
    first = rng.choice((1, 2))
    verified = {1: triplet.ps_q1, 2: triplet.ps_q2}
    queries = {side: query for side, query, _ in kept_sides(triplet) if verified[side] is not False}
    sides = [side for side in (first, 3 - first) if side in queries]
    if not sides:
        yield Example(f"{triplet.triplet_id}-{first}", triplet.triplet_id,
                      skip="no kept paraphrase whose PS pair was not rejected")
        return
    side = sides[0]
    key = f"{triplet.triplet_id}-{side}"
    paragraphs = []
    for anchor in triplet.anchors:
        window = exclusive_window(anchor, PASSAGE_SENTENCES, rng)
        if window is None:
            yield Example(key, triplet.triplet_id, error=f"page {anchor.page_id}: the phrase occurs more than "
                                                         "once in its own sentence, so no paragraph holds it once")
            return
        paragraphs.append(join_window(anchor, *window))
    (text1, start1), (text2, start2) = paragraphs
    answer_start = start1 if side == 1 else len(text1) + 2 + start2
    yield Example(key, triplet.triplet_id, span_record(key, triplet.anchors, f"{text1}\n\n{text2}", queries[side],
                                                       triplet.anchors[side - 1].surface, answer_start))


def balance_classes(examples, seed):
    """(kept, sampled out): as many positives as negatives (the larger class sampled with `seed`), ordered by key."""
    by_label = defaultdict(list)
    for example in sorted(examples, key=lambda e: e.key):
        by_label[example.record["label"]].append(example)
    size = min((len(by_label[0]), len(by_label[1])))
    rng = random.Random(f"{seed}:PS:balance")
    kept = sorted((e for label in (0, 1) for e in rng.sample(by_label[label], size)), key=lambda e: e.key)
    kept_keys = {e.key for e in kept}
    return kept, [e for e in sorted(examples, key=lambda e: e.key) if e.key not in kept_keys]


def triplet_splits(triplet_ids, seed):
    """Triplet → split, drawn once for every config (so no triplet crosses splits): triplets in a seeded hash
    order cut 70/10/20; with at least three triplets every split gets one."""
    order = sorted(triplet_ids, key=lambda tid: hashlib.sha256(f"{seed}:{tid}".encode()).hexdigest())
    sizes = [round(ratio * len(order)) for ratio in SPLIT_RATIOS[1:]]
    if len(order) >= len(SPLITS):
        sizes = [max(1, size) for size in sizes]
    bounds = [len(order) - sum(sizes), len(order) - sizes[1], len(order)]
    return {tid: SPLITS[next(i for i, bound in enumerate(bounds) if n < bound)] for n, tid in enumerate(order)}


def stratified_splits(triplet_ids, strata, seed):
    """Triplet → split, cut as triplet_splits within each stratum (`strata`: triplet → its group, e.g. "PS" for the
    triplets with PS pairs; others form one group), so PS's few pairs get their own 70/10/20 instead of following
    the far more numerous PR triplets."""
    groups = defaultdict(list)
    for tid in triplet_ids:
        groups[strata.get(tid, ())].append(tid)
    return {tid: split for group in groups.values() for tid, split in triplet_splits(group, seed).items()}


def _sort_key(seed):
    return lambda e: (hashlib.sha256(f"{seed}:{e.triplet_id}".encode()).hexdigest(), e.key)


def build_release(triplets, seed):
    """Build every config from annotated triplets: construct, check, balance (PS), split per triplet (stratified by
    the PS labels each brings), number (PS)."""
    proposed = {
        "PS": [e for t in triplets for e in ps_examples(t)],
        "PR-pass": [e for t in triplets for e in pr_pass_examples(t, seed)],
        "PR-page": [e for t in triplets for e in pr_page_examples(t)],
        "PSD": [e for t in triplets for e in psd_examples(t, seed)],
    }
    release = Release()
    kept_by_config = {}
    for config, examples in proposed.items():
        kept = []
        release.skipped[config] = dict(Counter(e.skip for e in examples if e.skip))
        for example in (e for e in examples if not e.skip):
            reason = example.error or "; ".join(checks.problems(config, example.record))
            if reason:
                release.rejected.append((config, example.key, reason))
            else:
                kept.append(example)
        if config == "PS":
            kept, sampled_out = balance_classes(kept, seed)
            if sampled_out:
                release.skipped[config]["verified pair sampled out to balance the classes"] = len(sampled_out)
        kept_by_config[config] = kept
    used = {e.triplet_id for kept in kept_by_config.values() for e in kept}
    mapping = stratified_splits(used, {e.triplet_id: "PS" for e in kept_by_config["PS"]}, seed)
    for config, kept in kept_by_config.items():
        release.splits[config] = {split: [] for split in SPLITS}
        for example in sorted(kept, key=_sort_key(seed)):
            release.splits[config][mapping[example.triplet_id]].append(example.record)
    for records in release.splits["PS"].values():
        for idx, record in enumerate(records):
            record["idx"] = idx
    release.scores = [(t.semantic_score, t.domain_score) for t in triplets if t.triplet_id in used]
    release.sources = released_sources(triplets, kept_by_config)
    return release


def released_sources(triplets, kept_by_config):
    """{page_id: Source} of the pages whose text the kept examples hold: PS the page-1 sentence, PR the query's
    side, PSD both pages."""
    by_id = {t.triplet_id: t for t in triplets}
    sources = {}
    for config, kept in kept_by_config.items():
        for example in kept:
            anchors = by_id[example.triplet_id].anchors
            used = anchors[:1] if config == "PS" else anchors if config == "PSD" else \
                anchors[int(example.key.rsplit("-", 1)[1]) - 1:][:1]
            sources.update((a.page_id, a.source) for a in used if a.source is not None)
    return dict(sorted(sources.items()))
