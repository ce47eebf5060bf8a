"""`picforge build`, `picforge publish` and `picforge eval`: one module per verb, the work in pipeline.release."""
from pipeline.release.cli import build, evaluate, publish


def register(subparsers):
    """Add the release verbs to the `picforge` command."""
    for verb in (build, publish, evaluate):
        verb.register(subparsers)
