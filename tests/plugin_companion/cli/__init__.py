"""`picforge wordcount count`: the plug-in companion's own verb (`wordcount release` is the core's, from its
declaration)."""
from picforge.verbs import Area
from tests.plugin_companion import DATASET


def load():
    """Import the verb modules, each registering its verb."""
    from tests.plugin_companion.cli import count  # noqa: F401


AREA = Area(DATASET.name, DATASET.help, "companions", load, dataset=DATASET,
            description="The word counts of a text file, and their release.")
