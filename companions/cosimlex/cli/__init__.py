"""`picforge cosimlex VERB`: the CoSimLex steps, one module per verb, each a thin layer over the library."""
import importlib

VERB_MODULES = ("candidates", "export_selection", "ingest_selection", "export_rating", "ingest_rating",
                "postprocess", "evaluate", "release")


def register(subparsers):
    parser = subparsers.add_parser(
        "cosimlex", description="Build CoSimLex (graded word similarity in context) from SimLex pairs and a Wikipedia dump.")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name in VERB_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(verbs)
