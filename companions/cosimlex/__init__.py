"""CoSimLex: graded word similarity in context, built from SimLex-999 pairs and Wikipedia contexts."""
from companions.cosimlex.declarations import COSIMLEX
from picforge.companions import Companion
from picforge.stages import produced

COMPANION = Companion(
    name="cosimlex",
    help="build CoSimLex: contexts, expert selection, rating task, post-processing, metrics",
    stages=produced(COSIMLEX),
    schemas="companions.cosimlex.schemas",
    release="companions.cosimlex.release:write_release",
)
