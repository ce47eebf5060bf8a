"""`picforge stsb-context generate`, then export validation, ingest validation, evaluate, release."""
from companions.stsb_context import DATASET
from picforge.verbs import Area


def load():
    """Import the verb modules, each registering its verb."""
    from companions.stsb_context.cli import generate  # noqa: F401


AREA = Area(DATASET.name, DATASET.help, "companions", load, dataset=DATASET,
            description="Generate a context around each STS-B target phrase, then validate and evaluate it. See "
                        "docs/stsb_context.md.")
