"""The sentence encoder's device option and the SimCSE-style CLS pooling on a real BERT-architecture model."""
import numpy as np
import pytest
import torch

from picforge.cli import main
from picforge.encoders import BUNDLED_MODEL, encode, load_sentence_model, resolve_device, resolve_model_path

TEXTS = ["The bank raised its interest rate.", "They walked along the river bank at dusk.", "A short one."]


def test_auto_device_is_cuda_exactly_when_torch_sees_a_gpu():
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device("cpu") == "cpu"
    with pytest.raises(ValueError, match="tpu"):
        resolve_device("tpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU, so --device cuda is valid here")
def test_cuda_without_a_gpu_is_a_one_line_error_before_any_stage(tmp_path, wic_zip, capsys):
    code = main(["mine", "--input", str(tmp_path / "absent.xml.bz2"), "--wic", str(wic_zip),
                 "--out", str(tmp_path / "run"), "--device", "cuda"])
    error = capsys.readouterr().err
    assert code == 2 and "--device cuda" in error and len(error.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def hand_cls_embeddings(texts):
    """CLS vectors of the raw BERT encoder under the bundled MiniLM, computed with transformers directly."""
    from transformers import AutoModel, AutoTokenizer

    path = resolve_model_path(BUNDLED_MODEL)
    tokenizer, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path)
    with torch.no_grad():
        hidden = model(**tokenizer(texts, padding=True, return_tensors="pt")).last_hidden_state
    cls = hidden[:, 0].numpy()
    return cls / np.linalg.norm(cls, axis=1, keepdims=True)


def test_cls_pooling_is_the_raw_encoders_first_token_and_differs_from_mean():
    cls_model = load_sentence_model(BUNDLED_MODEL, pooling="cls", device="cpu")
    assert type(cls_model[0].auto_model).__name__ == "BertModel"
    cls = encode(cls_model, TEXTS)
    mean = encode(load_sentence_model(BUNDLED_MODEL, pooling="mean", device="cpu"), TEXTS)
    np.testing.assert_allclose(cls, hand_cls_embeddings(TEXTS), atol=1e-5)
    assert np.abs(cls - mean).max() > 0.1
    assert (cls * mean).sum(axis=1).max() < 0.99
