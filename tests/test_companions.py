"""Companions as plug-ins: a companion installed as a distribution with an entry point in `picforge.areas` (its
Area, carrying its Companion declaration) shows in `picforge --help`, runs its verbs, writes its stage and its release; a broken one is one error line; the
core names no companion."""
import argparse
import collections
import dataclasses
import json
import os
import pathlib
import re
import subprocess
import sys

import jsonschema
import pytest

from picforge import datasets, hints, options, release_writer, rundir, schemas, verbs
from picforge.errors import InputError
from tests.import_graph import module_edges
from tests.plugin_companion import DATASET, STAGE

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORE = ("picforge", "release", "pipeline", "annotation", "schemas")
TEXT = "The cat sat on the mat. The mat was flat; the cat's hat was not.\nCats and hats!\n"


def installed(tmp_path, name, value, distribution):
    """The environment of a subprocess that sees a distribution `distribution` 0.1 whose entry point `name =
    value` is in the group picforge.areas, as `pip install` of a plug-in would leave it."""
    dist_info = tmp_path / "site" / f"{distribution.replace('-', '_')}-0.1.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    (dist_info / "entry_points.txt").write_text(f"[{verbs.GROUP}]\n{name} = {value}\n")
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(ROOT)]))


def picforge(env, *argv):
    """`python -m picforge.cli ARGV…` in a fresh process with `env`."""
    return subprocess.run([sys.executable, "-m", "picforge.cli", *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def plugin_env(tmp_path):
    return installed(tmp_path, "wordcount", "tests.plugin_companion.cli:AREA", "wordcount-plugin")


def test_a_plugin_companion_registers_writes_its_stage_and_its_release(plugin_env, tmp_path):
    listed = picforge(plugin_env, "--help")
    assert listed.returncode == 0, listed.stderr
    companions_section = listed.stdout.split("companions:\n", 1)[1]
    assert re.search(r"^  wordcount +count the words of a text file", companions_section, re.M)
    assert re.search(r"^  cosimlex ", companions_section, re.M)  # the in-tree companions are plug-ins of the same group

    text = tmp_path / "text.txt"
    text.write_text(TEXT, encoding="utf-8")
    run = tmp_path / "run"
    counted = picforge(plugin_env, "wordcount", "count", "--text", str(text), "--out", str(run))
    assert counted.returncode == 0, counted.stderr
    assert f"next: picforge wordcount release --run {run} --out RELEASE" in counted.stderr
    expected = collections.Counter(re.findall(r"[a-z]+(?:'[a-z]+)?", TEXT.lower()))
    rows = list(rundir.RunDir(str(run)).iter_records(STAGE))
    assert {row["word"]: row["count"] for row in rows} == expected
    assert [row["count"] for row in rows] == sorted(expected.values(), reverse=True)
    assert rundir.RunDir(str(run)).read_manifest(STAGE)["records"] == len(expected)

    out = tmp_path / "release"
    released = picforge(plugin_env, "wordcount", "release", "--run", str(run), "--out", str(out))
    assert released.returncode == 0, released.stderr
    assert f"test {len(expected)} words, license other" in released.stdout
    assert f"next: picforge release publish --release {out} --to TARGET" in released.stderr
    assert release_writer.read_jsonl(str(out / "data" / "test.jsonl")) == rows
    card = (out / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "license: other" in card and f"num_examples: {len(expected)}" in card
    assert len(expected) < 30 and f"warning: default test has {len(expected)} items, under 30" in released.stdout
    assert f"| default | test | {len(expected)} | **too small to evaluate on** (under 30 items) |" in card
    manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["counts"] == {"test": len(expected)} and manifest["producer"] == "picforge"
    written = release_writer.file_checksums(str(out))
    assert manifest["files"] == {path: sums for path, sums in written.items() if path != "MANIFEST.json"}
    assert set(manifest["files"]) == {"data/test.jsonl", "README.md", "stats.json", "croissant.json"}
    assert json.loads((out / "stats.json").read_text())["occurrences"] == sum(expected.values())

    again = picforge(plugin_env, "wordcount", "release", "--run", str(run), "--out", str(out))
    assert again.returncode == 0 and "(up to date, skipped)" in again.stdout


def test_a_plugin_companion_stage_is_named_by_its_producing_command(plugin_env, tmp_path):
    (tmp_path / "empty").mkdir()
    missing = picforge(plugin_env, "wordcount", "release", "--run", str(tmp_path / "empty"), "--out",
                       str(tmp_path / "release"))
    assert missing.returncode == 2
    assert f"run `picforge wordcount count --text FILE --out {tmp_path / 'empty'}` first" in missing.stderr


def test_a_broken_plugin_is_one_error_line_and_the_other_commands_still_run(tmp_path):
    env = installed(tmp_path, "brokenco", "tests.no_such_module:AREA", "broken-plugin")
    why = ("entry point `brokenco = tests.no_such_module:AREA` (picforge.areas, distribution "
           "broken-plugin 0.1) does not load: ModuleNotFoundError: No module named 'tests.no_such_module'")
    chosen = picforge(env, "brokenco", "anything")
    assert chosen.returncode == 2
    assert chosen.stderr.splitlines() == [f"picforge: error: {why}"]

    core = picforge(env, "mine", "--help")  # a core command reads no companion declaration
    assert core.returncode == 0 and "--input" in core.stdout and core.stderr == ""
    listed = picforge(env, "--help")
    assert listed.returncode == 0 and "\n  pearl " in listed.stdout and "brokenco" not in listed.stdout
    assert listed.stderr.splitlines() == [f"picforge: warning: {why}; its command is left out"]
    other = picforge(env, "pearl", "--help")
    assert other.returncode == 0 and "release" in other.stdout


def test_a_plugin_that_declares_no_area_or_another_name_is_refused(tmp_path):
    env = installed(tmp_path, "oddity", "tests.plugin_companion:STAGE", "odd-plugin")
    refused = picforge(env, "oddity", "--help")
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        "picforge: error: entry point `oddity = tests.plugin_companion:STAGE` (picforge.areas, distribution "
        "odd-plugin 0.1) names a str, not a picforge.verbs.Area"]
    env = installed(tmp_path / "core", "mine", "tests.plugin_companion.cli:AREA", "mine-plugin")
    taken = picforge(env, "--help")
    assert taken.returncode == 0 and "\n  wordcount " not in taken.stdout
    assert taken.stderr.splitlines() == [
        "picforge: warning: entry point `mine = tests.plugin_companion.cli:AREA` (picforge.areas, distribution "
        "mine-plugin 0.1) declares the command 'wordcount'; name the entry point as its command; its command is "
        "left out"]


def test_a_plugin_area_taking_a_core_command_is_left_out_and_the_core_verb_still_runs(tmp_path):
    env = installed(tmp_path, "mine", "impostor:AREA", "mine-plugin")
    (tmp_path / "site" / "impostor.py").write_text(
        "import dataclasses\nfrom tests.plugin_companion.cli import AREA as WORDCOUNT\n"
        "AREA = dataclasses.replace(WORDCOUNT, name='mine')\n", encoding="utf-8")
    listed = picforge(env, "--help")
    assert listed.returncode == 0 and "short for `picforge pipeline mine`" in listed.stdout
    assert len(listed.stderr.splitlines()) == 1 and listed.stderr.startswith(
        "picforge: warning: entry point `mine = impostor:AREA` (picforge.areas, distribution mine-plugin 0.1): the "
        "command 'mine' is taken by entry point `pipeline = pipeline.cli:AREA` (picforge.areas, distribution picforge ")
    core = picforge(env, "mine", "--help")
    assert core.returncode == 0 and "--wic" in core.stdout


def releasing(write):
    """The plug-in's declaration with its release hook `write`."""
    return dataclasses.replace(DATASET, release=dataclasses.replace(DATASET.release, write=write))


def test_a_release_hook_is_imported_only_when_asked_and_a_wrong_one_is_named():
    assert DATASET.release_hook().__module__ == "tests.plugin_companion.release"
    no_function = releasing("tests.plugin_companion.release:release_corpus")
    with pytest.raises(datasets.DatasetError, match=r"^dataset wordcount: its release hook "
                       r"tests.plugin_companion.release:release_corpus names release_corpus, which "
                       r"tests.plugin_companion.release does not define$"):
        no_function.release_hook()
    no_module = releasing("tests.plugin_companion.dataset:write_release")
    with pytest.raises(datasets.DatasetError, match="names module tests.plugin_companion.dataset, which does "
                                                    "not exist"):
        no_module.release_hook()
    with pytest.raises(datasets.DatasetError, match="release hook tests.plugin_companion:STAGE is not a function"):
        releasing("tests.plugin_companion:STAGE").release_hook()
    with pytest.raises(ValueError, match="is not 'module:NAME'"):
        releasing("tests.plugin_companion.release.write_release")


def test_every_installed_dataset_names_hooks_that_exist():
    found = verbs.datasets()
    assert verbs.areas().broken == {}
    for dataset in found.datasets.values():
        assert callable(dataset.release_hook())
        assert dataset.release.options is None or dataclasses.is_dataclass(dataset.release_options())
        assert dataset.ledger_tables is None or dataset.tables()
        for what, spec in dataset.evaluate.hooks() if dataset.evaluate else ():
            assert spec is None or datasets.imported(dataset.name, what, spec) is not None
    assert [table.name for table in found.datasets["mcphrasy"].tables()] == ["cluster_labels"]


def test_the_four_companions_are_installed_as_plugins_of_picforge():
    found = verbs.datasets()
    assert verbs.areas().broken == {}
    assert {name: found.distributions[name] for name in found.datasets} == dict.fromkeys(
        ("cosimlex", "mcphrasy", "pearl", "stsb-context"), "picforge")


def test_a_missing_module_names_the_extra_of_the_companion_that_declares_it():
    line = options.missing_extra_line(ModuleNotFoundError("No module named 'sklearn'", name="sklearn.cluster"))
    assert line == ("this command needs the optional package 'sklearn.cluster', which is not installed: pip install "
                    "'picforge[mcphrasy]' (from a clone: pip install -e '.[mcphrasy]')")
    assert "'picforge[postgres]'" in options.missing_extra_line(ModuleNotFoundError(name="psycopg"))
    assert options.missing_extra_line(ModuleNotFoundError(name="no_such_module")) is None


def test_every_schema_is_valid_and_each_companion_keeps_its_own_in_its_folder():
    pic = sorted(path.name.removesuffix(".schema.json") for path in (ROOT / "schemas").glob("*.schema.json"))
    found = schemas.companion_schema_files()
    for name in [*pic, *found]:
        jsonschema.Draft202012Validator.check_schema(schemas.load(name))
    for name, dataset in verbs.datasets().datasets.items():
        own = {path.name.removesuffix(".schema.json") for path in dataset.schema_folder().iterdir()
               if path.name.endswith(".schema.json")}
        assert own and not own & set(pic), name
        assert {schema: [who for who, _ in found[schema]] for schema in own} == dict.fromkeys(
            own, [f"companion {name} ({dataset.schemas})"])
    assert "ps" in pic and "ps" not in found  # PiC's own stay in schemas/
    with pytest.raises(InputError, match="no JSON Schema 'no_such'"):
        schemas.load("no_such")


def test_a_schema_two_companions_define_is_refused_by_name(monkeypatch):
    twin = dataclasses.replace(DATASET, name="wordcount-twin")
    monkeypatch.setattr(verbs, "datasets", lambda: verbs.Datasets(
        {"wordcount": DATASET, "wordcount-twin": twin}, dict.fromkeys(("wordcount", "wordcount-twin"), "x")))
    schemas.companion_schema_files.cache_clear()
    schemas.load.cache_clear()
    try:
        assert schemas.load("ps")["title"]  # PiC's names are PiC's
        with pytest.raises(InputError, match=r"^JSON Schema 'wordcount_word' is defined by companion wordcount "
                                             r"\(tests.plugin_companion.schemas\) and by companion wordcount-twin "
                                             r"\(tests.plugin_companion.schemas\); rename one$"):
            schemas.load("wordcount_word")
    finally:  # what the twins cached goes with them
        schemas.companion_schema_files.cache_clear()
        schemas.load.cache_clear()


def companion_words():
    """What would name a companion in code: each one's command word and its package."""
    words = set()
    for name, dataset in verbs.datasets().datasets.items():
        words |= {name, name.replace("-", "_"), dataset.schemas.split(".")[1]}
    return sorted(words)


def test_no_core_module_names_a_companion():
    words = companion_words()
    assert "cosimlex" in words and "stsb_context" in words
    pattern = re.compile("|".join(re.escape(word) for word in words), re.I)
    named = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for package in CORE for path in sorted((ROOT / package).rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert named == []


def test_every_dataset_releases_through_the_core_verb_its_declaration_describes():
    """No companion writes a release CLI: `AREA release` is the core's verb, its help, options and hint from the
    declaration, the work done by the declared hook."""
    assert sorted(ROOT.glob("companions/*/cli/release.py")) == []
    for name, dataset in verbs.datasets().datasets.items():
        verb = verbs.find((name, "release"))
        assert verb.run == dataset.run_release and verb.options == dataset.add_release_options
        assert (verb.help, verb.description) == (dataset.release.help, dataset.release.description or None)
        parser = argparse.ArgumentParser()
        verb.options(parser)
        licence = next(action for action in parser._actions if "--license" in action.option_strings)
        assert licence.help == f"licence id for the card (default {dataset.release.licence})"
        assert {"--run", "--out", "--license", "--license-override", "--force"} <= verbs.option_strings(verb.words)
        hint = str(verb.next_step(argparse.Namespace(out="REL", ledger=None)))
        then = f"; then picforge {name} {dataset.release.then} --release REL" if dataset.release.then else ""
        assert hint == f"picforge release publish --release REL --to TARGET{then}"
    assert verbs.datasets().datasets["mcphrasy"].release.then == "evaluate"
    assert {"--encoder", "--device", "--precision"} <= verbs.option_strings(("mcphrasy", "release"))


def test_every_dataset_evaluates_through_the_core_verb_its_declaration_describes():
    """No companion writes an evaluate CLI: `AREA evaluate` exists exactly for the datasets declaring an Evaluate,
    its inputs, options and --out from the declaration."""
    assert sorted(ROOT.glob("companions/*/cli/evaluate.py")) == []
    found = verbs.datasets().datasets
    assert {name for name, dataset in found.items() if dataset.evaluate} == {"cosimlex", "mcphrasy", "stsb-context"}
    for name, dataset in found.items():
        verb = verbs.find((name, "evaluate"))
        if dataset.evaluate is None:
            assert verb is None, name
            continue
        assert (verb.help, verb.writes.kind, verb.writes.optional) == (dataset.evaluate.help, "file", True)
        taken = verbs.option_strings(verb.words)
        assert {found.flag for found in dataset.evaluate.inputs} | {"--out"} <= taken, name
        assert ("--force" in taken) == dataset.evaluate.stages, name
    assert {"--encoder", "--device", "--precision", "--rounds"} <= verbs.option_strings(("mcphrasy", "evaluate"))
    # one of the gold sources, exactly: one required choice of argparse's, refusing none
    parser = argparse.ArgumentParser(exit_on_error=False)
    verbs.find(("cosimlex", "evaluate")).add_arguments(parser)
    [choice] = parser._mutually_exclusive_groups
    assert choice.required and [action.option_strings for action in choice._group_actions] == [
        ["--release"], ["--run"], ["--gold-table"]]
    with pytest.raises(SystemExit):
        parser.parse_args(["--predictions", __file__])


def test_every_sheet_round_trip_is_the_core_verbs_its_declaration_describes():
    """No companion writes an export or ingest CLI: `AREA export|ingest TARGET` exist exactly for the declared
    Sheets, with the declared --out (or stage), --sheets, --ledger and options, and the export's next step is its
    own ingest."""
    assert sorted(ROOT.glob("companions/*/cli/export_*.py")) + sorted(ROOT.glob("companions/*/cli/ingest_*.py")) == []
    found = verbs.datasets().datasets
    declared = {(name, sheet.target) for name, dataset in found.items() for sheet in dataset.sheets}
    assert declared == {("cosimlex", "selection"), ("cosimlex", "rating"), ("mcphrasy", "clusters"),
                        ("stsb-context", "validation")}
    registered = {(verb.area, verb.target) for verb in verbs.every_verb()
                  if verb.name in ("export", "ingest") and verb.area in found}
    assert registered == declared
    for name, target in declared:
        sheet = next(sheet for sheet in found[name].sheets if sheet.target == target)
        export, ingest = verbs.find((name, "export", target)), verbs.find((name, "ingest", target))
        assert export.writes is sheet.writes and ingest.writes is None
        assert "--sheets" in verbs.option_strings(ingest.words) and "--sheets" not in verbs.option_strings(export.words)
        for verb in (export, ingest):
            assert ("--ledger" in verbs.option_strings(verb.words)) == sheet.ledger, verb.words
        hint = export.next_step(argparse.Namespace(run="RUN", ledger=None))
        assert str(hint).startswith(f"picforge {name} ingest {target} --run RUN --sheets {sheet.placeholder}")
        if not sheet.then:  # the stage graph names what comes after (picforge.hints)
            assert ingest.next_step is None and hints.next_verb(ingest) is not None
            continue
        after = str(ingest.next_step(argparse.Namespace(run="RUN", ledger=None)))
        assert after.startswith(f"picforge {name} {sheet.then[0]} --run RUN"), after
        assert all(verbs.find((name, *words.split())) for words in sheet.then), sheet.then
    assert str(verbs.find(("stsb-context", "ingest", "validation")).next_step(argparse.Namespace(
        run="RUN", ledger=None))) == ("picforge stsb-context evaluate --run RUN; then picforge stsb-context release "
                                      "--run RUN --out RELEASE")


def test_an_evaluate_declaration_is_checked_where_it_is_declared():
    from picforge.evaluation import Evaluate, Input

    with pytest.raises(ValueError, match="one_of names inputs it declares and does not require"):
        Evaluate("m:score", help="h", inputs=(Input("--run", "a run", kind="run", required=True),), one_of=("--run",))
    with pytest.raises(ValueError, match="kind 'table' is not one of release, run, file"):
        Input("--gold", "gold", kind="table")
    with pytest.raises(ValueError, match="evaluate hook 'score' is not 'module:NAME'"):
        dataclasses.replace(DATASET, evaluate=Evaluate("score", help="h", inputs=()))


def test_the_plugin_companion_is_its_folder_and_one_entry_point_line(plugin_env):
    """Adding the plug-in companion touches only tests/plugin_companion/ and the one entry-point line `installed`
    writes (as pip would): its modules import only picforge and its own package, nothing outside tests/ names it,
    and its release verb is the core's, described by its declaration."""
    edges = module_edges(ROOT, ("picforge", "pipeline", "annotation", "release", "companions", "tests"))
    own = [edge for edge in edges if edge.importer.startswith("tests.plugin_companion")]
    assert {edge.imported.split(".")[0] for edge in own} == {"picforge", "tests"}
    assert [str(edge) for edge in own if edge.imported.split(".")[0] == "tests"
            and not edge.imported.startswith("tests.plugin_companion")] == []
    shipped = [path for path in ROOT.iterdir() if path.name not in ("tests", "docs", "README.md", "CHANGELOG.md")
               and not path.name.startswith(".")]
    naming = [str(path.relative_to(ROOT)) for top in shipped
              for path in ([top] if top.is_file() else top.rglob("*")) if path.is_file()
              and path.suffix in (".py", ".cfg", ".toml", ".txt", ".ini", "") and re.search(
                  r"plugin_companion|wordcount", path.read_text(encoding="utf-8", errors="replace"))]
    assert naming == []
    code = ("from picforge import verbs\n"
            "for name, verb in sorted(verbs.verbs_of('wordcount').items(), key=str):\n"
            "    print(name[0], verb.run.__module__, verb.help)\n")
    listed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=plugin_env, capture_output=True, text=True,
                            timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        "count tests.plugin_companion.cli.count count the words of a text file into a run",
        f"release picforge.datasets {DATASET.release.help}"]
    described = picforge(plugin_env, "wordcount", "release", "--help")
    shown = " ".join(described.stdout.split())
    assert described.returncode == 0 and DATASET.release.description in shown
    assert "--license LICENSE licence id for the card (default `other`: the text keeps its terms)" in shown
