"""Every verb that succeeds ends with a `next:` line: annotate's from the ledger, the others derived from the stage
declarations (picforge.hints) or, where the graph cannot see the next step, from their declaration's next_step (a
Command carrying the --ledger the user gave); every hint names a real verb with its current options."""
import argparse
import re

from picforge import hints, verbs
from tests.cli_helpers import verbs as cli_verbs
from tests.test_cli_grammar import visible_actions


def test_every_verb_outside_annotate_names_its_next_step():
    args = argparse.Namespace(run="RUN", out="OUT", release="REL", dest="TARGET", live=False, ledger=None)
    missing = [words for words in map(verbs.canonical_words, verbs.every_verb())
               if hints.next_command(verbs.find(words), args) is None and words[0] not in ("annotate", "mine")]
    # annotate's hints come from the ledger (annotation/next_step.py, the area's epilogue); mine's names the sheets
    assert missing == []


def test_a_stage_writing_verb_s_hint_is_derived_from_the_stage_graph():
    """Where the stage graph says what comes next, no verb writes it by hand: the verb producing the first stage
    that reads one of its stages (the sheets' export before a stage people send back), else its dataset's release."""
    derived = {" ".join(verb.words): str(hints.derived_step(verb, argparse.Namespace(run="RUN", out="OUT")))
               for verb in verbs.every_verb() if verb.next_step is None and hints.next_verb(verb) is not None}
    assert derived == {
        "cosimlex candidates": "picforge cosimlex export selection --run OUT",
        "cosimlex ingest selection": "picforge cosimlex export rating --run RUN",
        "cosimlex postprocess": "picforge cosimlex release --run RUN --out RELEASE",
        "mcphrasy reconcile": "picforge mcphrasy release --run RUN --out RELEASE",
        "pearl paraphrase": "picforge pearl release --run RUN --out RELEASE",
        "stsb-context generate": "picforge stsb-context export validation --run OUT"}
    # a verb whose module keeps its own hint does so because the graph says otherwise: not the same words
    kept = [verb for verb in verbs.every_verb() if getattr(verb.next_step, "__name__", "") == "next_step"
            and hints.next_verb(verb) is not None]
    assert {" ".join(verb.words) for verb in kept} == {"mcphrasy contexts", "mcphrasy groups", "pearl build"}
    for verb in kept:
        declared = verb.next_step(argparse.Namespace(run="RUN", out="OUT", ledger=None, release="REL"))
        assert str(declared) != str(hints.derived_step(verb, argparse.Namespace(run="RUN", out="OUT"))), verb.words
    assert hints.next_verb(verbs.find(("mine",))) is None  # another area's stages reading `sentences` are not next


def test_publish_names_the_live_upload_then_evaluate(tmp_path):
    publish = verbs.find(("release", "publish"))

    class Args:
        release, dest, live, ledger = str(tmp_path / "rel"), "hf://org/name", False, None
    assert str(publish.next_step(Args)) == (f"picforge release publish --release {tmp_path / 'rel'} --to hf://org/name --live"
                                            "   (uploads what the plan lists)")
    Args.live = True
    assert str(publish.next_step(Args)) == f"picforge release evaluate --release {tmp_path / 'rel'}"


def test_a_hint_carries_the_ledger_the_user_gave_to_a_verb_that_takes_it(tmp_path):
    export = verbs.find(("mcphrasy", "export", "clusters"))
    ledger = "sqlite:////tmp/other.sqlite"
    args = argparse.Namespace(run=str(tmp_path / "run"), ledger=ledger)
    assert str(export.next_step(args).carrying(args)) == (
        f"picforge mcphrasy ingest clusters --run {tmp_path / 'run'} --sheets SHEET… --ledger {ledger}   (the "
        "annotators' filled sheets)")
    build = verbs.Command("build", (("--run", "R"), ("--out", "O")))
    assert str(build.carrying(args)) == "picforge build --run R --out O"  # build takes no --ledger


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
    every_verb = {" ".join(words): parser for words, parser in cli_verbs()}
    checked, stale = 0, []
    for verb, parser in every_verb.items():
        declared = parser.get_default("declared")
        found = hints.next_command(declared, hint_values(parser))
        hint = str(found.carrying(hint_values(parser))) if found is not None else ""
        for command in re.findall(r"picforge ([^,;()]+)", hint):
            words = command.split()
            named = next((" ".join(words[:n]) for n in range(len(words), 0, -1) if " ".join(words[:n]) in every_verb),
                         None)
            checked += 1
            if named is None:
                stale.append((verb, command))
                continue
            stale += [(verb, named, word) for word in words if word.startswith("--") and word not in current[named]]
    assert checked >= 25 and stale == []
