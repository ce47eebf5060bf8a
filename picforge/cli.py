"""The `picforge` console command: a table of contents of each area's `cli` package of thin verbs."""
import argparse
import atexit
import functools
import gc
import importlib
import logging
import os
import sys
import textwrap

from picforge import __version__, companions, files, options, paths, progress, redact, runlock
from picforge.errors import InputError, NothingToDo
from picforge.long_lived import long_lived, one_command_process

# The table of contents of `picforge --help`: section → {command: (cli package that adds it, one-line help)}; the
# section "companions" lists the companions the installed distributions declare (picforge.companions). Only the
# package of the command being run is imported, so `--help` loads no heavy library. Each package defines
# register(subparsers), adding its parsers with set_defaults(func=...); a verb that accepts Beam's runner flags
# sets `beam_args=[]`, and the flags argparse does not know then arrive as args.beam_args.
CORE_SECTIONS = {
    "mining": {
        "mine": ("pipeline.cli", "mine annotation triplets from a Wikipedia dump (Beam)"),
    },
    "annotation": {
        "annotate": ("annotation.cli", "expert sheets, MTurk and expert verification, PS verification and the "
                                       "final export, recorded in one ledger"),
    },
    "build & publish": {
        "build": ("release.cli", "build the PS, PR-pass, PR-page and PSD release from a run directory"),
        "publish": ("release.cli", "upload a release to s3://, gs:// or hf://org/name (dry run unless --live)"),
        "evaluate": ("release.cli", "sanity-check a release with the PiC baselines and score span predictions"),
    },
}
CORE_COMMANDS = {name: module for section in CORE_SECTIONS.values() for name, (module, _) in section.items()}


@functools.lru_cache(maxsize=None)
def companion_registry():
    """The installed companions whose command word is free, and {name: why not} for those that cannot be used (an
    entry point that does not load, or one taking a core command)."""
    found = companions.registry()
    clashes = {name: f"companion {name} ({found.distributions[name]}) takes the core command {name!r}; rename it"
               for name in found.companions if name in CORE_COMMANDS}
    usable = {name: companion for name, companion in found.companions.items() if name not in clashes}
    return usable, {**found.broken, **clashes}


def sections():
    """The table of contents: the core's sections, then the companions (when any is installed)."""
    usable, _ = companion_registry()
    listed = {name: (companion.cli, companion.help) for name, companion in usable.items()}
    return {**CORE_SECTIONS, **({"companions": listed} if listed else {})}


def commands():
    """{command word: the cli package that adds it}, core and companions."""
    return {name: module for section in sections().values() for name, (module, _) in section.items()}


def table_of_contents():
    """`picforge --help`'s epilog: one block per section, one line per command."""
    contents = sections()
    width = max(len(name) for section in contents.values() for name in section) + 2
    blocks = []
    for title, section in contents.items():
        lines = [f"{title}:"]
        for name, (_, text) in section.items():
            wrapped = textwrap.wrap(text, 80 - width - 2)
            lines.append(f"  {name:<{width}}{wrapped[0]}")
            lines.extend(f"  {'':<{width}}{more}" for more in wrapped[1:])
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def register_verbs(subparsers, package, modules, command=None, groups=None, verb_required=True, **command_text):
    """The one way a command's verbs register: each module `package.<name>` of `modules` adds its parser with
    register(parsers). With `command` the verbs sit under `picforge COMMAND` (its `help`/`description` in
    `command_text`); a module whose GROUP names one of `groups` ({name: help}) sits under `COMMAND GROUP`. Returns
    the command's parser (or `subparsers` when there is no command)."""
    parser = subparsers.add_parser(command, **command_text) if command else None
    verbs = (parser.add_subparsers(dest="verb", required=verb_required, metavar="VERB") if parser is not None
             else subparsers)
    grouped = {name: verbs.add_parser(name, help=text, description=text).add_subparsers(
        dest="target", required=True, metavar="TARGET") for name, text in (groups or {}).items()}
    for name in modules:
        module = importlib.import_module(f"{package}.{name}")
        module.register(grouped[module.GROUP] if getattr(module, "GROUP", None) else verbs)
    return parser if parser is not None else subparsers


def command_name(argv):
    """The command word of `argv` (the first argument not starting with '-' nor the value of `--encoding`), or None."""
    for before, arg in zip([None, *argv], argv):
        if not arg.startswith("-") and before != "--encoding":
            return arg
    return None


def register_area_stages():
    """Import the package of every core area (each light): each registers the stages it writes, so a message about
    another area's missing stage names the command that makes it (a companion's stages come with its declaration,
    picforge.stage_registry)."""
    for module in sorted(set(CORE_COMMANDS.values())):
        importlib.import_module(module.rpartition(".")[0])


def refuse_broken_companion(command):
    """A CompanionError when `command` is a companion that cannot be used; a warning line for each other one."""
    _, broken = companion_registry()
    if command in broken:
        raise companions.CompanionError(broken[command])
    for line in broken.values():
        options.warn_once(f"picforge: warning: {line}; its command is left out")


class ContentsParser(argparse.ArgumentParser):
    """The top `picforge` parser: its epilog, the table of contents, is made only when its help is printed, so a
    core command never reads the companion registry."""

    epilog = property(lambda self: table_of_contents(), lambda self, value: None)


def build_parser(command=None):
    """The `picforge` parser; only `command`'s cli package is imported, the others are names in the contents (a core
    command's parser reads no companion declaration)."""
    parser = ContentsParser(prog="picforge", description="Build phrase-in-context datasets.",
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"picforge {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="log progress at INFO level (-vv: DEBUG, every library's log too); secrets show as ***")
    parser.add_argument("--encoding", metavar="NAME",
                        help="the encoding of the CSV/TSV sheets and lists this command reads when they are not "
                             "UTF-8 (e.g. cp1252); without it a file that is not UTF-8 is refused")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                       parser_class=argparse.ArgumentParser,
                                       help="one of the commands below; `picforge COMMAND --help` for its options")
    if command in CORE_COMMANDS:
        known = CORE_COMMANDS
    else:
        known = commands()
        refuse_broken_companion(command)
    chosen = known.get(command)
    for name, module in known.items():
        if module != chosen:
            subparsers.add_parser(name, add_help=False)
    if chosen:
        importlib.import_module(chosen).register(subparsers)
    return parser


def error_line(err):
    """One line for an error: `PATH: reason; what to do` for an OSError on a named file, picforge's own message
    (an InputError may list one problem a line), else a library message's first line (multi-line text, such as an
    SQL statement, stays behind -v); secrets as ***."""
    if isinstance(err, OSError) and err.filename:
        fix = files.WRITE_FIXES.get(err.errno)
        line = f"{err.filename}: {err.strerror or err}{f'; {fix}' if fix else ''}"
    elif isinstance(err, InputError):
        line = str(err)
    else:
        line = (str(err).strip() or type(err).__name__).splitlines()[0]
    return redact.redact_text(line, *redact.environment_secrets())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    verbose = bool({"-v", "-vv", "--verbose"} & set(argv))
    try:
        return run_command(argv)
    except (InputError, OSError) as err:
        if verbose:
            raise
        print(f"picforge: error: {error_line(err)}", file=sys.stderr)
        return 2
    except NothingToDo as done:
        print(f"picforge: {done}")
        return 0
    except ModuleNotFoundError as err:
        if verbose:
            raise
        line = options.missing_extra_line(err)
        print(f"picforge: error: {line or f'{err} (run `picforge -v …` for the traceback)'}", file=sys.stderr)
        return 2 if line else 1
    except Exception as err:
        if verbose:
            raise
        print(f"picforge: error: {type(err).__name__}: {error_line(err)} (run `picforge -v …` for the traceback)",
              file=sys.stderr)
        return 1


def parsed_actions(parser, args):
    """The argparse actions of the parsers `args` went through (top parser, command, verb…), one per destination:
    a verb's own option wins over its command's option of the same name."""
    chain = []
    while parser is not None:
        chain.append(parser)
        chosen = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = chosen[0].choices.get(getattr(args, chosen[0].dest, None)) if chosen else None
    deepest = {action.dest: depth for depth, parser in enumerate(chain) for action in parser._actions}
    return [action for depth, parser in enumerate(chain) for action in parser._actions if deepest[action.dest] == depth]


def run_command(argv):
    """Parse `argv`, check its outputs (picforge.paths) and run its command (errors are main's to report)."""
    redact.remember_secrets(*argv)
    parser = build_parser(command_name(argv))
    args, extra = parser.parse_known_args(argv)
    if extra and not hasattr(args, "beam_args"):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if hasattr(args, "beam_args"):
        args.beam_args = extra
    redact.configure_logging(args.verbose)
    logging.getLogger(progress.log.name).setLevel(logging.INFO)  # stage progress lines show by default
    if not args.verbose:  # a failing DoFn's traceback, logged by Beam: main reports its error in one line
        logging.getLogger("apache_beam.runners.common").setLevel(logging.CRITICAL)
    with long_lived():  # every area's cli package, alive until the process ends
        register_area_stages()
    actions = parsed_actions(parser, args)
    paths.guard_outputs(args, actions)
    from picforge.sheets import named_encoding  # openpyxl: only once a command runs
    verb = (args.command, getattr(args, "verb", None), getattr(args, "target", None))
    words = " ".join(word for word in verb if word)
    makes_runs = any(getattr(paths.declared_output(a), "kind", None) == "run" and getattr(args, a.dest, None)
                     for a in actions)  # a run output given: the runs it makes name it as their maker
    with named_encoding(args.encoding), progress.heartbeat(words), runlock.verb_holds(f"picforge {words}", makes_runs):
        lock_own_kind_of_run(args, words)
        code = args.func(args)  # every run it writes is marked and locked until it ends (picforge.runlock)
    if code == 0:
        paths.record_reads(args, actions)
    after = getattr(args, "after_success", None)  # a command group's epilogue, e.g. annotate's next-step hints
    if code == 0 and after is not None:
        after(args)
    step = getattr(sys.modules[args.func.__module__], "next_step", None)  # a verb's own next command, on stderr
    if code == 0 and step is not None:  # (where its progress goes), so a verb's stdout stays its data, e.g. JSON
        print(f"next: {step(args)}", file=sys.stderr)
    return code


def lock_own_kind_of_run(args, words):
    """Lock the local --run of a verb that is not read-only when the run's marker names this verb's command as its
    maker (a companion verb on its own run): a second writer is refused before any work, not at its first write.
    A mined run read by `annotate` is not locked here: its ledger has its own turn-taking."""
    run = getattr(args, "run", None)
    if (isinstance(run, str) and options.is_local(run) and not getattr(args, "read_only", False)
            and runlock.run_command(run) == f"picforge {args.command}"):
        from picforge.rundir import take_run
        take_run(run, f"picforge {words}")


def console_main():
    """The `picforge` command: main() on this process's arguments, in a process that ends with it (so what it loads
    is frozen, `picforge.long_lived`); what is left is frozen too, and the process ends by `end_process`."""
    one_command_process()
    code = main()
    gc.freeze()
    end_process(code)


def end_process(code):
    """End this process with `code` once its command is done: Python's exit handlers run, logs and output are
    flushed, then the process ends without the native libraries' exit-time destructors, where a thread pool still
    alive (torch's, OpenMP's) would abort a finished command (`terminate called without an active exception`,
    exit 134) and a script would see a failure."""
    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(console_main())
