"""Construct the PS, PR-pass, PR-page and PSD examples from annotated triplets (PiC Section 4), then split them."""
import hashlib
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from release import checks
from release.configs import CONFIGS, SPLITS
from release.inputs import curid_url

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


def ps_record(sentence, start, end, paraphrase, label):
    """A PS pair: the phrase at [start, end) of `sentence` versus `paraphrase` put in its place."""
    return {"phrase1": sentence[start:end], "phrase2": paraphrase, "sentence1": sentence,
            "sentence2": sentence[:start] + paraphrase + sentence[end:], "label": label, "idx": 0}


def span_record(example_id, title, context, query, answer, answer_start):
    """A PR/PSD record in the SQuAD-like layout of the PiC release."""
    return {"id": example_id, "title": title, "context": context, "query": query,
            "answers": {"text": [answer], "answer_start": [answer_start]}}


def window_starts(n_sentences, index, width):
    """First sentences of every `width`-sentence window of a page that contains sentence `index`."""
    return range(max(0, index - width + 1), min(index, n_sentences - width) + 1)


def random_window(anchor, size, rng):
    """A random window of `size` sentences (or the whole page if shorter) containing the anchor sentence."""
    width = min(size, len(anchor.sentences))
    start = rng.choice(window_starts(len(anchor.sentences), anchor.index, width))
    return start, start + width


def exclusive_window(anchor, size, rng):
    """The widest window (≤ size sentences) holding the anchor's phrase exactly once, or None if none does."""
    sentences = anchor.sentences
    for width in range(min(size, len(sentences)), 0, -1):
        starts = [lo for lo in window_starts(len(sentences), anchor.index, width)
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


def ps_examples(triplet):
    """PS positive (p, q1) and, when Q3 is No, negative (p, q2), both in the page-1 sentence."""
    anchor = triplet.anchors[0]
    sentence = anchor.sentences[anchor.index]
    pairs = [("positive", triplet.q1, 1, triplet.ps_q1)]
    if not triplet.same_meaning:
        pairs.append(("negative", triplet.q2, 0, triplet.ps_q2))
    for name, paraphrase, label, verified in pairs:
        key = f"{triplet.triplet_id}:{name}"
        if verified is False:
            yield Example(key, triplet.triplet_id, skip=f"{name} pair rejected by PS verification")
        else:
            yield Example(key, triplet.triplet_id, ps_record(sentence, anchor.start, anchor.end, paraphrase, label))


def pr_pass_examples(triplet, seed):
    """PR-pass: each paraphrase against a random 11-sentence passage of its page containing p."""
    for side, (query, anchor) in enumerate(zip((triplet.q1, triplet.q2), triplet.anchors), 1):
        key = f"{triplet.triplet_id}-{side}"
        start, end = random_window(anchor, PASSAGE_SENTENCES, random.Random(f"{seed}:PR-pass:{key}"))
        context, answer_start = join_window(anchor, start, end)
        yield Example(key, triplet.triplet_id,
                      span_record(key, curid_url(anchor.page_id), context, query, anchor.surface, answer_start))


def pr_page_examples(triplet):
    """PR-page: each paraphrase against its whole page, unless the page holds the paraphrase verbatim."""
    for side, (query, anchor) in enumerate(zip((triplet.q1, triplet.q2), triplet.anchors), 1):
        key = f"{triplet.triplet_id}-{side}"
        if query.strip() and checks.count_phrase(anchor.page_text, query.strip()):
            yield Example(key, triplet.triplet_id, skip="the page contains the query verbatim")
            continue
        try:
            offset = sentence_offsets(anchor.page_text, anchor.sentences)[anchor.index]
        except ValueError as err:
            yield Example(key, triplet.triplet_id, error=f"page {anchor.page_id}: {err}")
            continue
        yield Example(key, triplet.triplet_id, span_record(key, curid_url(anchor.page_id), anchor.page_text, query,
                                                           anchor.surface, offset + anchor.start))


def psd_examples(triplet, seed):
    """PSD (Q3 = No only): two paragraphs each holding p once; the query's sense picks the answer."""
    if triplet.same_meaning:
        return
    rng = random.Random(f"{seed}:PSD:{triplet.triplet_id}")
    first = rng.choice((1, 2))
    verified = {1: triplet.ps_q1, 2: triplet.ps_q2}
    sides = [side for side in (first, 3 - first) if verified[side] is not False]
    if not sides:
        yield Example(f"{triplet.triplet_id}-{first}", triplet.triplet_id,
                      skip="both paraphrases rejected by PS verification")
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
    title = " ".join(curid_url(anchor.page_id) for anchor in triplet.anchors)
    yield Example(key, triplet.triplet_id, span_record(key, title, f"{text1}\n\n{text2}",
                                                       (triplet.q1, triplet.q2)[side - 1],
                                                       triplet.anchors[side - 1].surface, answer_start))


def balance_classes(examples, seed):
    """Keep as many positives as negatives (or vice versa), sampled with `seed`; order by key."""
    by_label = defaultdict(list)
    for example in sorted(examples, key=lambda e: e.key):
        by_label[example.record["label"]].append(example)
    size = min((len(by_label[0]), len(by_label[1])))
    rng = random.Random(f"{seed}:PS:balance")
    kept = [e for label in (0, 1) for e in rng.sample(by_label[label], size)]
    return sorted(kept, key=lambda e: e.key)


def split_map(examples, ratios, seed):
    """Triplet → split: triplets in a seeded hash order, cut where the examples reach the ratios."""
    sizes = Counter(e.triplet_id for e in examples)
    order = sorted(sizes, key=lambda tid: hashlib.sha256(f"{seed}:{tid}".encode()).hexdigest())
    total = sum(sizes.values())
    bounds = [sum(ratios[:i + 1]) * total for i in range(len(SPLITS))]
    mapping, seen = {}, 0
    for tid in order:
        mapping[tid] = SPLITS[next((i for i, b in enumerate(bounds) if seen < b), len(SPLITS) - 1)]
        seen += sizes[tid]
    return mapping


def _sort_key(seed):
    return lambda e: (hashlib.sha256(f"{seed}:{e.triplet_id}".encode()).hexdigest(), e.key)


def build_release(triplets, seed):
    """Build every config from annotated triplets: construct, check, balance (PS), split, number (PS idx)."""
    proposed = {
        "PS": [e for t in triplets for e in ps_examples(t)],
        "PR-pass": [e for t in triplets for e in pr_pass_examples(t, seed)],
        "PR-page": [e for t in triplets for e in pr_page_examples(t)],
        "PSD": [e for t in triplets for e in psd_examples(t, seed)],
    }
    release = Release()
    mappings = {}
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
            kept = balance_classes(kept, seed)
        mapping = split_map(kept, CONFIGS[config].ratios, seed)
        if config == "PR-page":
            mapping.update(mappings["PR-pass"])
        mappings[config] = mapping
        release.splits[config] = {split: [] for split in SPLITS}
        for example in sorted(kept, key=_sort_key(seed)):
            release.splits[config][mapping[example.triplet_id]].append(example.record)
    for records in release.splits["PS"].values():
        for idx, record in enumerate(records):
            record["idx"] = idx
    used = {tid for mapping in mappings.values() for tid in mapping}
    release.scores = [(t.semantic_score, t.domain_score) for t in triplets if t.triplet_id in used]
    return release
