"""McPhraSy companion: multi-context retrieval for phrases and the phrase-clustering dataset (McPhraSy §3.1, §4)."""
from picforge.stage_registry import register_stages

register_stages({
    **dict.fromkeys(("mcphrasy-documents", "mcphrasy-phrases", "mcphrasy-groups"),
                    "picforge mcphrasy groups --run MINED_RUN --out {run}"),
    **dict.fromkeys(("mcphrasy-contexts", "mcphrasy-triplets"),
                    "picforge mcphrasy contexts --phrases FILE --run MINED_RUN --out {run}"),
    "mcphrasy-clusters": "picforge mcphrasy reconcile --run {run}",
})
