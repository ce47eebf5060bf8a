"""CoSimLex: graded word similarity in context, built from SimLex-999 pairs and Wikipedia contexts."""
from companions.cosimlex.declarations import COSIMLEX
from companions.cosimlex.stage_names import FINAL
from picforge.datasets import Dataset, Release
from picforge.evaluation import Evaluate, Input
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
    evaluate=Evaluate(
        "companions.cosimlex.evaluation:score", help="score predictions (subtask 1 and 2)",
        description="Subtask 1: uncentered Pearson of predicted and gold changes (sim2 - sim1); subtask 2: "
                    "Spearman of the ratings.",
        inputs=(Input("--predictions", "a predictions file: CSV/TSV/XLSX/JSONL with word1, word2 and sim1, sim2 (or "
                                       "change)", required=True),
                Input("--release", "the gold rows `picforge cosimlex release` wrote", kind="release"),
                Input("--run", "cosimlex-final (`picforge cosimlex postprocess`): its rows are the gold", kind="run"),
                Input("--gold-table", "a gold table with word1, word2, sim1, sim2 (CSV/TSV/XLSX/JSONL), e.g. a "
                                      "published CoSimLex file")),
        one_of=("--release", "--run", "--gold-table")),
)
