"""The `picforge` console command: the verbs of every installed area (picforge.verbs, found through the entry-point
group `picforge.areas`), one grammar `picforge AREA VERB [TARGET]`."""
import argparse
import atexit
import gc
import logging
import os
import sys
import textwrap

from picforge import __version__, files, hints, options, paths, progress, redact, runlock, verbs
from picforge.errors import InputError, NothingToDo
from picforge.long_lived import long_lived, one_command_process

# How a short form shows in `picforge --help`.
SHORT_FORM = "short for `picforge {area} {verb}`"
# The order of the sections of `picforge --help` (an area declaring another section comes after them).
SECTIONS = ("mining", "annotation", "build & publish", "companions")


def contents():
    """{section: {command word: one-line help}}: every area, then the short forms of its verbs, by SECTIONS."""
    found = verbs.areas()
    listed = {}
    ranked = sorted(found.areas.values(), key=lambda area: SECTIONS.index(area.section) if area.section in SECTIONS
                    else len(SECTIONS))
    for area in ranked:
        section = listed.setdefault(area.section, {})
        section[area.name] = area.help
        section.update({word: SHORT_FORM.format(area=area.name, verb=word) for word in area.short_forms})
    return listed


def table_of_contents():
    """`picforge --help`'s epilog: one block per section, one line per command; each area that cannot be used is one
    warning line on stderr."""
    for line in verbs.areas().broken.values():
        options.warn_once(f"picforge: warning: {line}; its command is left out")
    listed = contents()
    width = max(len(name) for section in listed.values() for name in section) + 2
    blocks = []
    for title, section in listed.items():
        lines = [f"{title}:"]
        for name, text in section.items():
            wrapped = textwrap.wrap(text, 80 - width - 2)
            lines.append(f"  {name:<{width}}{wrapped[0]}")
            lines.extend(f"  {'':<{width}}{more}" for more in wrapped[1:])
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def command_name(argv):
    """The command word of `argv` (the first argument not starting with '-' nor the value of `--encoding`), or None."""
    for before, arg in zip([None, *argv], argv):
        if not arg.startswith("-") and before != "--encoding":
            return arg
    return None


def register_area_stages():
    """Load every area's declaration (each light): its package registers the stages it writes, so a message about
    another area's missing stage names the command that makes it."""
    verbs.areas()


class ContentsParser(argparse.ArgumentParser):
    """The top `picforge` parser: its epilog, the table of contents, is made only when its help is printed."""

    epilog = property(lambda self: table_of_contents(), lambda self, value: None)


def build_parser(command=None):
    """The `picforge` parser; only `command`'s verbs are imported (the other commands are names in the contents)."""
    found = verbs.areas()
    if command in found.broken and command not in [*found.areas, *found.short_forms]:
        raise verbs.AreaError(found.broken[command])  # (a word another area took runs that area's verb)
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
    for word in [*found.areas, *found.short_forms]:
        if word != command:
            subparsers.add_parser(word, add_help=False)
        elif word in found.short_forms:
            verbs.add_verb(subparsers, verbs.find((word,)), word)
        else:
            verbs.add_area(subparsers, found.areas[word])
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
    with long_lived():  # every area's declaration, alive until the process ends
        register_area_stages()
    declared = args.declared
    area = verbs.areas().areas[declared.area]
    if len(verbs.canonical_words(declared)) == 1:  # one name however it was spelled: `mine`, not `pipeline mine`
        args.command, args.verb = declared.name, None
    actions = parsed_actions(parser, args)
    paths.guard_outputs(args, actions, verbs.declared_outputs(declared, args))
    from picforge.sheets import named_encoding  # openpyxl: only once a command runs
    words = paths.verb_name(args)
    makes_runs = any(getattr(paths.declared_output(a), "kind", None) == "run" and getattr(args, a.dest, None)
                     for a in actions)  # a run output given: the runs it makes name it as their maker
    with named_encoding(args.encoding), progress.heartbeat(words), runlock.verb_holds(f"picforge {words}", makes_runs):
        lock_own_kind_of_run(args, words)
        code = declared.run(args)  # every run it writes is marked and locked until it ends (picforge.runlock)
    if code == 0:
        paths.record_reads(args, actions)
    if code == 0 and area.epilogue is not None:  # e.g. annotate's next steps from the ledger
        area.epilogue(args)
    hint = hints.next_command(declared, args) if code == 0 else None
    if hint is not None:  # on stderr, where progress goes, so stdout stays its data
        print(f"next: {hint.carrying(args)}", file=sys.stderr)
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
