"""Word vectors the user gives (word2vec / FastText / GloVe text): read only the words a job needs."""

import numpy as np
from apache_beam.io.filesystems import FileSystems

from picforge.bounded_read import bounded_lines
from picforge.errors import InputError


def read_word_vectors(lines, wanted):
    """{word: vector} of the `wanted` words in word2vec / FastText text lines (`word v1 … vd`; a first line
    `COUNT DIMENSIONS` is optional, so GloVe text reads too); only wanted lines are parsed. A malformed one is a
    ValueError naming its line."""
    found, dimensions = {}, None
    for line_no, line in enumerate(lines, 1):
        word, _, numbers = line.strip().partition(" ")
        if line_no == 1 and word.isdigit() and numbers.isdigit():
            dimensions = int(numbers)
            continue
        if word not in wanted:
            continue
        fields = numbers.split()
        if dimensions and len(fields) > dimensions:  # a word with spaces (GloVe 840B has ". . ." and the like)
            word = " ".join([word] + fields[:-dimensions])
            fields = fields[-dimensions:]
            if word not in wanted:
                continue
        try:
            vector = np.array(fields, dtype=np.float32)
        except ValueError:
            raise ValueError(f"line {line_no}: the vector of {word!r} holds something that is not a number") from None
        dimensions = dimensions or len(vector)
        if len(vector) != dimensions or not dimensions:
            raise ValueError(f"line {line_no}: {word!r} has {len(vector)} numbers, expected {dimensions}")
        found[word] = vector
    return found


def read_vectors_file(path, wanted, option="--vectors"):
    """{word: vector} of the `wanted` words of a word2vec / FastText / GloVe text file (gzip or bz2 by its name)."""
    try:
        with FileSystems.open(path, compression_type="auto") as fh:
            lines = bounded_lines(fh, f"{option} {path}", fix="give a word-vector text file (one word a line)")
            return read_word_vectors((line.decode("utf-8") for _, line in lines), wanted)
    except (OSError, ValueError, UnicodeDecodeError) as err:
        raise InputError(f"{option} {path}: not a word-vector text file ({err}); give word2vec, FastText or GloVe "
                         "text (`word v1 v2 …` per line, an optional first line `COUNT DIMENSIONS`)") from None
