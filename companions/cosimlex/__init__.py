"""CoSimLex: graded word similarity in context, built from SimLex-999 pairs and Wikipedia contexts."""
from companions.cosimlex.declarations import COSIMLEX
from companions.cosimlex.stage_names import EXPORTS, FINAL
from picforge.datasets import Dataset, Release
from picforge.evaluation import Evaluate, Input
from picforge.sheet_verbs import Sheet
from picforge.verbs import Writes
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
    sheets=(
        Sheet("selection", "companions.cosimlex.sheets:export_selection", "companions.cosimlex.sheets:ingest_selection",
              writes=Writes("folder", "folder for the sheet and its guidelines", default=f"{EXPORTS}/selection"),
              reads="cosimlex-candidates", returned="filled selection sheet(s)",
              export_help="write the expert survey sheet",
              export_description="Write the expert's survey: every pair's candidates, to mark the most and least "
                                 "similar context and the expected difference.",
              ingest_help="read the expert's filled sheets",
              ingest_description="Validate the expert's sheets (CSV or XLSX) and record the two chosen contexts of "
                                 "every pair; re-ingesting a sheet changes nothing.",
              export_options="companions.cosimlex.declarations:ExpertOptions",
              ingest_options="companions.cosimlex.declarations:SelectionOptions",
              placeholder="SHEET", filled="the expert's filled selection sheet"),
        Sheet("rating", "companions.cosimlex.sheets:export_rating", "companions.cosimlex.sheets:ingest_rating",
              writes=Writes("folder", "folder for the forms and plan.json", default=f"{EXPORTS}/rating"),
              reads="cosimlex-selection", ingest_reads="cosimlex-rating-forms",
              returned="answer file(s): the rating forms' answers", returned_metavar="ANSWERS",
              export_help="write the rating forms (MTurk HTMLQuestion + standalone)",
              export_description="Split the selected pairs into complementary forms (one context of each pair per "
                                 "form) and render them as MTurk HTMLQuestion XML and standalone HTML pages, with "
                                 "plan.json for the MTurk tooling.",
              ingest_help="read rating answers",
              ingest_description="Read answers (standalone JSON downloads, MTurk assignments as JSON/JSONL from "
                                 "list_assignments_for_hit, or Batch_*_batch_results.csv); re-ingesting adds "
                                 "nothing; an annotator's later ratings of a pair they already rated are kept but "
                                 "marked repeat-pair.",
              export_options="companions.cosimlex.declarations:RatingExportOptions",
              placeholder="ANSWERS…", filled="the annotators' returned forms", then=("postprocess",),
              then_note="once every form is back")),
)
