"""Stage `phrases`: spaCy noun chunks (NOUN or PROPN by their root), trimmed of stopwords by whitespace word as PiC
does, as occurrences.

Only sentences that can hold a pair's phrase are parsed: inside the `pairs` word window, and containing a word
of the WiC list (`group` keeps only phrases with one), unless both cuts are off. The final triplets stay the same
except where a phrase's out-of-window sentences would change its `kinds` (PROPN-only filter) or where it has over
1,000 contexts (group's seeded cap); see docs/mining.md, "Which sentences spaCy parses"."""
import logging
import re

import apache_beam as beam
from apache_beam.metrics import Metrics

from picforge.embedded_runner import Spread
from picforge.progress import Progress
from picforge.resources import stopwords
from picforge.spacy_models import shared_pipeline, use_one_thread_blas

STAGE = "phrases"
MAX_SENTENCE_CHARS = 20_000  # far above any real sentence; the longest in the 103-page sample has 951
# noun chunks need POS and dependencies; these components add neither (a morphologizer, which sets POS, stays)
PIPES_NOT_NEEDED = ("lemmatizer", "trainable_lemmatizer", "ner", "entity_ruler", "entity_linker", "senter",
                    "textcat", "textcat_multilabel", "spancat", "span_finder")
log = logging.getLogger(__name__)


def _prepare_pipeline(nlp):
    """PosRules in place of the attribute_ruler; every model on one-thread BLAS."""
    from picforge.pos_rules import replace_attribute_ruler

    replace_attribute_ruler(nlp)
    use_one_thread_blas(nlp)


def load_spacy(model_name=None):
    """The worker's spaCy pipeline with only the components noun chunks need; the attribute_ruler's POS rules
    compiled; matrix products in numpy's BLAS on one thread."""
    return shared_pipeline(model_name, PIPES_NOT_NEEDED, _prepare_pipeline)


WHITESPACE_WORD = re.compile(r"\S+")
EDGE_SYMBOLS = re.compile(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$")


def _is_trimmable(word):
    core = EDGE_SYMBOLS.sub("", word.lower())
    return not core or core in stopwords()


def trim_words(text):
    """(start, end) of `text` without the leading/trailing whitespace words that are, edge symbols off, a stopword
    or nothing (PiC's trim); None when no word is left."""
    words = [match.span() for match in WHITESPACE_WORD.finditer(text)]
    first, last = 0, len(words)
    while first < last and _is_trimmable(text[slice(*words[first])]):
        first += 1
    while last > first and _is_trimmable(text[slice(*words[last - 1])]):
        last -= 1
    return (words[first][0], words[last - 1][1]) if first < last else None


CORE = re.compile(r"[a-z0-9](?:.*[a-z0-9])?", re.DOTALL)


def normalise_phrase(text):
    """(phrase, core_start, core_end): lower-cased core of `text` without outer symbols; None if unigram, non-ASCII
    or lower-casing changes its length ("\u0130")."""
    lowered = text.lower()
    match = CORE.search(lowered) if len(lowered) == len(text) else None
    if match is None:
        return None
    phrase = re.sub(r"\s+", " ", match.group())
    if not phrase.isascii() or len(phrase.split()) < 2:
        return None
    return phrase, match.start(), match.end()


def chunk_phrase(text, start, end):
    """(phrase, start, end) in `text` of the chunk text[start:end] trimmed and normalised; None if none is left."""
    trimmed = trim_words(text[start:end])
    if trimmed is None:
        return None
    start, end = start + trimmed[0], start + trimmed[1]
    normalised = normalise_phrase(text[start:end])
    if normalised is None:
        return None
    phrase, core_start, core_end = normalised
    return phrase, start + core_start, start + core_end


def extract_phrases(doc, text=None):
    """(phrase, start, end, kind) for each noun chunk; kind is its root's POS (PROPN or NOUN), as PiC's
    merge_noun_chunks gave the merged token. `text`, when given, is the text the doc was made from (Doc.text
    rebuilds it token by token)."""
    text = doc.text if text is None else text
    found = []
    for chunk in doc.noun_chunks:
        occurrence = chunk_phrase(text, chunk.start_char, chunk.end_char)
        if occurrence:
            found.append((*occurrence, "PROPN" if chunk.root.pos_ == "PROPN" else "NOUN"))
    return sorted(found, key=lambda occ: (occ[1], occ[2]))


WORD_RUN = re.compile(r"[a-z0-9]+")


def phrase_words(text, token_starts):
    """Every word (as group.WORD finds them) that a phrase cut from `text` at spaCy token boundaries can hold:
    the lower-cased alphanumeric runs, and the two pieces of a run that a token start splits; None when
    lower-casing changes the text's length (then offsets do not line up and the sentence must be parsed)."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return None
    starts = set(token_starts)
    words = set()
    for run in WORD_RUN.finditer(lowered):
        words.add(run.group())
        for cut in range(run.start() + 1, run.end()):
            if cut in starts:
                words.update((lowered[run.start():cut], lowered[cut:run.end()]))
    return words


def holds_wic_run(text, wic_words):
    """Whether `text` surely may hold a WiC phrase without looking at its tokens: one of its lower-cased
    alphanumeric runs is a WiC word, or lower-casing changes its length (see phrase_words)."""
    lowered = text.lower()
    return len(lowered) != len(text) or not wic_words.isdisjoint(WORD_RUN.findall(lowered))


def may_hold_wic_phrase(doc, wic_words, text=None):
    """Whether a tokenised (not yet parsed) sentence can yield a phrase containing a WiC word; `text`, when given,
    is the doc's text (its tokens are then read only when no whole run is a WiC word)."""
    text = doc.text if text is None else text
    if holds_wic_run(text, wic_words):
        return True
    return not phrase_words(text, [token.idx for token in doc]).isdisjoint(wic_words)


def in_pair_window(n_words, word_window):
    """Whether a sentence of n_words can be a pair's context: word_window is (min, max) words, None for any."""
    return word_window is None or word_window[0] <= n_words <= word_window[1]


def parseable(sentence):
    """False for a sentence too long to parse (a page's 3 MB token, say): spaCy needs ~1 GB per 100,000 chars."""
    return len(sentence["text"]) <= MAX_SENTENCE_CHARS


class _ExtractPhrases(beam.DoFn):
    """Runs spaCy over batches of sentences (nlp.pipe) and emits Occurrence records."""

    def __init__(self, model_name, batch_size, wic_words=None):
        self.model_name = model_name
        self.batch_size = batch_size
        self.wic_words = wic_words
        self.occurrences = Metrics.counter(STAGE, "occurrences")
        self.sentences = Metrics.counter(STAGE, "sentences-parsed")
        self.progress = Progress(STAGE, "sentences parsed")
        self.without_wic_word = Metrics.counter(STAGE, "sentences-without-wic-word")
        self.too_long = Metrics.counter(STAGE, "skipped-too-long")

    def setup(self):
        self.nlp = load_spacy(self.model_name)

    def tokenised(self, batch):
        """(tokenised doc, sentence) of the batch's sentences that can hold a WiC phrase (all without a list)."""
        for sentence in batch:
            if not parseable(sentence):
                self.too_long.inc()
                log.warning("sentence %s skipped: %d characters, more than %d", sentence["sentence_id"],
                            len(sentence["text"]), MAX_SENTENCE_CHARS)
                continue
            doc = self.nlp.make_doc(sentence["text"])
            if self.wic_words is None or may_hold_wic_phrase(doc, self.wic_words, sentence["text"]):
                yield doc, sentence
            else:
                self.without_wic_word.inc()

    def process(self, batch):
        for doc, sentence in self.nlp.pipe(self.tokenised(batch), as_tuples=True, batch_size=self.batch_size):
            self.sentences.inc()
            self.progress.tick()
            for phrase, start, end, kind in extract_phrases(doc, sentence["text"]):
                self.occurrences.inc()
                yield {"phrase": phrase, "sentence_id": sentence["sentence_id"], "start": start, "end": end, "kind": kind}


class _KeepInPairWindow(beam.DoFn):
    """Pass sentences that can be a pair's context; count the others as `sentences-outside-window`."""

    def __init__(self, word_window):
        self.word_window = word_window
        self.outside = Metrics.counter(STAGE, "sentences-outside-window")

    def process(self, sentence):
        if in_pair_window(sentence["n_words"], self.word_window):
            yield sentence
        else:
            self.outside.inc()


class ExtractPhrases(beam.PTransform):
    """Sentence records → Occurrence records (spaCy in batches, only the components needed, only on sentences
    in `word_window` ((min, max) words) that can hold a word of `wic_words`; None turns a cut off)."""

    def __init__(self, spacy_model=None, spacy_batch_size=256, word_window=None, wic_words=None):
        super().__init__()
        self.spacy_model = spacy_model
        self.batch_size = spacy_batch_size
        self.word_window = word_window
        self.wic_words = None if wic_words is None else frozenset(wic_words)

    def expand(self, sentences):
        return (
            sentences
            | "keep pair window" >> beam.ParDo(_KeepInPairWindow(self.word_window))
            | "batch sentences" >> beam.BatchElements(min_batch_size=self.batch_size, max_batch_size=self.batch_size * 4)
            | "spread batches" >> Spread()  # whole batches cross between workers: a runner's cost is per element
            | "spaCy noun chunks" >> beam.ParDo(_ExtractPhrases(self.spacy_model, self.batch_size, self.wic_words))
        )
