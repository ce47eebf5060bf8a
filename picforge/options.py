"""Beam pipeline options shared by every picforge pipeline (runner flags pass straight through), and the
argparse types that refuse impossible numbers (NaN, infinity, negative counts) on every command."""
import argparse
import dataclasses
import functools
import importlib.util
import math
import os
import sys
import urllib.parse

from picforge import verbs
from picforge.errors import InputError
from picforge.release_check import verify_release

SETUP_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "setup.py")


EMBEDDED_RUNNER = "picforge.embedded_runner.EmbeddedRunner"  # what runs when no --runner is given
DASK_RUNNER = "picforge.dask_runner.DaskRunner"
# Beam's stock runners picforge refuses: (why, the runner to name instead)
REFUSED_RUNNERS = {"DaskRunner": ("loses data on these pipelines, see picforge/dask_runner.py", DASK_RUNNER),
                   "DirectRunner": ("downloads Prism at run time, see picforge/embedded_runner.py", EMBEDDED_RUNNER)}
# runners whose workers run on this machine (no setup.py to ship)
LOCAL_RUNNERS = (EMBEDDED_RUNNER, "PrismRunner", DASK_RUNNER)
# runner → (a module it needs, the picforge extra that installs it)
RUNNER_EXTRAS = {DASK_RUNNER: ("distributed", "dask"), "DataflowRunner": ("google.cloud.storage", "gcp")}
# top-level name of an optional module the core needs → the picforge extra that installs it (a companion's extra
# comes with its declaration, picforge.datasets)
EXTRA_OF_MODULE = {"psycopg": "postgres", "dask": "dask", "distributed": "dask", "google": "gcp", "apitools": "gcp"}


def missing_extra_line(err):
    """The one line for a ModuleNotFoundError of an optional package (naming the extra to install), else None."""
    module = (err.name or "").split(".")[0]
    found = ("picforge", EXTRA_OF_MODULE[module]) if module in EXTRA_OF_MODULE else verbs.extra_of_module(module)
    if found is None:
        return None
    distribution, extra = found
    return (f"this command needs the optional package {err.name!r}, which is not installed: "
            f"pip install '{distribution}[{extra}]' (from a clone: pip install -e '.[{extra}]')")


def check_runner_installed(runner):
    """A one-line InputError when the runner's optional dependencies are not installed."""
    module, extra = RUNNER_EXTRAS.get(runner, (None, None))
    if module is None:
        return
    try:
        installed = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        installed = False
    if not installed:
        raise InputError(f"--runner {runner} needs the {extra} extra: pip install 'picforge[{extra}]'")


@functools.lru_cache(maxsize=None)
def warn_once(line):
    """Print `line` on stderr the first time this process is told it (a verb builds its options once per stage)."""
    print(line, file=sys.stderr)


def pipeline_options(beam_args, runner=None):
    """PipelineOptions from leftover command-line flags, on `runner` unless they name one (default: the embedded
    runner); Beam's stock DirectRunner and DaskRunner are refused in one line naming ours."""
    from apache_beam.options.pipeline_options import PipelineOptions, SetupOptions, StandardOptions

    options = PipelineOptions(list(beam_args or []))
    standard = options.view_as(StandardOptions)
    standard.runner = standard.runner or runner or EMBEDDED_RUNNER
    if standard.runner in REFUSED_RUNNERS:
        why, ours = REFUSED_RUNNERS[standard.runner]
        raise InputError(f"--runner {standard.runner}: Beam's stock runner of that name {why}; give --runner {ours} "
                         "(nothing was run)")
    check_runner_installed(standard.runner)
    setup = options.view_as(SetupOptions)
    setup.save_main_session = False
    if standard.runner not in LOCAL_RUNNERS and not setup.setup_file and os.path.exists(SETUP_FILE):
        setup.setup_file = SETUP_FILE
    return options


def is_local(path):
    """True for a path on this machine (not gs://, s3://, https:// or hf://, which their readers check)."""
    return "://" not in path


def existing_path(what, directory=False):
    """argparse type: a local file (or `directory`) that exists, else an InputError naming it and `what` it must be;
    checked as the command starts, before heavy imports (a URL passes: its reader checks it)."""
    def check(text):
        if is_local(text) and not (os.path.isdir(text) if directory else os.path.isfile(text)):
            found = ("a directory" if os.path.isdir(text) else "a file") if os.path.exists(text) else "no such path"
            raise InputError(f"{text}: {found}; give {what}")
        return text
    check.existing = "directory" if directory else "file"  # what the argument names, for tools that walk the CLI
    return check


def existing_release(text):
    """argparse type of --release: a local release folder that passes verify_release (every file as MANIFEST.json
    lists it), checked before the verb reads anything; a URL passes (its reader checks it)."""
    existing_path("the release folder `picforge build` or a companion's `release` verb wrote", directory=True)(text)
    if is_local(text):
        verify_release(text)
    return text


existing_release.existing = "release"  # what --release names, for tools that walk the CLI


def add_release_input(parser, help):
    """--release RELEASE_DIR (required), the release a verb reads."""
    return parser.add_argument("--release", required=True, metavar="RELEASE_DIR", type=existing_release, help=help)


def add_sheets_input(parser, help, metavar="SHEET"):
    """--sheets SHEET… (required), the returned sheets a verb ingests."""
    return parser.add_argument("--sheets", required=True, nargs="+", metavar=metavar, help=help)


def url_of(option, schemes, local=False):
    """argparse type of `option`: a URL of one of `schemes` with a host (or, when `local`, a path on this machine),
    else an InputError as the options are parsed, before anything runs (`file:///…` is no server)."""
    def check(text):
        if local and is_local(text):
            return text
        parts = urllib.parse.urlsplit(text)
        if parts.scheme.lower() not in schemes or not parts.netloc:
            given = f"the scheme {parts.scheme}://" if "://" in text else "no URL"
            allowed = " or ".join([f"{scheme}://" for scheme in schemes] + (["a local path"] if local else []))
            raise InputError(f"{option} {text}: {given} is not supported here; give {allowed} (nothing was run)")
        return text
    return check


http_url = {name: url_of(name, ("http", "https")) for name in ("--languagetool", "--categories-api-url")}


def finite_float(text):
    """argparse type: a number that is neither NaN nor infinite."""
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_float(text):
    """argparse type: a finite number above 0 (a timeout, a scale)."""
    value = finite_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be above 0")
    return value


def at_least(minimum):
    """argparse type: a whole number of at least `minimum`."""
    def parse(text):
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text!r} must be a whole number of at least {minimum}")
        return value
    parse.__name__ = f"whole number >= {minimum}"
    return parse


positive_int = at_least(1)
non_negative_int = at_least(0)


def existing_run(text):
    """argparse type of --run: a local run directory that exists (a URL passes: its reader checks it), else an
    InputError before any heavy import."""
    if is_local(text) and not os.path.isdir(text):
        raise InputError(f"--run {text}: no such run directory; give the folder an earlier step wrote (`picforge mine "
                         "--out`, or the verb that starts this run)")
    return text


existing_run.existing = "run"  # what --run names, for tools that walk the CLI (tests/test_cli_grammar.py)


def add_run_option(parser, holding, *, required=True):
    """--run RUN_DIR, the existing run a verb reads (and adds its stages to)."""
    return parser.add_argument("--run", required=required, metavar="RUN_DIR", type=existing_run,
                               help=f"run directory holding {holding}")


class _DeviceSpec(argparse.Action):
    """--device and --precision into one device spec (`encoders.device_spec`), in either order."""

    def __call__(self, parser, namespace, value, option_string=None):
        from picforge.encoders import device_spec, split_device

        device, precision = split_device(getattr(namespace, self.dest, None))
        namespace.device = device_spec(*((value, precision) if option_string == "--device" else (device, value)))


def add_device_option(parser, encodes="the encoder"):
    """--device auto|cpu|cuda (not part of any fingerprint: it changes where, not what) and --precision fp32|bf16
    for every verb that encodes; both land in `args.device` as one device spec ("cpu+bf16")."""
    from picforge.encoders import DEVICES, PRECISIONS
    parser.add_argument("--device", choices=DEVICES, default="auto", action=_DeviceSpec,
                        help=f"where {encodes} runs: auto = cuda when torch sees a GPU (on the worker), else cpu "
                             "(default auto)")
    parser.add_argument("--precision", choices=PRECISIONS, dest="device", action=_DeviceSpec,
                        help=f"precision of {encodes}'s matrix products: fp32 (default) or bf16 (bfloat16 autocast, "
                             "where the CPU or GPU has it: faster, scores drift in the third decimal)")


def check_device(device, beam_options=None):
    """A one-line InputError, before any work, when this machine cannot give `device` (cuda without a GPU): always
    for encoding done here, for a Beam job only when its runner's workers run here."""
    from picforge.encoders import resolve_device

    if beam_options is not None:
        from apache_beam.options.pipeline_options import StandardOptions

        if beam_options.view_as(StandardOptions).runner not in LOCAL_RUNNERS:
            return
    try:
        resolve_device(device)
    except (RuntimeError, ValueError) as error:
        raise InputError(str(error)) from None


def options_from_args(options_class, args, **converted):
    """An options dataclass filled from the parsed arguments of the same names (`converted` gives the values a flag
    spells differently), so an option is declared once as a field and once as a flag, never copied by hand."""
    names = [field.name for field in dataclasses.fields(options_class)]
    missing = [name for name in names if name not in converted and not hasattr(args, name)]
    if missing:
        raise TypeError(f"{options_class.__name__}: no command-line option sets {', '.join(missing)}")
    return options_class(**{name: converted[name] if name in converted else getattr(args, name) for name in names})
