"""`picforge stsb-context`: generate contexts (the default verb), then export-validation, ingest-validation, evaluate, release."""
from companions.stsb_context.cli import generate
from picforge.cli import register_verbs

VERB_MODULES = ("export_validation", "ingest_validation", "evaluate", "release")


def register(subparsers):
    """Add `stsb-context` (generation options on the command itself) and its other verbs."""
    parser = register_verbs(subparsers, __name__, VERB_MODULES, "stsb-context", verb_required=False,
                            description="Generate a context around each STS-B target phrase (default verb); then "
                                        "validate and evaluate with the verbs below. See docs/stsb_context.md.")
    generate.add_arguments(parser)
    parser.set_defaults(func=generate.run)
