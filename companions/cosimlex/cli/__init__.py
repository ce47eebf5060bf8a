"""`picforge cosimlex VERB`: the CoSimLex steps, one module per verb, each a thin layer over the library."""
from companions.cosimlex import DATASET
from picforge.verbs import SHEET_GROUPS, Area


def load():
    """Import the verb modules, each registering its verb."""
    from companions.cosimlex.cli import (candidates, export_rating, export_selection,  # noqa: F401
                                         ingest_rating, ingest_selection, postprocess)


AREA = Area(DATASET.name, DATASET.help, "companions", load, groups=SHEET_GROUPS, dataset=DATASET,
            description="Build CoSimLex (graded word similarity in context) from SimLex pairs and a Wikipedia dump.")
