"""OneThreadBlasOps (picforge.blas_ops): thinc's matrix products through numpy's BLAS, on one thread, with the same results."""
import numpy
from threadpoolctl import threadpool_info

from picforge.blas_ops import OneThreadBlasOps
from pipeline.stages.phrases import load_spacy


def blas_threads():
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_gemm_matches_numpy_in_every_layout_and_leaves_the_thread_count():
    ops = OneThreadBlasOps()
    rng = numpy.random.default_rng(0)
    x, y = rng.random((7, 5), dtype="float32"), rng.random((5, 3), dtype="float32")
    threads = blas_threads()
    numpy.testing.assert_allclose(ops.gemm(x, y), x @ y, rtol=1e-6)
    numpy.testing.assert_allclose(ops.gemm(x.T.copy(), y, trans1=True), x @ y, rtol=1e-6)
    numpy.testing.assert_allclose(ops.gemm(x, y.T.copy(), trans2=True), x @ y, rtol=1e-6)
    out = numpy.zeros((7, 3), dtype="float32")
    assert ops.gemm(x, y, out=out) is out
    numpy.testing.assert_allclose(out, x @ y, rtol=1e-6)
    assert blas_threads() == threads


def test_phrases_pipeline_runs_every_model_on_one_thread_blas():
    nlp = load_spacy()
    models = [component.model for _, component in nlp.pipeline if hasattr(component, "model")]
    assert models and all(isinstance(node.ops, OneThreadBlasOps) for model in models for node in model.walk())
