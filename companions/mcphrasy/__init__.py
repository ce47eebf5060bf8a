"""McPhraSy companion: multi-context retrieval for phrases and the phrase-clustering dataset (McPhraSy §3.1, §4)."""
from picforge.companions import Companion

COMPANION = Companion(
    name="mcphrasy",
    help="McPhraSy: phrase contexts from a corpus, phrase groups, cluster annotation, release",
    stages={
        **dict.fromkeys(("mcphrasy-documents", "mcphrasy-phrases", "mcphrasy-groups"),
                        "picforge mcphrasy groups --run MINED_RUN --out {run}"),
        **dict.fromkeys(("mcphrasy-contexts", "mcphrasy-triplets"),
                        "picforge mcphrasy contexts --phrases FILE --run MINED_RUN --out {run}"),
        "mcphrasy-clusters": "picforge mcphrasy reconcile --run {run}",
    },
    schemas="companions.mcphrasy.schemas",
    release="companions.mcphrasy.release:write_release",
    extra="mcphrasy",
    modules_of_extra=("ahocorasick", "sklearn"),
)
