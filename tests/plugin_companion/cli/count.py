"""`picforge wordcount count --text FILE --out RUN`: the words of a text file and how often each occurs."""
from picforge.options import existing_path
from picforge import verbs


def add_options(parser):
    """The options of `picforge wordcount count`."""
    parser.add_argument("--text", required=True, type=existing_path("the UTF-8 text file to count"),
                        help="UTF-8 text file")


def run(args):
    from tests.plugin_companion.words import count_into

    manifest = count_into(args.text, args.out)
    print(f"{manifest['stage']}: {manifest['records']} words")
    return 0


VERB = verbs.register(verbs.Verb(
    "wordcount", "count", None, run, add_options,
    help="count the words of a text file into a run",
    description="Write the stage wordcount-words: each lower-cased word and its count.",
    writes=verbs.Writes("run", "run directory to write")))
