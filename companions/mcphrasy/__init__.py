"""McPhraSy companion: multi-context retrieval for phrases and the phrase-clustering dataset (McPhraSy §3.1, §4)."""
from companions.mcphrasy.declarations import MCPHRASY
from picforge.companions import Companion
from picforge.stages import produced

COMPANION = Companion(
    name="mcphrasy",
    help="McPhraSy: phrase contexts from a corpus, phrase groups, cluster annotation, release",
    stages=produced(MCPHRASY),
    schemas="companions.mcphrasy.schemas",
    release="companions.mcphrasy.release:write_release",
    extra="mcphrasy",
    modules_of_extra=("ahocorasick", "sklearn"),
)
