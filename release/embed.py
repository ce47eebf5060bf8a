"""Phrase embeddings as in PiC Sec. 5: mean of a model's last-layer token vectors over the phrase's characters."""
import os

import numpy as np

from picforge.encoders import BUNDLED_MODEL, TokenEncoder, resolve_model_path, span_vector


class PhraseEncoder:
    """Embed character spans, alone (the phrase as input) or inside their sentence; loads the model lazily."""

    def __init__(self, model=None, batch_size=64, max_length=256, device=None):
        model = model or BUNDLED_MODEL
        self.model_path = resolve_model_path(model)
        self.name = "all-MiniLM-L6-v2" if model == BUNDLED_MODEL else os.path.basename(os.path.normpath(model))
        self.tokens = TokenEncoder(self.model_path, max_length, batch_size, device or "auto")

    def encode_spans(self, items, truncated_alone=True):
        """Unit vectors (n × dim) of spans given as (text, start, end); each distinct text runs once.

        A span cut off by truncation is embedded alone instead; a span with no tokens at all gets a zero vector.
        """
        by_text = {}
        for i, (text, start, end) in enumerate(items):
            by_text.setdefault(text, []).append((i, start, end))
        texts = sorted(by_text, key=len)  # similar lengths batch together
        dim = self.tokens.load().model.config.hidden_size
        vectors = [None] * len(items)
        unreached = []
        for text, (hidden, offsets) in zip(texts, self.tokens.token_vectors(texts)):
            for i, start, end in by_text[text]:
                vector = span_vector(hidden, offsets, start, end)
                if vector is not None:
                    vectors[i] = vector
                elif truncated_alone:
                    unreached.append(i)
                else:
                    vectors[i] = np.zeros(dim, dtype=np.float32)
        if unreached:
            spans = [items[i][0][items[i][1]:items[i][2]] for i in unreached]
            alone = self.encode_spans([(text, 0, len(text)) for text in spans], truncated_alone=False)
            for i, vector in zip(unreached, alone):
                vectors[i] = vector
        matrix = np.stack(vectors) if vectors else np.zeros((0, dim), dtype=np.float32)
        return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)

    def encode_phrases(self, phrases):
        """Unit vectors of phrases given alone (no context)."""
        return self.encode_spans([(p, 0, len(p)) for p in phrases], truncated_alone=False)
