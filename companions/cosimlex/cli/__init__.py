"""`picforge cosimlex VERB`: the CoSimLex steps, one module per verb, each a thin layer over the library."""
from picforge.cli import register_verbs

VERB_MODULES = ("candidates", "export_selection", "ingest_selection", "export_rating", "ingest_rating",
                "postprocess", "evaluate", "release")


def register(subparsers):
    register_verbs(subparsers, __name__, VERB_MODULES, "cosimlex", description="Build CoSimLex (graded word "
                   "similarity in context) from SimLex pairs and a Wikipedia dump.")
