"""STS-B-Context (SLICE paper, Section 4.2): generated contexts around STS Benchmark target phrases, validated and evaluated."""
from companions.stsb_context.declarations import STSB_CONTEXT
from picforge.datasets import Dataset, Release
from picforge.evaluation import Evaluate, Input
from picforge.sheet_verbs import Sheet
from picforge.verbs import Writes
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
        report="companions.stsb_context.evaluate:report", stages=True),
    sheets=(Sheet(
        "validation", "companions.stsb_context.validation:export_sheets",
        "companions.stsb_context.dataset:ingest_sheets",
        writes=Writes("stage", "the sheets are the stage's files, fingerprinted", default="validation"),
        reads="generations", ingest_reads="the generations", returned="the two filled sheets (.csv or .xlsx)",
        export_help="write the two annotators' validation sheets",
        export_description="Write RUN_DIR/validation/annotator-{1,2}.{csv,xlsx} and GUIDELINES.md for the "
                           "generations kept so far.",
        ingest_help="read both filled sheets and write the final dataset",
        ingest_description="Drop items either annotator marked Y (the context changes the gold similarity); write "
                           "RUN_DIR/dataset (Parquet, JSON Lines); `release` makes it a dataset folder.",
        export_options="companions.stsb_context.declarations:ValidationExportOptions",
        ingest_options="companions.stsb_context.declarations:ValidationIngestOptions",
        placeholder="SHEET SHEET", filled="both validators' filled sheets", then=("evaluate", "release")),),
)
