"""`picforge mcphrasy VERB`: the McPhraSy companion, one module per verb, each a thin layer over the library; what
they share is in companions.mcphrasy.cli.common."""
from companions.mcphrasy import DATASET
from picforge.verbs import SHEET_GROUPS, Area


def load():
    """Import the verb modules, each registering its verb."""
    from companions.mcphrasy.cli import (agreement, contexts, export_clusters, groups, ingest_clusters,  # noqa: F401
                                         reconcile)


AREA = Area(DATASET.name, DATASET.help, "companions", load, groups=SHEET_GROUPS, dataset=DATASET,
            description="McPhraSy companion (multi-context phrase similarity): contexts and A.1 triplets for a "
                        "phrase list, and the phrase-clustering dataset (groups, cluster sheets, agreement).")
