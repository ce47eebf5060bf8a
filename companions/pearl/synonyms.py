"""Synonym sources for token-level augmentation: WordNet read offline, and nearest neighbours in word vectors."""
import functools
import os
import re
import threading
import warnings
from importlib import resources


from picforge.errors import InputError

DEBIAN_WORDNET = "/usr/share/wordnet"  # Debian's wordnet-base: the WordNet 3.0 database files
WORDNET_FILES = ("data.noun", "index.noun", "data.verb", "index.verb", "data.adj", "index.adj")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _shipped_lexnames():
    return resources.files(__package__).joinpath("data", "lexnames")


def sense_counts(path):
    """{sense key: SemCor count} of a WordNet `cntlist.rev` file ("key sense-number count" per line)."""
    with open(path, encoding="utf-8") as lines:
        return {key: int(count) for key, _, count in (line.split(" ") for line in lines if line.strip())}


_readers = threading.local()  # this thread's WordNet reader per folder: NLTK's reader seeks shared file handles


def load_wordnet(root=DEBIAN_WORDNET):
    """This thread's reader of the WordNet database folder `root` (`read_wordnet`), read on first use: the build's
    option check and its workers share one (reading the index takes seconds)."""
    readers = _readers.__dict__.setdefault("by_root", {})
    key = os.path.realpath(root)
    if key not in readers:
        readers[key] = read_wordnet(root)
    return readers[key]


def read_wordnet(root=DEBIAN_WORDNET):
    """NLTK's WordNetCorpusReader over a WordNet database folder (never a download).

    Debian's wordnet-base omits `lexnames` (the 45 lexicographer file names), which NLTK reads first; a copy
    ships with picforge and is used when the folder has none. The multilingual (OMW) functions are not used.
    SemCor counts are read from `cntlist.rev` into memory on first use (NLTK searches the file on disk for each
    lemma: most of the sense look-ups' time).
    """
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    missing = [name for name in WORDNET_FILES if not os.path.exists(os.path.join(root, name))]
    if missing:
        raise InputError(f"{root}: not a WordNet database folder (missing {', '.join(missing)}); install Debian's "
                         "wordnet-base (`make system-deps`) or pass --wordnet DIR")
    root = os.path.realpath(root)
    if root not in nltk.data.path:
        nltk.data.path.append(root)  # NLTK reads corpus files only under its data path

    class DebianWordNetReader(WordNetCorpusReader):
        def open(self, file):
            if file == "lexnames" and not os.path.exists(os.path.join(root, file)):
                return _shipped_lexnames().open(encoding="utf-8")
            return super().open(file)

        @functools.cached_property
        def sense_counts(self):
            path = os.path.join(root, "cntlist.rev")
            return sense_counts(path) if os.path.exists(path) else None

        def lemma_count(self, lemma):
            if lemma._lang != "eng" or self.sense_counts is None:
                return super().lemma_count(lemma)
            return self.sense_counts.get(lemma._key, 0)

        def map_wn(self, version="wordnet"):
            # the mapping from WordNet 3.0 (read from nltk_data) is the identity for a 3.0 database
            return None if self.get_version() == "3.0" else super().map_wn(version)

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The multilingual functions", UserWarning)
        return DebianWordNetReader(root, None)


# spaCy (Penn) tags of the base forms a synonym can replace as is, and their WordNet part of speech; proper nouns,
# plurals, tenses and comparatives would need the synonym inflected, so they get none
WORDNET_POS = {"NN": "n", "VB": "v", "VBP": "v", "JJ": "a", "RB": "r"}
# adjectives that measure their head rather than describe it: another one reads the head differently ("little
# evidence" is not "small evidence", "a small number" not "a little number", "the entire war" not "total war")
MEASURE_ADJECTIVES = frozenset({"little", "small", "large", "big", "great", "full", "entire", "whole", "total",
                                "single", "individual", "several", "respective", "many", "much", "few"})


def keeps_reading(word, replacement):
    """False for a replacement that changes how the phrase reads: an -ing form in place of a word that is not one
    ("award" → "awarding", "death" → "dying"), a word built on the replaced one or the reverse ("war" → "warfare",
    "night" → "nighttime"), or a measuring adjective replaced or brought in (MEASURE_ADJECTIVES)."""
    word, replacement = word.lower(), replacement.lower()
    if replacement.endswith("ing") and not word.endswith("ing"):
        return False
    if replacement.startswith(word) or word.startswith(replacement):
        return False
    return word not in MEASURE_ADJECTIVES and replacement not in MEASURE_ADJECTIVES


def wordnet_senses(wordnet, word, tag):
    """[(gloss, share, replacements)] for each WordNet sense of `word` in the part of speech of its `tag`, most
    frequent first: the gloss names the sense's lemmas and its definition; share is the word's SemCor count in that
    sense over all its senses (add-one smoothed); the replacements are the sense's other single-word lemmas attested
    in that sense (a SemCor count of at least 1, so "tongue" never becomes "glossa") whose own most frequent sense
    it is (a reader takes "figure" as a shape, not as "number"), an -ly adverb's only -ly adverbs ("newly" not
    "fresh"), that keep the phrase's reading (`keeps_reading`), most frequent first."""
    pos = WORDNET_POS.get(tag)
    if pos is None or not WORD.fullmatch(word):
        return []
    lower = word.lower()
    senses = []
    for synset in wordnet.synsets(lower, pos):
        lemmas = sorted(synset.lemmas(), key=lambda lemma: -lemma.count())
        own = sum(lemma.count() for lemma in lemmas if lemma.name().lower() == lower)
        names = (lemma.name().lower() for lemma in lemmas if lemma.count() >= 1)
        replacements = [name for name in dict.fromkeys(names) if name != lower and WORD.fullmatch(name)
                        and wordnet.synsets(name, pos)[0] == synset and name.endswith("ly") >= lower.endswith("ly")
                        and keeps_reading(lower, name)]
        gloss = f"{', '.join(lemma.name().replace('_', ' ') for lemma in lemmas)}: {synset.definition()}"
        senses.append((gloss, own + 1, replacements))
    total = sum(count for _, count, _ in senses)
    return [(gloss, count / total, replacements) for gloss, count, replacements in senses]


ROUNDING = 4  # decimals of the cosines compared: an embedding's last bits depend on the batch it was computed in
SENSE_PRIOR = 0.2  # weight of a sense's SemCor share beside its gloss–phrase cosine


class SensesInContext:
    """WordNet synonyms of a word in the sense its phrase gives it: the sense of highest gloss–phrase cosine plus
    `prior` times its SemCor share (short phrases say little, so a frequent sense needs less), and of its lemmas
    only those whose replaced phrase keeps a cosine of at least `min_cosine` with the phrase. `embed(texts)`
    returns unit vectors; glosses are embedded once per worker, and only for words of more than one sense."""

    def __init__(self, wordnet, embed, min_cosine=0.8, prior=SENSE_PRIOR):
        self.wordnet, self.embed, self.min_cosine, self.prior = wordnet, embed, min_cosine, prior
        self.senses = functools.lru_cache(maxsize=200_000)(lambda word, tag: wordnet_senses(wordnet, word, tag))
        self.gloss_vectors = {}

    def _embed_glosses(self, glosses):
        missing = list(dict.fromkeys(gloss for gloss in glosses if gloss not in self.gloss_vectors))
        if missing:
            self.gloss_vectors.update(zip(missing, self.embed(missing)))

    def _sense_in(self, context, found):
        """Index of the sense of `found` whose gloss fits the `context` vector best (a lone sense without its gloss)."""
        if len(found) == 1:
            return 0
        scores = [round(float(self.gloss_vectors[gloss] @ context) + self.prior * share, ROUNDING)
                  for gloss, share, _ in found]
        return scores.index(max(scores))

    def in_context(self, asked):
        """{(phrase, word, tag): replacements that keep the phrase's meaning} for each asked (phrase, word, tag),
        `word` a word of `phrase`. The replaced phrases of every sense are scored first (short texts), so glosses
        are embedded only for the words where a replacement keeps the cosine: elsewhere no sense gives one."""
        asked = [item for item in dict.fromkeys(asked)
                 if any(replacements for *_, replacements in self.senses(item[1].lower(), item[2]))]
        if not asked:
            return {}
        phrases = list(dict.fromkeys(phrase for phrase, _, _ in asked))
        contexts = dict(zip(phrases, self.embed(phrases)))
        senses = {item: self.senses(item[1].lower(), item[2]) for item in asked}
        replaced = {}
        for (phrase, word, tag), found in senses.items():
            tokens = phrase.split(" ")
            at = tokens.index(word)
            for name in dict.fromkeys(name for *_, replacements in found for name in replacements):
                replaced[(phrase, word, tag, name)] = " ".join(tokens[:at] + [name] + tokens[at + 1:])
        texts = list(dict.fromkeys(replaced.values()))
        vectors = dict(zip(texts, self.embed(texts)))
        keeping = {(phrase, word, tag, name) for (phrase, word, tag, name), text in replaced.items()
                   if round(float(vectors[text] @ contexts[phrase]), ROUNDING) >= self.min_cosine}
        chosen = {item: found for item, found in senses.items() if any(item + (name,) in keeping
                                                                       for *_, names in found for name in names)}
        self._embed_glosses([gloss for found in chosen.values() if len(found) > 1 for gloss, *_ in found])
        kept = {item: [] for item in asked}
        for item, found in chosen.items():
            kept[item] = [name for name in found[self._sense_in(contexts[item[0]], found)][2]
                          if item + (name,) in keeping]
        return kept

    def synonyms(self, phrase, word, tag):
        """Replacements of `word` (a word of `phrase`, tagged `tag`) that keep the phrase's meaning."""
        return self.in_context([(phrase, word, tag)]).get((phrase, word, tag), [])


def load_word_vectors(path):
    """Word vectors given by the user: FastText/word2vec text (.vec/.txt), word2vec binary (.bin) or gensim
    KeyedVectors (.kv)."""
    from gensim.models import KeyedVectors

    if not os.path.exists(path):
        raise InputError(f"{path}: no such word-vector file; pass a .kv, .vec, .txt or .bin file")
    try:
        if path.endswith(".kv"):
            return KeyedVectors.load(path)
        return KeyedVectors.load_word2vec_format(path, binary=path.endswith(".bin"))
    except (ValueError, UnicodeDecodeError, EOFError) as err:
        raise InputError(f"{path}: not a word2vec or gensim KeyedVectors file ({err})") from err


def vector_neighbours(vectors, word, tag, min_cosine=0.7, topn=10):
    """Up to `topn` words whose vector cosine with `word`'s is at least `min_cosine`, most similar first; none for
    a `tag` WordNet synonyms would not replace either."""
    lower = word.lower()
    if tag not in WORDNET_POS or not WORD.fullmatch(word) or lower not in vectors.key_to_index:
        return []
    return [other for other, cosine in vectors.most_similar(lower, topn=topn)
            if cosine >= min_cosine and other != lower]
