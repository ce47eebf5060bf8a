"""`picforge annotate trace --id ID`: which rounds, which workers and experts, which files verified a released id."""
from annotation.cli import add_ledger_options, open_ledger

GROUP = None


def register(subparsers):
    parser = subparsers.add_parser("trace", help="how a released id was verified: rounds, workers, experts, files")
    add_ledger_options(parser)
    parser.add_argument("--id", dest="release_id", required=True, metavar="ID", help="a release row's id (<triplet>-1, <triplet>-2) or a triplet id")
    parser.set_defaults(func=run, read_only=True)


def run(args):
    from annotation.trace import render_trace, trace
    with open_ledger(args).read() as q:
        print(render_trace(trace(q, args.release_id)))
    return 0
