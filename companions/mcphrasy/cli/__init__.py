"""`picforge mcphrasy VERB`: the McPhraSy companion, one module per verb, each a thin layer over the library; what
they share is in companions.mcphrasy.cli.common."""
from companions.mcphrasy import DATASET
from picforge.verbs import Area


def load():
    """Import the verb modules, each registering its verb."""
    from companions.mcphrasy.cli import agreement, contexts, groups, reconcile  # noqa: F401


AREA = Area(DATASET.name, DATASET.help, "companions", load, dataset=DATASET,
            description="McPhraSy companion (multi-context phrase similarity): contexts and A.1 triplets for a "
                        "phrase list, and the phrase-clustering dataset (groups, cluster sheets, agreement).")
