"""McPhraSy companion: multi-context retrieval for phrases and the phrase-clustering dataset (McPhraSy §3.1, §4)."""
from companions.mcphrasy.declarations import MCPHRASY
from picforge.datasets import Dataset, Release
from picforge.evaluation import Evaluate, Input
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
    ledger_tables="companions.mcphrasy.cluster_ledger:TABLES",
    extra="mcphrasy",
    modules_of_extra=("ahocorasick", "sklearn"),
)
