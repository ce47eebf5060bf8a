"""picforge.encoders: the offline switch never overrides the user's, and the token encoder on the bundled model."""
import numpy as np

from picforge import encoders


def test_offline_switch_is_set_only_where_the_user_has_not(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    encoders.use_local_models()
    assert encoders.os.environ["HF_HUB_OFFLINE"] == "0"
    assert encoders.os.environ["TRANSFORMERS_OFFLINE"] == "1"


def test_token_encoder_gives_a_vector_per_token_with_its_offsets():
    encoder = encoders.TokenEncoder(encoders.resolve_model_path(encoders.BUNDLED_MODEL), batch_size=2)
    texts = ["The bank of the river.", "A bank lends money to people who need it."]
    found = list(encoder.token_vectors(texts))
    assert len(found) == 2
    for text, (vectors, offsets) in zip(texts, found):
        assert vectors.shape == (len(offsets), 384) and np.isfinite(vectors).all()
        assert any(text[start:end].lower() == "bank" for start, end in offsets)


def test_the_stages_of_a_process_share_one_loaded_sentence_model():
    first = encoders.SentenceModelOnFirstUse(encoders.BUNDLED_MODEL, "model", "cpu").get()
    assert encoders.SentenceModelOnFirstUse(encoders.BUNDLED_MODEL, "model", "cpu").get() is first
    assert encoders.SentenceModelOnFirstUse(encoders.BUNDLED_MODEL, "mean", "cpu").get() is not first
