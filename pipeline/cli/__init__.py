"""`picforge mine`: the mining verb, a thin layer over pipeline.mine."""
from picforge.cli import register_verbs


def register(subparsers):
    """Add the mining verb to the `picforge` command."""
    register_verbs(subparsers, __name__, ("mine",))
