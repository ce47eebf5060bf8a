"""CoSimLex: graded word similarity in context, built from SimLex-999 pairs and Wikipedia contexts."""
from companions.cosimlex.declarations import COSIMLEX
from companions.cosimlex.stage_names import FINAL
from picforge.datasets import Dataset, Release
from picforge.stages import produced

DATASET = Dataset(
    name="cosimlex",
    help="build CoSimLex: contexts, expert selection, rating task, post-processing, metrics",
    stages=produced(COSIMLEX),
    schemas="companions.cosimlex.schemas",
    release=Release(
        "companions.cosimlex.release:write_release", reads=FINAL,
        licence="`other`: the SimLex-999 pairs keep their authors' terms, the Wikipedia contexts CC BY-SA",
        counts="pairs", help="write the CoSimLex rows as a Hugging Face dataset with its card",
        description="Read cosimlex-final and write data/test.jsonl and .parquet, README.md (card with statistics "
                    "and licence), stats.json, a plot and MANIFEST.json."),
)
