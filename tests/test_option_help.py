"""Every option and argument of every verb has help text (`picforge … --help` explains each)."""
import argparse

from picforge import cli


def parsers(parser, path):
    """(path, parser) of `parser` and of every sub-command under it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, f"{path} {name}")


def undocumented():
    """'picforge VERB… OPTION' for every option or argument without help."""
    missing = []
    for command in cli.commands():
        for path, parser in parsers(cli.build_parser(command), "picforge"):
            if path != "picforge" and not path.startswith(f"picforge {command}"):
                continue
            for action in parser._actions:
                if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction, argparse._VersionAction)):
                    continue
                if action.help is None or not str(action.help).strip():
                    missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")
    return sorted(set(missing))


def test_every_option_of_every_verb_has_help():
    assert undocumented() == []
