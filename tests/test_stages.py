"""Stage declarations: flags, manifest options and fingerprints derived from `option()` fields; a re-run with the
same options skips, an output option re-runs its stage and those downstream, a where-or-how-fast option none."""
import argparse
import dataclasses
import re

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions

from picforge import stages
from picforge.options import options_from_args, positive_int
from picforge.rundir import RunDir
from picforge.stage_jobs import declared_steps, run_steps
from picforge.stage_registry import producing_command
from picforge.stages import Stage, option
from tests.cli_helpers import verb_parser
from tests.test_rundir import ROWS


@dataclasses.dataclass(frozen=True)
class TitleOptions:
    case: str = option("upper", "case of the titles", output=True, choices=("upper", "lower"))
    batch_size: int = option(8, "pages per batch", output=False, type=positive_int)


@dataclasses.dataclass(frozen=True)
class SuffixOptions:
    add_suffix: bool = option(False, "append --suffix to every title", output=True)
    suffix: str = option("!", "what --add-suffix appends", output="add_suffix")


class Pages(Stage):
    name, schema, sources = "test-pages", "page", ("rows",)

    def expand(self, inputs, options):
        return inputs["pipeline"] | self.name >> beam.Create(inputs["rows"])


class Titles(Stage):
    name, schema, upstream = "test-titles", "page", ("test-pages",)
    Options = TitleOptions

    def expand(self, inputs, options):
        return inputs["test-pages"] | self.name >> beam.Map(
            lambda row, case: dict(row, title=getattr(row["title"], case)()), options.case)


class Suffixed(Stage):
    name, schema, upstream = "test-suffixed", "page", ("test-titles",)
    Options = SuffixOptions

    def expand(self, inputs, options):
        suffix = options.suffix if options.add_suffix else ""
        return inputs["test-titles"] | self.name >> beam.Map(lambda row: dict(row, title=row["title"] + suffix))


DECLARED = (Pages, Titles, Suffixed)
AllOptions = stages.merged_options("AllOptions", DECLARED)


def run_declared(root, **given):
    """Run the three declared stages into `root` with `given` options; {stage: manifest}."""
    steps = declared_steps(RunDir(root), DECLARED, AllOptions(**given), {"rows": (ROWS, "rows-v1")})
    return run_steps(RunDir(root), steps, pipeline_options=PipelineOptions())


def test_flags_defaults_and_help_come_from_the_fields():
    parser = argparse.ArgumentParser()
    stages.add_flags(parser, AllOptions)
    options = options_from_args(AllOptions, parser.parse_args(["--case", "lower", "--add-suffix"]))
    assert options == AllOptions(case="lower", add_suffix=True)
    assert options_from_args(AllOptions, parser.parse_args([])) == AllOptions()
    assert "pages per batch (default 8)" in parser.format_help()
    with pytest.raises(SystemExit):
        parser.parse_args(["--batch-size", "0"])


def test_manifest_options_are_the_output_fields_and_a_conditional_one_only_while_its_switch_is_on():
    assert stages.output_options(TitleOptions()) == {"case": "upper"}
    assert stages.output_options(SuffixOptions()) == {"add_suffix": False}
    assert stages.output_options(SuffixOptions(add_suffix=True)) == {"add_suffix": True, "suffix": "!"}


def test_one_name_means_one_thing_across_stages():
    @dataclasses.dataclass(frozen=True)
    class OtherCase:
        case: str = option("lower", "case of the titles", output=True)

    class Other(Stage):
        name, Options = "test-other", OtherCase

    with pytest.raises(ValueError, match="'case'"):
        stages.merged_options("Clash", (Titles, Other))


def test_a_stage_is_declared_once_and_its_producing_command_is_recorded():
    @stages.register
    class Once(Stage):
        name, also = "test-once", {"test-once-too": "page"}

    with pytest.raises(ValueError, match="declared twice"):
        stages.register(type("Twice", (Stage,), {"name": "test-once"}))
    stages.produced_by("picforge test --out {run}", (Once,))
    assert producing_command("test-once-too", None) == "picforge test --out {run}"


def test_a_rerun_skips_an_output_option_reruns_downstream_a_neutral_one_nothing(tmp_path):
    root = str(tmp_path / "run")
    first = run_declared(root)
    assert first["test-titles"]["options"] == {"case": "upper"}
    assert first["test-titles"]["inputs"] == {"test-pages": first["test-pages"]["fingerprint"]}
    assert sorted(row["title"] for row in RunDir(root).iter_records("test-suffixed")) == ["FIRST", "SECOND"]
    assert all(m["skipped"] for m in run_declared(root).values())
    assert all(m["skipped"] for m in run_declared(root, batch_size=99).values())
    lower = run_declared(root, case="lower")
    assert [stage for stage, m in lower.items() if not m.get("skipped")] == ["test-titles", "test-suffixed"]
    assert sorted(row["title"] for row in RunDir(root).iter_records("test-suffixed")) == ["first", "second"]
    suffixed = run_declared(root, case="lower", add_suffix=True)
    assert [stage for stage, m in suffixed.items() if not m.get("skipped")] == ["test-suffixed"]
    assert sorted(row["title"] for row in RunDir(root).iter_records("test-suffixed")) == ["first!", "second!"]


def test_a_repeated_flag_replaces_its_default_tuple():
    @dataclasses.dataclass(frozen=True)
    class Scored:
        scorer: tuple = option(("minilm", "tok2vec"), "a scorer, repeated for each", output=True, repeat=True)

    parser = argparse.ArgumentParser()
    stages.add_flags(parser, Scored)
    assert parser.parse_args([]).scorer == ("minilm", "tok2vec")
    assert parser.parse_args(["--scorer", "tok2vec"]).scorer == ("tok2vec",)
    assert parser.parse_args(["--scorer", "a", "--scorer", "b"]).scorer == ("a", "b")


def test_an_upstream_stage_no_earlier_declaration_makes_is_read_from_the_run_and_none_is_not_read(tmp_path):
    root = str(tmp_path / "run")
    run = RunDir(root)
    pages = run_steps(run, declared_steps(run, [Pages], AllOptions(), {"rows": (ROWS, "rows-v1")}),
                      pipeline_options=PipelineOptions())["test-pages"]
    (titles,) = declared_steps(run, [Titles], AllOptions(), {})
    assert titles.after == () and titles.inputs == {"test-pages": pages["fingerprint"]}
    made = run_steps(run, [titles], pipeline_options=PipelineOptions())["test-titles"]
    assert made["inputs"] == {"test-pages": pages["fingerprint"]}
    assert sorted(row["title"] for row in run.iter_records("test-titles")) == ["FIRST", "SECOND"]
    (without,) = declared_steps(run, [Titles], AllOptions(), {}, elsewhere={"test-pages": None})
    assert without.after == () and without.inputs == {}


def test_a_stage_written_outside_beam_is_fingerprinted_by_its_declaration(tmp_path):
    class Counted(Stage):
        name, schema, upstream, sources = "test-counted", "page", ("test-pages",), ("sheet",)
        Options = TitleOptions

    run = RunDir(str(tmp_path / "run"))
    run_steps(run, declared_steps(run, [Pages], AllOptions(), {"rows": (ROWS, "rows-v1")}),
              pipeline_options=PipelineOptions())
    inputs = Counted.inputs(run, TitleOptions(), {"sheet": "sheet-v1"})
    assert inputs == {"test-pages": run.read_manifest("test-pages")["fingerprint"], "sheet": "sheet-v1"}
    manifest = stages.write(run, Counted, list(run.iter_records("test-pages")), TitleOptions(), inputs=inputs)
    assert manifest["options"] == {"case": "upper"} and manifest["records"] == len(ROWS)
    assert stages.current(run, Counted, TitleOptions(batch_size=99), inputs)["skipped"]
    assert stages.current(run, Counted, TitleOptions(case="lower"), inputs) is None
    assert stages.current(run, Counted, TitleOptions(), dict(inputs, sheet="sheet-v2")) is None
    assert stages.current(run, Counted, TitleOptions(), inputs, force=True) is None


DATASET_DECLARATIONS = ("companions.cosimlex", "companions.mcphrasy", "companions.pearl", "companions.stsb_context")


def companion_stages():
    """(companion, {stage: its declaration}) of each companion whose stages are declared (picforge.stages)."""
    import importlib

    found = []
    for package in DATASET_DECLARATIONS:
        companion = importlib.import_module(package).DATASET
        found.append((companion, {name: stages.REGISTRY[name] for name in companion.stages}))
    return found


def verb_words(command):
    """The verb words of a producing command ("picforge cosimlex ingest selection --run {run}" → [cosimlex, ingest,
    selection])."""
    words = command.split()[1:]
    return words[:next((i for i, word in enumerate(words) if word.startswith("--")), len(words))]


def test_each_companions_stages_are_declared_and_their_commands_come_from_the_registry():
    for companion, declared in companion_stages():
        assert declared and set(declared) == set(companion.stages)
        assert companion.stages == stages.produced(dict.fromkeys(declared.values()))
        for stage, declaration in declared.items():
            assert stage in declaration.outputs() and declaration.schema is None or declaration.schema, stage
            assert producing_command(stage, None) == companion.stages[stage]
            parser = verb_parser(verb_words(companion.stages[stage]))  # the command names a real verb…
            taken = {name for action in parser._actions for name in action.option_strings}
            assert {word for word in companion.stages[stage].split() if word.startswith("--")} <= taken, stage


def test_the_companions_verbs_take_their_stage_flags_from_the_declarations():
    for companion, declared in companion_stages():
        for stage, declaration in declared.items():
            parser = verb_parser(verb_words(companion.stages[stage]))
            by_flag = {name: action for action in parser._actions for name in action.option_strings}
            for field in dataclasses.fields(declaration.Options):
                action = by_flag.get(stages.flag_of(field))
                assert action is not None, f"{companion.name} {stage}: no {stages.flag_of(field)}"
                assert (action.dest, action.default) == (field.name, field.default), (stage, field.name)
                assert action.help.startswith(field.metadata["help"].replace("%", "%%")), (stage, field.name)


def test_no_area_writes_a_stage_or_a_fingerprint_by_hand():
    """Every stage of every area (mining, annotation, the companions) is written through its declaration: no
    write_stage/run_stages/Step call and no stage fingerprint computed from a hand-written option dict (a release's
    own fingerprint is not a stage's)."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    by_hand = re.compile(r'\.write_stage\(|\brun_stages\(|\bStep\(|\boptions=\{'
                         r'|\bfingerprint\((?!"(?:[\w-]+-)?release")')
    found = [f"{path.relative_to(root)}:{number}: {line.strip()}"
             for package in (*DATASET_DECLARATIONS, "pipeline", "annotation", "release")
             for path in sorted((root / package.replace(".", "/")).rglob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1) if by_hand.search(line)]
    assert found == []
