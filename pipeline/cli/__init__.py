"""`picforge mine`: the mining verb, a thin layer over pipeline.mine."""
from pipeline.cli import mine


def register(subparsers):
    """Add the mining verb to the `picforge` command."""
    mine.register(subparsers)
