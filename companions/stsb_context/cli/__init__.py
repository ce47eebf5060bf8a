"""`picforge stsb-context`: generate contexts (the default verb), then export-validation, ingest-validation, evaluate, release."""
from companions.stsb_context.cli import evaluate, export_validation, generate, ingest_validation, release


def register(subparsers):
    """Add `stsb-context` (generation options on the command itself) and its other verbs."""
    parser = subparsers.add_parser(
        "stsb-context", description="Generate a context around each STS-B target phrase (default verb); then "
                                    "validate and evaluate with the verbs below. See docs/stsb_context.md.")
    generate.add_arguments(parser)
    parser.set_defaults(func=generate.run)
    verbs = parser.add_subparsers(dest="stsb_context_verb", metavar="VERB")
    for module in (export_validation, ingest_validation, evaluate, release):
        module.register(verbs)
