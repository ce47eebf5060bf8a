"""`picforge annotate report`: funnel through every round, acceptance rates, PS agreement, workers."""
import json
import sys

from annotation.cli import add_ledger_options, open_ledger
from picforge.paths import add_output

GROUP = None


def register(subparsers):
    parser = subparsers.add_parser("report", help="funnel and acceptance rates (PiC Table A1), per-worker stats")
    add_ledger_options(parser)
    add_output(parser, "--json", kind="file", owns=("reports",), metavar="PATH", help="also write the report as JSON")
    add_output(parser, "--out", kind="file", owns=("reports",), metavar="PATH", help="write the Markdown here instead of standard output")
    parser.set_defaults(func=run)


def run(args):
    from annotation.report import build_report, render_markdown
    report = build_report(open_ledger(args), args.run)
    text = render_markdown(report)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        print(text, end="")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=2, sort_keys=True)
    written = [path for path in (args.out, args.json) if path]
    if args.out or args.json:
        print(f"wrote {' and '.join(written)}", file=sys.stdout if args.out else sys.stderr)
    return 0
