"""STS-B-Context (SLICE paper, Section 4.2): generated contexts around STS Benchmark target phrases, validated and evaluated."""
from picforge.companions import Companion

COMPANION = Companion(
    name="stsb-context",
    help="build and evaluate STS-B-Context (SLICE paper, Sections 4.2 and 5)",
    stages={
        "generations": "picforge stsb-context generate --stsb FILE --out {run}",
        "validation": "picforge stsb-context export validation --run {run}",
        "dataset": "picforge stsb-context ingest validation --run {run} --sheets SHEET SHEET",
    },
    schemas="companions.stsb_context.schemas",
    release="companions.stsb_context.release:write_release",
)
