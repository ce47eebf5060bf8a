"""`picforge wordcount count|release`: the plug-in companion's verbs (one module each)."""
from picforge.cli import register_verbs

VERB_MODULES = ("count", "release")


def register(subparsers):
    """Add `wordcount` and its verbs to the `picforge` command."""
    register_verbs(subparsers, __name__, VERB_MODULES, "wordcount", help="count words and release the counts",
                   description="The word counts of a text file, and their release.")
