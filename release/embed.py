"""Phrase embeddings as in PiC Sec. 5: mean of a model's last-layer token vectors over the phrase's characters."""
import os

import numpy as np

from picforge.encoders import BUNDLED_MODEL, load_token_model, resolve_device, resolve_model_path, span_vector


class PhraseEncoder:
    """Embed character spans, alone (the phrase as input) or inside their sentence; loads the model lazily."""

    def __init__(self, model=None, batch_size=64, max_length=256, device=None):
        model = model or BUNDLED_MODEL
        self.model_path = resolve_model_path(model)
        self.device = device
        self.name = "all-MiniLM-L6-v2" if model == BUNDLED_MODEL else os.path.basename(os.path.normpath(model))
        self.batch_size = batch_size
        self.max_length = max_length
        self._tokenizer = self._model = None

    def load(self):
        """(tokenizer, model), loaded once, on `device` (default: CUDA when available, else CPU)."""
        if self._model is None:
            self.device = resolve_device(self.device or "auto")
            self._tokenizer, self._model = load_token_model(self.model_path, self.device)
        return self._tokenizer, self._model

    def encode_spans(self, items, truncated_alone=True):
        """Unit vectors (n × dim) of spans given as (text, start, end); each distinct text runs once.

        A span cut off by truncation is embedded alone instead; a span with no tokens at all gets a zero vector.
        """
        import torch

        tokenizer, model = self.load()
        by_text = {}
        for i, (text, start, end) in enumerate(items):
            by_text.setdefault(text, []).append((i, start, end))
        texts = sorted(by_text, key=len)
        vectors = [None] * len(items)
        unreached = []
        for first in range(0, len(texts), self.batch_size):
            batch = texts[first:first + self.batch_size]
            inputs = tokenizer(batch, return_offsets_mapping=True, truncation=True, max_length=self.max_length,
                               padding=True, return_tensors="pt")
            offsets = inputs.pop("offset_mapping")
            with torch.no_grad():
                hidden = model(**inputs.to(self.device)).last_hidden_state.cpu()
            for row, text in enumerate(batch):
                for i, start, end in by_text[text]:
                    vector = span_vector(hidden[row], offsets[row], start, end)
                    if vector is not None:
                        vectors[i] = vector.numpy()
                    elif truncated_alone:
                        unreached.append(i)
                    else:
                        vectors[i] = np.zeros(hidden.shape[-1], dtype=np.float32)
        if unreached:
            spans = [items[i][0][items[i][1]:items[i][2]] for i in unreached]
            alone = self.encode_spans([(text, 0, len(text)) for text in spans], truncated_alone=False)
            for i, vector in zip(unreached, alone):
                vectors[i] = vector
        matrix = np.stack(vectors) if vectors else np.zeros((0, model.config.hidden_size), dtype=np.float32)
        return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)

    def encode_phrases(self, phrases):
        """Unit vectors of phrases given alone (no context)."""
        return self.encode_spans([(p, 0, len(p)) for p in phrases], truncated_alone=False)
