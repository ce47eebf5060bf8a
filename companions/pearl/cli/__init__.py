"""`picforge pearl build|paraphrase|release`: the PEARL phrase corpus (one module per verb of its own, the work in
companions.pearl; `release` is the core's generic verb, from the declaration)."""
from companions.pearl import DATASET
from picforge.verbs import Area


def load():
    """Import the verb modules, each registering its verb."""
    from companions.pearl.cli import build, paraphrase  # noqa: F401


AREA = Area(DATASET.name, DATASET.help, "companions", load, dataset=DATASET,
            description="Typed phrases, augmentations and hard negatives from a mining run's sentences; an optional "
                        "LLM paraphrase per phrase; a Hugging Face release. See docs/pearl.md.")
