"""`picforge stsb-context generate`, then export validation, ingest validation, evaluate, release."""
from companions.stsb_context import DATASET
from picforge.verbs import SHEET_GROUPS, Area


def load():
    """Import the verb modules, each registering its verb."""
    from companions.stsb_context.cli import export_validation, generate, ingest_validation  # noqa: F401


AREA = Area(DATASET.name, DATASET.help, "companions", load, groups=SHEET_GROUPS, dataset=DATASET,
            description="Generate a context around each STS-B target phrase, then validate and evaluate it. See "
                        "docs/stsb_context.md.")
