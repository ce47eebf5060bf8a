"""`picforge pipeline mine` (short form `picforge mine`): the mining verb, a thin layer over pipeline.mine."""
from picforge.verbs import Area


def load():
    """Import the verb modules, each registering its verb."""
    from pipeline.cli import mine  # noqa: F401


AREA = Area("pipeline", "mine annotation triplets from a Wikipedia dump (Beam)", "mining", load, short_forms=("mine",))
