"""Synonym sources for token-level augmentation: WordNet read offline, and nearest neighbours in word vectors."""
import os
import re
import warnings
from importlib import resources

from picforge.errors import InputError

DEBIAN_WORDNET = "/usr/share/wordnet"  # Debian's wordnet-base: the WordNet 3.0 database files
WORDNET_FILES = ("data.noun", "index.noun", "data.verb", "index.verb", "data.adj", "index.adj")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _shipped_lexnames():
    return resources.files("companions.pearl").joinpath("data", "lexnames")


def load_wordnet(root=DEBIAN_WORDNET):
    """NLTK's WordNetCorpusReader over a WordNet database folder (never a download).

    Debian's wordnet-base omits `lexnames` (the 45 lexicographer file names), which NLTK reads first; a copy
    ships with picforge and is used when the folder has none. The multilingual (OMW) functions are not used.
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

        def map_wn(self, version="wordnet"):
            # the mapping from WordNet 3.0 (read from nltk_data) is the identity for a 3.0 database
            return None if self.get_version() == "3.0" else super().map_wn(version)

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The multilingual functions", UserWarning)
        return DebianWordNetReader(root, None)


# spaCy (Penn) tags of the base forms a synonym can replace as is, and their WordNet part of speech; proper nouns,
# plurals, tenses and comparatives would need the synonym inflected, so they get none
WORDNET_POS = {"NN": "n", "VB": "v", "VBP": "v", "JJ": "a", "RB": "r"}


def wordnet_synonyms(wordnet, word, tag):
    """Other single-word lemmas of the most frequent WordNet sense of `word` in the part of speech of its `tag`
    (the first synset), most frequent lemma first; none for other tags."""
    pos = WORDNET_POS.get(tag)
    if pos is None or not WORD.fullmatch(word):
        return []
    lower = word.lower()
    senses = wordnet.synsets(lower, pos)
    if not senses:
        return []
    lemmas = sorted(senses[0].lemmas(), key=lambda lemma: -lemma.count())
    names = (lemma.name().lower() for lemma in lemmas)
    return list(dict.fromkeys(name for name in names if name != lower and WORD.fullmatch(name)))


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
