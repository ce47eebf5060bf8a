"""The layout's rules, over the real import graph (imports at module top and inside functions, importlib names):
no import cycle between modules nor between top-level packages, a core that imports no area, a light `--help`."""
import pathlib
import subprocess
import sys

from picforge import verbs
from tests.import_graph import Edge, cycles, describe, module_edges

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The top-level packages of code (schemas/ holds PiC's record schemas as data, which picforge.schemas loads).
PACKAGES = ("picforge", "pipeline", "annotation", "release", "companions")
AREAS = ("pipeline", "annotation", "release", "companions")
HEAVY = ("apache_beam", "torch", "spacy", "sentence_transformers", "transformers", "datasets", "boto3")
def repository_edges():
    """Every import edge between the repository's modules."""
    return module_edges(ROOT, PACKAGES)


def package_edges(edges):
    """The module edges between two different top-level packages, as Edges between the packages (first place)."""
    found = {}
    for edge in edges:
        pair = (edge.importer.split(".")[0], edge.imported.split(".")[0])
        if pair[0] != pair[1] and pair not in found:
            found[pair] = Edge(*pair, edge.path, edge.line, edge.how)
    return list(found.values())


def test_the_graph_reader_sees_lazy_imports_importlib_names_and_every_cycle(tmp_path):
    files = {
        "a/__init__.py": "",
        "a/one.py": "import os\nfrom a import two\n",
        "a/two.py": "def later():\n    from .three import x\n",
        "a/three.py": "import importlib\nx = importlib.import_module('a.one')\n",
        "a/four.py": "HOOKS = {'run': 'a.five:main'}\n",
        "a/five.py": "from a.four import HOOKS\n",
        "a/six.py": "from a import one\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    edges = module_edges(tmp_path, ("a",))
    assert [(e.importer, e.imported, e.how) for e in edges] == [
        ("a.five", "a.four", "top"), ("a.four", "a.five", "string"), ("a.one", "a.two", "top"),
        ("a.six", "a.one", "top"), ("a.three", "a.one", "top"), ("a.two", "a.three", "lazy")]
    found = cycles(edges)
    assert [[e.importer for e in cycle] for cycle in found] == [["a.five", "a.four"], ["a.one", "a.two", "a.three"]]
    assert describe(found[1]).splitlines()[1] == "  a.two -> a.three (a/two.py:2, lazy)"


def test_no_import_cycle_between_modules():
    edges = repository_edges()
    assert {edge.how for edge in edges} >= {"top", "lazy"}  # the scan sees real imports, lazy ones too
    found = cycles(edges)
    for cycle in found:
        print(f"import cycle:\n{describe(cycle)}")
    assert not found, "import cycles:\n" + "\n\n".join(describe(cycle) for cycle in found)


def test_no_import_cycle_between_top_level_packages():
    edges = package_edges(repository_edges())
    assert any(edge.importer == "pipeline" and edge.imported == "picforge" for edge in edges)
    found = cycles(edges)
    for cycle in found:
        print(f"package cycle:\n{describe(cycle)}")
    assert not found, "package cycles:\n" + "\n\n".join(describe(cycle) for cycle in found)


def test_core_imports_no_area():
    edges = module_edges(ROOT, PACKAGES)
    into_areas = [edge for edge in edges if edge.importer.split(".")[0] == "picforge"
                  and edge.imported.split(".")[0] in AREAS]
    for edge in into_areas:
        print(f"core imports an area: {edge}")
    assert not into_areas, "the core imports an area:\n" + "\n".join(f"  {edge}" for edge in into_areas)


def test_a_companion_imports_only_the_core_and_its_own_package():
    """Companions use the core's public API (picforge), never an area's modules nor another companion's: what they
    share with an area (the ledger, MTurk's XML, seeded sampling, the POS rules) is a core module."""
    outside = [edge for edge in repository_edges() if edge.importer.startswith("companions.")
               and edge.imported.split(".")[0] != "picforge"
               and edge.imported.split(".")[:2] != edge.importer.split(".")[:2]]
    assert any(edge.importer.startswith("companions.mcphrasy") and edge.imported == "picforge.ledger"
               for edge in repository_edges())
    assert not outside, "a companion imports beyond the core:\n" + "\n".join(f"  {edge}" for edge in outside)


def imported_heavy_modules(*argv):
    """The heavy libraries a fresh `python -m picforge.cli ARGV…` has imported when it exits."""
    code = ("import sys, runpy\n"
            f"sys.argv = ['picforge', *{list(argv)!r}]\n"
            "try:\n    runpy.run_module('picforge.cli', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def test_help_is_a_table_of_contents_and_imports_no_heavy_library():
    stdout, stderr = imported_heavy_modules("--help")
    assert stdout.splitlines()[-1] == "[]"
    for section in ("mining:", "annotation:", "build & publish:", "companions:"):
        assert section in stdout
    for command in ("pipeline", "mine", "annotate", "release", "build", "stsb-context",
                    "cosimlex"):
        assert f"\n  {command} " in stdout
    assert "apitools" not in stderr


# Its cli package still imports Beam-using library modules at module top.
STILL_HEAVY = ("mcphrasy",)


def test_every_command_registers_without_a_heavy_library():
    light = [(command, "--help") for command in verbs.areas().areas if command not in STILL_HEAVY]
    for argv in (*light, ("annotate", "mturk", "create", "--help")):
        stdout, stderr = imported_heavy_modules(*argv)
        assert stdout.splitlines()[-1] == "[]", argv
        assert "apitools" not in stderr


def test_the_core_lists_no_stage_until_the_areas_register_theirs():
    code = ("from picforge import cli, rundir, stage_registry\n"
            "print(len(stage_registry.PRODUCED_BY))\n"
            "cli.register_area_stages()\n"
            "print(stage_registry.PRODUCED_BY['select'])\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["0", "picforge mine --input DUMP --wic WIC_ZIP --out {run}"]
