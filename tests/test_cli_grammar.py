"""One CLI grammar over every verb `picforge` registers (walked from its argparse tree): each verb that encodes takes
--device, each release verb takes --force, each verb with --ledger falls back on $PICFORGE_LEDGER, and every hidden
spelling is a deprecated one that warns."""
import argparse

from picforge.options import RenamedOption
from picforge.paths import declared_output
from tests.cli_helpers import verbs

# Options naming the model a verb encodes with (`--model` also names the chat model of the LLM verbs: not an encoder).
ENCODER_OPTIONS = ("--embedding-model", "--encoder", "--encoders", "--model")


def options(parser):
    return {name: action for action in parser._actions for name in action.option_strings}


def names_an_encoder(action):
    return "chat model" not in (action.help or "")


def encoding_verbs():
    return {" ".join(words): parser for words, parser in verbs()
            if any(names_an_encoder(action) for name, action in options(parser).items() if name in ENCODER_OPTIONS)}


def release_verbs():
    return {" ".join(words): parser for words, parser in verbs()
            if any((declared_output(action) or argparse.Namespace(kind=None)).kind == "release"
                   for action in parser._actions)}


def test_every_verb_that_encodes_takes_device():
    encoding = encoding_verbs()
    assert {"mine", "evaluate", "mcphrasy release", "pearl build", "cosimlex candidates"} <= set(encoding)
    assert not {"pearl paraphrase", "stsb-context"} & set(encoding)  # their --model is a chat model
    lacking = [verb for verb, parser in encoding.items() if "--device" not in options(parser)]
    assert lacking == []


def test_every_release_verb_takes_force():
    releasing = release_verbs()
    assert {"build", "publish", "mcphrasy release", "pearl release", "cosimlex release"} <= set(releasing)
    lacking = [verb for verb, parser in releasing.items() if "--force" not in options(parser)]
    assert lacking == []


def test_every_verb_with_a_ledger_falls_back_on_the_environment():
    ledgered = {" ".join(words): options(parser)["--ledger"] for words, parser in verbs()
                if "--ledger" in options(parser)}
    assert {"annotate report", "mcphrasy agreement", "mcphrasy reconcile"} <= set(ledgered)
    assert [verb for verb, action in ledgered.items() if "$PICFORGE_LEDGER" not in action.help] == []


def test_every_hidden_spelling_is_deprecated_with_a_warning():
    hidden = [(" ".join(words), action) for words, parser in verbs() for action in parser._actions
              if action.option_strings and action.help == argparse.SUPPRESS]
    assert len(hidden) >= 12
    assert [(verb, action.option_strings) for verb, action in hidden if not isinstance(action, RenamedOption)] == []
