"""CoSimLex: graded word similarity in context, built from SimLex-999 pairs and Wikipedia contexts."""
from companions.cosimlex.stage_names import FINAL, FORMS, RATINGS, SELECTION
from picforge.datasets import Dataset, Release

DATASET = Dataset(
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
    release=Release(
        "companions.cosimlex.release:write_release", reads=FINAL,
        licence="`other`: the SimLex-999 pairs keep their authors' terms, the Wikipedia contexts CC BY-SA",
        counts="pairs", help="write the CoSimLex rows as a Hugging Face dataset with its card",
        description="Read cosimlex-final and write data/test.jsonl and .parquet, README.md (card with statistics "
                    "and licence), stats.json, a plot and MANIFEST.json."),
)
