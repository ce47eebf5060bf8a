"""McPhraSy's stage names and the defaults its Beam transforms share with their declarations, in a module that
imports nothing (so the declarations and the transforms both read it)."""
DOCUMENTS = "mcphrasy-documents"
CONTEXTS = "mcphrasy-contexts"
TRIPLETS = "mcphrasy-triplets"
PHRASES = "mcphrasy-phrases"
GROUPS = "mcphrasy-groups"
CLUSTERS = "mcphrasy-clusters"
MAX_CONTEXTS = 300  # m, contexts kept per phrase (§3.1)
