"""The layout's rules: no import cycle between top-level packages, a core that imports no area, a light `--help`."""
import ast
import pathlib
import subprocess
import sys

from picforge import verbs

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The top-level packages of code (schemas/ holds PiC's record schemas as data, which picforge.schemas loads).
PACKAGES = ("picforge", "pipeline", "annotation", "release", "companions")
AREAS = ("pipeline", "annotation", "release", "companions")
HEAVY = ("apache_beam", "torch", "spacy", "sentence_transformers", "transformers", "datasets", "boto3")


def package_imports():
    """{(importer, imported): [files]} over the static imports between top-level packages."""
    edges = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                elif isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                else:
                    continue
                for name in names:
                    target = name.split(".")[0]
                    if target in PACKAGES and target != package:
                        edges.setdefault((package, target), []).append(str(path.relative_to(ROOT)))
    return edges


def cycle(edges):
    """One import cycle between packages as a list of names, or None."""
    graph = {}
    for importer, imported in edges:
        graph.setdefault(importer, set()).add(imported)
    done, path = set(), []

    def visit(node):
        if node in path:
            return path[path.index(node):] + [node]
        if node in done:
            return None
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            found = visit(nxt)
            if found:
                return found
        path.pop()
        done.add(node)
        return None

    return next((found for node in sorted(graph) if (found := visit(node))), None)


def test_cycle_finder_sees_a_cycle():
    assert cycle({("a", "b"): [], ("b", "c"): [], ("c", "a"): []}) == ["a", "b", "c", "a"]
    assert cycle({("a", "b"): [], ("a", "c"): [], ("b", "c"): []}) is None


def test_no_import_cycle_between_top_level_packages():
    edges = package_imports()
    assert ("pipeline", "picforge") in edges  # the scan sees real imports
    assert cycle(edges) is None


def test_core_imports_no_area():
    assert {imported: files for (importer, imported), files in package_imports().items()
            if importer == "picforge" and imported in AREAS} == {}


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
