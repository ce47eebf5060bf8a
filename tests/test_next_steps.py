"""Every verb that succeeds ends with a `next:` line: annotate's from the ledger, the others from their own next_step;
every hint names a real verb with its current options."""
import argparse
import importlib
import re

from picforge import cli
from tests.cli_helpers import verbs
from tests.test_cli_grammar import visible_actions
from tests.test_option_help import parsers


def test_every_verb_outside_annotate_names_its_next_step():
    missing = []
    for command, package in cli.commands().items():
        if command in ("annotate", "mine"):
            continue  # their hints come from the ledger (annotation/next_step.py); mine's names the expert sheets

        for path, parser in parsers(cli.build_parser(command), "picforge"):
            func = parser.get_default("func")
            if path.startswith(f"picforge {command}") and func is not None:
                if not callable(getattr(importlib.import_module(func.__module__), "next_step", None)):
                    missing.append(path)
    assert missing == []


def test_publish_names_the_live_upload_then_evaluate(tmp_path):
    from release.cli import publish

    class Args:
        release, dest, live = str(tmp_path / "rel"), "hf://org/name", False
    assert publish.next_step(Args) == (f"picforge publish --release {tmp_path / 'rel'} --to hf://org/name --live   "
                                       "(uploads what the plan lists)")
    Args.live = True
    assert publish.next_step(Args) == f"picforge evaluate --release {tmp_path / 'rel'}"


def hint_values(parser):
    """A value for every option of `parser`, enough for its verb's next_step to write a hint."""
    values = {}
    for action in parser._actions:
        if isinstance(action, argparse._StoreTrueAction):
            values[action.dest] = False
        elif action.nargs in ("+", "*"):
            values[action.dest] = ["A"]
        else:
            values[action.dest] = action.default if action.default not in (None, argparse.SUPPRESS) else "/x/RUN"
    return argparse.Namespace(**values)


def test_every_hint_names_a_verb_and_its_current_options():
    current = {}
    for verb, spelling, _ in visible_actions():
        current.setdefault(verb, set()).add(spelling)
    every_verb = {" ".join(words): parser for words, parser in verbs()}
    checked, stale = 0, []
    for verb, parser in every_verb.items():
        next_step = getattr(importlib.import_module(parser.get_default("func").__module__), "next_step", None) \
            if parser.get_default("func") else None
        for command in re.findall(r"picforge ([^,;()]+)", (next_step and next_step(hint_values(parser))) or ""):
            words = command.split()
            named = next((" ".join(words[:n]) for n in range(len(words), 0, -1) if " ".join(words[:n]) in every_verb),
                         None)
            checked += 1
            if named is None:
                stale.append((verb, command))
                continue
            stale += [(verb, named, word) for word in words if word.startswith("--") and word not in current[named]]
    assert checked >= 25 and stale == []
