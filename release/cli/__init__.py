"""`picforge build`, `picforge publish` and `picforge evaluate`: one module per verb, the work in release."""
from picforge.cli import register_verbs

VERB_MODULES = ("build", "publish", "evaluate")


def register(subparsers):
    """Add the release verbs to the `picforge` command."""
    register_verbs(subparsers, __name__, VERB_MODULES)
