"""CoSimLex: graded word similarity in context, built from SimLex-999 pairs and Wikipedia contexts."""
from companions.cosimlex.stage_names import FINAL, FORMS, RATINGS, SELECTION
from picforge.companions import Companion

COMPANION = Companion(
    name="cosimlex",
    help="build CoSimLex: contexts, expert selection, rating task, post-processing, metrics",
    stages={
        **dict.fromkeys(("cosimlex-contexts", "cosimlex-candidates"),
                        "picforge cosimlex candidates --pairs SIMLEX --run MINED_RUN --out {run}"),
        SELECTION: "picforge cosimlex ingest selection --run {run} --sheets SHEET…",
        FORMS: "picforge cosimlex export rating --run {run}",
        RATINGS: "picforge cosimlex ingest rating --run {run} --sheets ANSWERS…",
        FINAL: "picforge cosimlex postprocess --run {run}",
    },
    schemas="companions.cosimlex.schemas",
    release="companions.cosimlex.release:write_release",
)
