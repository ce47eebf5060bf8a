"""The `picforge` console command: one subcommand per module, each a thin layer over library calls."""
import argparse
import importlib
import logging
import sys

from pipeline import __version__, progress
from pipeline.errors import InputError

# Each module defines register(subparsers), adding its parser with set_defaults(func=...).
COMMAND_MODULES = (
    "pipeline.mine",
    "annotation.cli",
    "pipeline.stsb_context.cli",
    "pipeline.cosimlex.cli",
    "pipeline.release.cli",
)


def build_parser():
    parser = argparse.ArgumentParser(prog="picforge", description="Build phrase-in-context datasets.")
    parser.add_argument("--version", action="version", version=f"picforge {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress at INFO level")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv=None):
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "beam_args", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger(progress.log.name).setLevel(logging.INFO)  # stage progress lines show by default
    try:
        return args.func(args, extra) if getattr(args, "beam_args", False) else args.func(args)
    except InputError as err:
        print(f"picforge: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
