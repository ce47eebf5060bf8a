"""McPhraSy companion: multi-context retrieval for phrases and the phrase-clustering dataset (McPhraSy §3.1, §4)."""
from companions.mcphrasy.declarations import MCPHRASY
from picforge.datasets import Dataset, Release
from picforge.evaluation import Evaluate, Input
from picforge.sheet_verbs import Sheet
from picforge.verbs import Writes
from picforge.stages import produced

DATASET = Dataset(
    name="mcphrasy",
    help="McPhraSy: phrase contexts from a corpus, phrase groups, cluster annotation, release",
    stages=produced(MCPHRASY),
    schemas="companions.mcphrasy.schemas",
    release=Release(
        "companions.mcphrasy.release:write_release", reads="mcphrasy-clusters",
        licence="cc-by-sa-4.0: what the Wikipedia text allows", counts="groups",
        help="write the dataset, its card (Table 1) and the baseline scores",
        options="companions.mcphrasy.release_options:ReleaseOptions",
        details="companions.mcphrasy.release_options:details", then="evaluate"),
    evaluate=Evaluate(
        "companions.mcphrasy.evaluation:score", help="V-measure, ARI and AMI of clustering methods on a release",
        inputs=(Input("--release", "the groups `picforge mcphrasy release` wrote", kind="release", required=True),
                Input("--predictions", "JSON lines {group_id, clusters: [[phrase, ...], ...]} to score; without it, "
                                       "the §5.3.1 baselines are scored side by side"),
                Input("--run", "the released phrases' contexts (mcphrasy-contexts): adds the contextual baselines",
                      kind="run")),
        options="companions.mcphrasy.evaluation:EvaluateOptions", report="companions.mcphrasy.evaluation:report"),
    sheets=(Sheet(
        "clusters", "companions.mcphrasy.annotate:export_sheets", "companions.mcphrasy.annotate:ingest_sheets",
        writes=Writes("folder", "folder for the sheets, one sub-folder per annotator", default="sheets"),
        reads="mcphrasy-groups", returned="returned sheets (.csv, .xlsx) or folders of them",
        export_help="write cluster sheets (CSV + XLSX) for annotators",
        ingest_help="validate returned cluster sheets into the ledger",
        export_options="companions.mcphrasy.declarations:ClusterSheetOptions", filled="the annotators' filled sheets",
        ledger=True, then=("agreement",)),),
    ledger_tables="companions.mcphrasy.cluster_ledger:TABLES",
    extra="mcphrasy",
    modules_of_extra=("ahocorasick", "sklearn"),
)
