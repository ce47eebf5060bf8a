"""STS-B-Context (SLICE paper, Section 4.2): generated contexts around STS Benchmark target phrases, validated and evaluated."""
from companions.stsb_context.declarations import STSB_CONTEXT
from picforge.datasets import Dataset, Release
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
)
