"""The paper's GloVe rows: static word vectors from the user's file, a text's vector the mean of its tokens'."""
import re

import numpy as np

from companions.stsb_context.spans import WORD
from picforge.errors import InputError
from picforge.word_vectors import read_vectors_file

TOKEN = re.compile(rf"{WORD.pattern}|[^\w\s]")


def tokens(text):
    """(start, end) of each token: the words of the span rule and single punctuation marks."""
    return [m.span() for m in TOKEN.finditer(text)]


def lookup_forms(text):
    """The forms of the text's tokens a vectors file is searched for: as written and lower-cased."""
    found = {text[s:e] for s, e in tokens(text)}
    return found | {t.lower() for t in found}


class WordVectorEncoder:
    """The evaluation's encoder interface over word vectors: a token's vector is its form's, else its lower-cased
    form's, else zeros (an unknown token leaves a mean's direction, hence every cosine, unchanged)."""

    def __init__(self, path):
        self.path, self.vectors, self.dimensions = path, {}, None

    def load(self, texts):
        """Read the vectors of every token of `texts` (one pass over the file)."""
        wanted = set().union(*(lookup_forms(t) for t in texts))
        self.vectors = read_vectors_file(self.path, wanted)
        if not self.vectors:
            raise InputError(f"--vectors {self.path}: holds none of the evaluated words; give word vectors of the "
                             "contexts' language (the paper: GloVe 840B 300d, glove.840B.300d.txt)")
        self.dimensions = len(next(iter(self.vectors.values())))

    def token_vectors(self, text):
        """(a row per token, the tokens' character offsets)."""
        offsets = tokens(text)
        zero = np.zeros(self.dimensions, dtype=np.float32)
        rows = [self.vectors.get(text[s:e], self.vectors.get(text[s:e].lower(), zero)) for s, e in offsets]
        return np.array(rows, dtype=np.float32).reshape(len(rows), self.dimensions), offsets

    def sentences(self, texts):
        """One vector per text: the mean of its token vectors (zeros for a text without tokens)."""
        means = []
        for text in texts:
            rows, _ = self.token_vectors(text)
            means.append(rows.mean(0) if len(rows) else np.zeros(self.dimensions, dtype=np.float32))
        return np.array(means)

    def tokens(self, texts):
        """[(token vectors, token character offsets)] of each text."""
        return [self.token_vectors(t) for t in texts]
