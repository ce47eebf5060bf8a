"""`picforge pearl build|paraphrase|release`: the PEARL phrase corpus (one module per verb, the work in
companions.pearl)."""
from companions.pearl import COMPANION
from picforge.verbs import Area


def load():
    """Import the verb modules, each registering its verb."""
    from companions.pearl.cli import build, paraphrase, release  # noqa: F401


AREA = Area(COMPANION.name, COMPANION.help, "companions", load, companion=COMPANION,
            description="Typed phrases, augmentations and hard negatives from a mining run's sentences; an optional "
                        "LLM paraphrase per phrase; a Hugging Face release. See docs/pearl.md.")
