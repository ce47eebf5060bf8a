"""STS-B-Context (SLICE paper, Section 4.2): generated contexts around STS Benchmark target phrases, validated and evaluated."""
from companions.stsb_context.declarations import STSB_CONTEXT
from picforge.datasets import Dataset, Release
from picforge.evaluation import Evaluate, Input
from picforge.stages import produced

DATASET = Dataset(
    name="stsb-context",
    help="build and evaluate STS-B-Context (SLICE paper, Sections 4.2 and 5)",
    stages=produced(STSB_CONTEXT),
    schemas="companions.stsb_context.schemas",
    release=Release(
        "companions.stsb_context.release:write_release", reads="stage `dataset`",
        licence="`other`: the STS Benchmark pairs keep the terms of their sources", counts="rows",
        help="write the validated dataset as a Hugging Face dataset with its card",
        description="Read stage `dataset` and write data/test.jsonl and .parquet, README.md (card with "
                    "construction, statistics and licence), stats.json and MANIFEST.json."),
    evaluate=Evaluate(
        "companions.stsb_context.evaluate:score", help="correlate gold scores with a model's best-span similarity",
        description="Score each row for each setup of the SLICE paper (Section 5) and report Pearson and Spearman "
                    "correlations with the gold STS-B scores, and Williams' t-test of each row against the best of "
                    "its setup and of all.",
        inputs=(Input("--run", "the validated dataset (or generations)", kind="run", required=True),),
        options="companions.stsb_context.declarations:EvaluateOptions",
        report="companions.stsb_context.evaluate:report", stages=True, then="release"),
)
