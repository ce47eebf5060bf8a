"""`picforge annotate report`: funnel through every round, acceptance rates, PS agreement, workers."""
import json
import sys

from annotation.cli.common import add_ledger_options, open_ledger
from picforge.files import write_atomically
from picforge.paths import add_output
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate report`."""
    add_ledger_options(parser)
    add_output(parser, "--json", kind="file", owns=("reports",), metavar="PATH", help="also write the report as JSON")


def run(args):
    from annotation.report import build_report, render_markdown
    report = build_report(open_ledger(args), args.run)
    text = render_markdown(report)
    if args.out:
        write_atomically(args.out, text)
    else:
        print(text, end="")
    if args.json:
        write_atomically(args.json, json.dumps(report, indent=2, sort_keys=True))
    written = [path for path in (args.out, args.json) if path]
    if args.out or args.json:
        print(f"wrote {' and '.join(written)}", file=sys.stdout if args.out else sys.stderr)
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "report", None, run, add_options,
    writes=verbs.Writes("file", "write the Markdown here instead of standard output", optional=True,
                        within="reports", metavar="PATH"),
    help="funnel and acceptance rates (PiC Table A1), per-worker stats",
    defaults=dict(read_only=True)))
