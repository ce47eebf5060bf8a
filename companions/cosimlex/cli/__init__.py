"""`picforge cosimlex VERB`: the CoSimLex steps, one module per verb, each a thin layer over the library."""
from companions.cosimlex import COMPANION
from picforge.verbs import SHEET_GROUPS, Area


def load():
    """Import the verb modules, each registering its verb."""
    from companions.cosimlex.cli import (candidates, evaluate, export_rating, export_selection,  # noqa: F401
                                         ingest_rating, ingest_selection, postprocess, release)


AREA = Area(COMPANION.name, COMPANION.help, "companions", load, groups=SHEET_GROUPS, companion=COMPANION,
            description="Build CoSimLex (graded word similarity in context) from SimLex pairs and a Wikipedia dump.")
