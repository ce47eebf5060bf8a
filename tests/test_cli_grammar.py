"""One CLI grammar over every verb the registry holds (picforge.verbs, walked verb by verb): `picforge AREA VERB
[TARGET]` then named options only; --run reads an existing run and --out names what the verb writes (declared on
the Verb, by default the run's own folder for it); one name per concept (--encoder, --release, --sheets read, --out
written);
each verb that encodes takes --device, each release verb takes --force, each verb with --ledger falls back on
$PICFORGE_LEDGER; no verb has a hidden spelling."""
import argparse
import functools
import re

import pytest

from picforge import verbs as registry
from picforge.paths import add_output, declared_output
from tests.cli_helpers import picforge, verb_parser, verbs

# Options naming what a verb encodes with: `--encoder MODEL`, a sentence-transformers model; `--scorer SPEC`, CoSimLex's
# encoder specs (minilm, tok2vec, hf:FOLDER, spacy:MODEL), another meaning and so another name (`--model` names the
# chat model of the LLM verbs: not an encoder).
ENCODER_OPTIONS = ("--encoder", "--scorer", "--model")


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
    assert {"mine", "release evaluate", "mcphrasy release", "pearl build", "cosimlex candidates"} <= set(encoding)
    assert not {"pearl paraphrase", "stsb-context generate"} & set(encoding)  # their --model is a chat model
    lacking = [verb for verb, parser in encoding.items() if "--device" not in options(parser)]
    assert lacking == []


def test_every_release_verb_takes_force():
    releasing = release_verbs()
    assert {"build", "release publish", "mcphrasy release", "pearl release", "cosimlex release"} <= set(releasing)
    lacking = [verb for verb, parser in releasing.items() if "--force" not in options(parser)]
    assert lacking == []


def test_every_verb_with_a_ledger_falls_back_on_the_environment():
    ledgered = {" ".join(words): options(parser)["--ledger"] for words, parser in verbs()
                if "--ledger" in options(parser)}
    assert {"annotate report", "mcphrasy agreement", "mcphrasy reconcile"} <= set(ledgered)
    assert [verb for verb, action in ledgered.items() if "$PICFORGE_LEDGER" not in action.help] == []


@functools.lru_cache(maxsize=None)
def every_action():
    """(verb, spelling, action) of every option and positional of every verb (spelling: its first option string,
    or a positional's metavar)."""
    return tuple((" ".join(words), (action.option_strings or [(action.metavar or action.dest).upper()])[0], action)
                 for words, parser in verbs() for action in parser._actions
                 if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)))


def visible_actions():
    """every_action(): every option is shown in its verb's help (no hidden spelling)."""
    return list(every_action())


def test_no_verb_has_a_hidden_spelling():
    assert [(verb, spelling) for verb, spelling, action in every_action() if action.help == argparse.SUPPRESS] == []


def test_run_reads_an_existing_run_and_out_names_what_the_verb_writes():
    runs = [(verb, action) for verb, spelling, action in visible_actions() if "--run" in action.option_strings]
    assert len(runs) >= 40
    assert [verb for verb, action in runs if getattr(action.type, "existing", None) != "run"] == []
    outs = [(verb, action) for verb, spelling, action in every_action() if "--out" in action.option_strings]
    assert [verb for verb, action in outs if getattr(action, "picforge_writes", None) is None] == []
    assert {verb for verb, action in outs if declared_output(action).kind == "run"} >= {
        "mine", "pearl build", "cosimlex candidates", "stsb-context generate", "mcphrasy contexts", "mcphrasy groups"}
    assert {verb for verb, action in outs if declared_output(action).kind == "release"} >= {
        "build", "cosimlex release", "mcphrasy release", "pearl release", "stsb-context release"}
    assert {"mcphrasy contexts", "mcphrasy groups", "mcphrasy export clusters"} <= {verb for verb, _ in runs}


def test_the_encoder_is_encoder_on_every_verb():
    spelled_otherwise = [(verb, spelling) for verb, spelling, action in visible_actions()
                         if spelling == "--model" and names_an_encoder(action)]
    assert spelled_otherwise == []
    assert {verb for verb, spelling, _ in visible_actions() if spelling == "--scorer"} == {"cosimlex candidates"}
    encoding = {verb for verb, spelling, _ in visible_actions() if spelling == "--device"}
    assert {"mine", "release evaluate", "stsb-context evaluate", "mcphrasy groups", "pearl build"} <= encoding
    named = {(v, s) for v, s, _ in visible_actions()}
    lacking = [(verb, "--device") for verb in encoding if not {(verb, "--encoder"), (verb, "--scorer")} & named]
    assert lacking == []


def test_a_release_a_verb_reads_is_release():
    reading = [(verb, spelling) for verb, spelling, action in visible_actions()
               if getattr(action.type, "existing", None) == "release" or action.dest in ("release", "release_dir")
               or verb.endswith("evaluate") and spelling == "--gold" and getattr(action.type, "existing", None) != "file"]
    # (annotate mturk's --gold is a question bank; cosimlex evaluate's --gold a gold table, not a release)
    assert [(verb, spelling) for verb, spelling in reading if spelling != "--release"] == []
    assert {"release evaluate", "release publish", "mcphrasy evaluate"} <= {verb for verb, spelling in reading
                                                                            if spelling == "--release"}
    assert all(getattr(action.type, "existing", None) == "release"
               for _, spelling, action in visible_actions() if spelling == "--release")


def test_sheets_are_read_with_sheets_and_written_with_out():
    ingesting = {verb for verb, _, _ in visible_actions() if any(w.startswith("ingest") for w in verb.split())} - {
        "annotate mturk ingest"}  # MTurk's batch results, not returned sheets
    assert len(ingesting) >= 6
    sheets = {verb for verb, spelling, action in visible_actions() if spelling == "--sheets"}
    positional = [(verb, spelling) for verb, spelling, action in visible_actions()
                  if verb in ingesting and not action.option_strings]
    assert positional == []
    assert sorted(ingesting - sheets) == []
    assert [verb for verb, spelling, action in visible_actions() if spelling == "--sheets" and declared_output(action)] == []
    writing = [(verb, spelling) for verb, spelling, action in visible_actions()
               if declared_output(action) and "sheet" in (action.help or "")]
    assert {verb for verb, _ in writing} >= {"annotate export expert", "mcphrasy export clusters"}
    assert [(verb, spelling) for verb, spelling in writing if spelling != "--out"] == []


def test_every_registered_verb_is_reached_by_its_words_and_keeps_the_one_grammar():
    found = registry.areas()
    registered = registry.every_verb()
    assert len(registered) >= 50 and {verb.area for verb in registered} == set(found.areas)
    for verb in registered:
        words = registry.canonical_words(verb)
        assert all(re.fullmatch(r"[a-z][a-z0-9-]*", word) for word in verb.words), verb.words
        assert not re.match(r"(export|ingest)-", verb.name), f"{verb.words}: `export TARGET`, as in every area"
        assert len(verb.words) in (2, 3) and (len(words) > 1 or words[0] in found.short_forms), verb.words
        for spelled in {words, verb.words}:  # a short form and the full `AREA VERB [TARGET]` reach the same verb
            parser = verb_parser(spelled)
            assert parser.get_default("declared") is verb, spelled
            assert registry.grammar_faults(verb, parser) == []
        runs = [action for action in parser._actions if (declared_output(action) or argparse.Namespace(kind=None)).kind
                == "run"]
        assert [action.option_strings for action in runs if action.option_strings != ["--out"]] == [], words


def test_the_core_refuses_a_verb_that_breaks_the_grammar():
    def options(parser):
        parser.add_argument("results", help="a positional")
        parser.add_argument("--gold", metavar="TABLE", help="another meaning of --gold")
        parser.add_argument("--out", help="an output nobody declared")

    def writes_in_the_run(parser):
        add_output(parser, "--out", kind="folder", owns=("sheets",), help="sheets, declared on the parser alone")

    odd = registry.Verb("annotate", "odd", None, run=lambda args: 0, options=options)
    with pytest.raises(ValueError) as refused:
        registry.add_verb(argparse.ArgumentParser().add_subparsers(), odd, "odd")
    assert str(refused.value).split("; ") == [
        "picforge annotate odd: a positional results: make it a named option",
        "picforge annotate odd: --gold TABLE: --gold is GOLD.jsonl on every verb (name this one otherwise)",
        "picforge annotate odd: --out names what the verb creates: declare it once, as the Verb's "
        "writes=verbs.Writes(…)"]
    export = registry.Verb("annotate", "export", "odd", run=lambda args: 0, options=writes_in_the_run)
    with pytest.raises(ValueError) as refused:
        registry.add_verb(argparse.ArgumentParser().add_subparsers(), export, "odd")
    assert str(refused.value).split("; ") == [
        "picforge annotate export odd: --out names what the verb creates: declare it once, as the Verb's "
        "writes=verbs.Writes(…)",
        "picforge annotate export odd: an export declares what it writes: Verb(writes=verbs.Writes(…))"]
    # a new run declared on the parser alone is refused too: what a verb creates has one declaration
    makes_a_run = registry.Verb("annotate", "odd", None, run=lambda args: 0,
                                options=lambda parser: add_output(parser, "--out", kind="run", help="a run"))
    with pytest.raises(ValueError) as refused:
        registry.add_verb(argparse.ArgumentParser().add_subparsers(), makes_a_run, "odd")
    assert "picforge annotate odd: --out names what the verb creates" in str(refused.value)


def exports():
    """{words: Verb} of every verb that exports (`AREA export TARGET`, `annotate mturk export`)."""
    return {" ".join(verb.words): verb for verb in registry.every_verb() if "export" in verb.words[1:]}


def test_every_export_writes_to_out_or_the_runs_own_folder():
    found = exports()
    assert {"annotate export expert", "annotate mturk export", "cosimlex export selection", "cosimlex export rating",
            "mcphrasy export clusters", "stsb-context export validation"} <= set(found)
    for words, verb in found.items():
        out = options(verb_parser(verb.words)).get("--out")
        if verb.writes.kind == "stage":  # a stage of --run (the sheets are its files): no --out
            assert out is None and verb.writes.default, words
            continue
        assert verb.writes.default and not out.required, words  # --out, by default the run's own folder
        assert declared_output(out).owns == (verb.writes.default.split("{")[0].rstrip("/"),), words
        assert f"(default {verb.writes.shown_default})" in out.help, words


def test_the_core_fills_the_runs_own_folder_before_the_guard(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    declared = {" ".join(verb.words): verb for verb in registry.every_verb()}
    batch = verb_parser(("annotate", "mturk", "export")).parse_args(["--run", str(run), "--batch", "b1"])
    assert registry.declared_outputs(declared["annotate mturk export"], batch) == []
    assert batch.out == str(run / "mturk" / "b1")
    given = verb_parser(("mcphrasy", "export", "clusters")).parse_args(
        ["--run", str(run), "--annotators", "a", "--out", str(tmp_path / "sheets")])
    registry.declared_outputs(declared["mcphrasy export clusters"], given)
    assert given.out == str(tmp_path / "sheets")
    # the filled default and a stage are guarded like any --out: a ledger inside either is refused, nothing written
    for words, inside in ((("annotate", "export", "expert", "--annotators", "a", "--per-annotator", "1"),
                           "annotation/expert"), (("annotate", "export", "final"), "final_annotations")):
        ledger = run / inside / "ledger.sqlite"
        ledger.parent.mkdir(parents=True)
        ledger.write_bytes(b"")
        before = sorted(p.name for p in run.rglob("*"))
        assert picforge(*words, "--run", run, "--ledger", f"sqlite:///{ledger}") == 2
        assert sorted(p.name for p in run.rglob("*")) == before
