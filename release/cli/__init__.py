"""`picforge build`, `picforge publish` and `picforge evaluate`: one module per verb, the work in release."""
from release.cli import build, evaluate, publish


def register(subparsers):
    """Add the release verbs to the `picforge` command."""
    for verb in (build, publish, evaluate):
        verb.register(subparsers)
