"""`picforge wordcount count|release`: the plug-in companion's verbs (one module each)."""
from picforge.verbs import Area
from tests.plugin_companion import COMPANION


def load():
    """Import the verb modules, each registering its verb."""
    from tests.plugin_companion.cli import count, release  # noqa: F401


AREA = Area(COMPANION.name, COMPANION.help, "companions", load, companion=COMPANION,
            description="The word counts of a text file, and their release.")
