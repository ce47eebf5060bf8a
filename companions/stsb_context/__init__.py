"""STS-B-Context (SLICE paper, Section 4.2): generated contexts around STS Benchmark target phrases, validated and evaluated."""
from picforge.stage_registry import register_stages

register_stages({
    "generations": "picforge stsb-context --stsb FILE --out {run}",
    "validation": "picforge stsb-context export-validation --run {run}",
    "dataset": "picforge stsb-context ingest-validation --run {run} --sheets SHEET SHEET",
})
