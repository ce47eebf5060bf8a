"""Synonym sources for token-level augmentation: WordNet read offline, and nearest neighbours in word vectors."""
import os
import re
import warnings
import zlib
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


def wordnet_synonyms(wordnet, word):
    """Other single-word lemma names of `word`'s synsets, lower-case and sorted; none for stopword-like
    tokens WordNet does not hold."""
    if not WORD.fullmatch(word):
        return []
    lower = word.lower()
    names = {lemma.name().lower() for synset in wordnet.synsets(lower) for lemma in synset.lemmas()}
    return sorted(name for name in names if name != lower and WORD.fullmatch(name))


def corpus_tokens(text):
    """Lower-case word tokens of a sentence, as the corpus word vectors are trained on."""
    return [w.lower() for w in WORD.findall(text)]


def _stable_hash(text):
    """A hash that is the same in every process (gensim's default, Python's hash(), is salted per process)."""
    return zlib.crc32(text.encode("utf-8"))


def train_word_vectors(sentences, *, seed=0, vector_size=100, window=5, min_count=5, epochs=5):
    """gensim Word2Vec vectors trained on an iterable of token lists; one worker, so the same on every run."""
    from gensim.models import Word2Vec

    model = Word2Vec(sentences=sentences, vector_size=vector_size, window=window, min_count=min_count,
                     epochs=epochs, seed=seed, workers=1, hashfxn=_stable_hash)
    return model.wv


def load_word_vectors(path):
    """Word vectors given by the user: gensim KeyedVectors (.kv) or word2vec text/binary (.vec/.txt/.bin)."""
    from gensim.models import KeyedVectors

    if not os.path.exists(path):
        raise InputError(f"{path}: no such word-vector file; pass a .kv, .vec, .txt or .bin file")
    try:
        if path.endswith(".kv"):
            return KeyedVectors.load(path)
        return KeyedVectors.load_word2vec_format(path, binary=path.endswith(".bin"))
    except (ValueError, UnicodeDecodeError, EOFError) as err:
        raise InputError(f"{path}: not a word2vec or gensim KeyedVectors file ({err})") from err


def vector_neighbours(vectors, word, min_cosine=0.7, topn=10):
    """Up to `topn` words whose vector cosine with `word`'s is at least `min_cosine`, most similar first."""
    lower = word.lower()
    if not WORD.fullmatch(word) or lower not in vectors.key_to_index:
        return []
    return [other for other, cosine in vectors.most_similar(lower, topn=topn)
            if cosine >= min_cosine and other != lower]
