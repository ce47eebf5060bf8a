"""`picforge cosimlex VERB`: the CoSimLex steps, one module per verb, each a thin layer over the library."""
from companions.cosimlex import DATASET
from picforge.verbs import Area


def load():
    """Import the verb modules, each registering its verb."""
    from companions.cosimlex.cli import candidates, postprocess  # noqa: F401


AREA = Area(DATASET.name, DATASET.help, "companions", load, dataset=DATASET,
            description="Build CoSimLex (graded word similarity in context) from SimLex pairs and a Wikipedia dump.")
