"""Stage declarations: flags, manifest options and fingerprints derived from `option()` fields; a re-run with the
same options skips, an output option re-runs its stage and those downstream, a where-or-how-fast option none."""
import argparse
import dataclasses

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions

from picforge import stages
from picforge.options import options_from_args, positive_int
from picforge.rundir import RunDir
from picforge.stage_jobs import declared_steps, run_steps
from picforge.stage_registry import producing_command
from picforge.stages import Stage, option
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
