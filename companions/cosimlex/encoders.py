"""Contextual similarity of a word pair inside its context, from the token embeddings of local encoders."""
import os

import numpy as np

from companions.cosimlex.bert_tokens import BertTokens
from picforge.encoders import BUNDLED_MODEL, TokenEncoder, resolve_model_path, span_vector
from picforge.errors import InputError
from picforge.spacy_models import shared_pipeline

# Contexts go through a transformer one at a time: no padding, so a context's score does not depend on the batch Beam
# happened to put it in (the same text always gets the same score, and ties between equal texts fall to context_id).
ONE_CONTEXT = 1
MINILM = "minilm"
TOK2VEC = "tok2vec"
DEFAULT_ENCODERS = (MINILM, TOK2VEC)


def pair_cosine(vectors, offsets, span1, span2):
    """Cosine of the two words' contextual vectors; None when a word has no token (e.g. truncated away)."""
    v1, v2 = span_vector(vectors, offsets, *span1), span_vector(vectors, offsets, *span2)
    if v1 is None or v2 is None:
        return None
    norm = float(np.linalg.norm(v1) * np.linalg.norm(v2))
    return float(v1 @ v2) / norm if norm else None


def _only_tok2vec(nlp, model):
    if "tok2vec" not in nlp.pipe_names:
        raise InputError(f"--scorer spacy:{model}: the model has no tok2vec component; name a spaCy model that "
                         "has one (e.g. en_core_web_sm)")
    nlp.select_pipes(enable=["tok2vec"])


def components_besides_tok2vec(model):
    """The components of the spaCy model `model` (an installed package or a folder) other than `tok2vec`, from its
    meta.json: the scorer loads none of them."""
    import spacy

    meta = spacy.util.get_model_meta(model if os.path.isdir(model) else spacy.util.get_package_path(model))
    return tuple(name for name in meta.get("components", meta.get("pipeline", ())) if name != "tok2vec")


class SpacyTokens:
    """The token vectors (`doc.tensor`) that a spaCy pipeline's `tok2vec` component computes."""

    def __init__(self, model):
        self.model = model
        self.nlp = None

    def load(self):
        if self.nlp is None:
            self.nlp = shared_pipeline(self.model, components_besides_tok2vec(self.model), _only_tok2vec, self.model)
        return self

    def token_vectors(self, texts):
        """(vectors, character offsets) of each text's tokens."""
        self.load()
        for doc in self.nlp.pipe(texts):
            yield doc.tensor, [(t.idx, t.idx + len(t.text)) for t in doc]


def make_encoder(spec, spacy_model, device="cpu"):
    """The encoder named by `spec`: minilm (the bundled MiniLM, run without transformers), tok2vec (of
    `spacy_model`), hf:FOLDER or spacy:MODEL; the transformer ones on `device`."""
    if spec == MINILM:
        return BertTokens(resolve_model_path(BUNDLED_MODEL), device=device)
    if spec == TOK2VEC:
        return SpacyTokens(spacy_model)
    kind, _, name = spec.partition(":")
    if kind == "hf" and os.path.isdir(name):
        return TokenEncoder(name, batch_size=ONE_CONTEXT, device=device)
    if kind == "spacy" and name:
        import spacy

        if name in spacy.util.get_installed_models() or os.path.isdir(name):
            return SpacyTokens(name)
    raise InputError(f"--scorer {spec}: no encoder here; use minilm, tok2vec, hf:LOCAL_FOLDER (an existing folder) or "
                     "spacy:MODEL (an installed spaCy model), one --scorer per encoder")


def pair_similarities(encoder, contexts):
    """The encoder's cosine between the two words of each context record (None where a word has no token)."""
    texts = [c["context"] for c in contexts]
    return [
        pair_cosine(vectors, offsets, (c["word1_start"], c["word1_end"]), (c["word2_start"], c["word2_end"]))
        for c, (vectors, offsets) in zip(contexts, encoder.token_vectors(texts))
    ]
