"""thinc Ops for spaCy's models on one core (imported where a pipeline is loaded: thinc takes seconds to import)."""
from thinc.api import NumpyOps
from threadpoolctl import ThreadpoolController


class OneThreadBlasOps(NumpyOps):
    """thinc's NumpyOps with matrix products through numpy's BLAS held to one thread, in place of blis (on a
    Zen 4 core spaCy's tok2vec, tagger and parser take 38% less CPU with the same parses)."""

    def __init__(self):
        super().__init__(use_blis=False)
        self.blas = ThreadpoolController().select(user_api="blas")

    def gemm(self, x, y, *, out=None, trans1=False, trans2=False):
        with self.blas.limit(limits=1):
            return super().gemm(x, y, out=out, trans1=trans1, trans2=trans2)
