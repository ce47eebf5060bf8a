"""Every option and argument of every verb has help text (`picforge … --help` explains each)."""
import argparse

from tests.cli_helpers import verbs


def undocumented():
    """'picforge VERB… OPTION' for every option or argument of a registered verb without help."""
    missing = []
    for words, parser in verbs():
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction, argparse._VersionAction)):
                continue
            if action.help is None or not str(action.help).strip():
                missing.append(f"picforge {' '.join(words)} {'/'.join(action.option_strings) or action.dest}")
    return sorted(set(missing))


def test_every_option_of_every_verb_has_help():
    assert undocumented() == []
