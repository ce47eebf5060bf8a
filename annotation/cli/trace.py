"""`picforge annotate trace --id ID`: which rounds, which workers and experts, which files verified a released id."""
from annotation.cli.common import add_ledger_options, open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate trace`."""
    add_ledger_options(parser)
    parser.add_argument("--id", dest="release_id", required=True, metavar="ID",
                        help="a release row's id (<triplet>-1, <triplet>-2) or a triplet id")


def run(args):
    from annotation.trace import render_trace, trace
    with open_ledger(args).read() as q:
        print(render_trace(trace(q, args.release_id)))
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "trace", None, run, add_options,
    help="how a released id was verified: rounds, workers, experts, files",
    defaults=dict(read_only=True)))
