"""The README's and docs' command, option and stage tables are the registries' (picforge.doc_tables): a committed
table that differs from what the verbs and stages declare fails here, naming the file and `make docs`."""
import glob
import pathlib
import subprocess
import sys

import pytest

from picforge import doc_tables, verbs

ROOT = pathlib.Path(__file__).resolve().parents[1]


def pages():
    """{path relative to the repository: text} of every file whose tables are generated."""
    return {str(pathlib.Path(path).relative_to(ROOT)): pathlib.Path(path).read_text(encoding="utf-8")
            for pattern in doc_tables.FILES for path in sorted(glob.glob(str(ROOT / pattern)))}


def test_every_generated_table_is_what_the_registries_say():
    drifted = [path for path, text in pages().items() if doc_tables.refreshed(text) != text]
    assert drifted == [], f"tables differ from the registries in {drifted}: run `make docs`"


def test_the_readme_and_every_areas_page_hold_generated_tables():
    found = {path: {(kind, words) for kind, words, _ in doc_tables.blocks(text)} for path, text in pages().items()}
    assert {("options", "mine"), ("commands", "all")} <= found["README.md"]
    assert ("stages", "mine") in found["docs/mining.md"]
    core = [name for name, dist in verbs.areas().distributions.items() if dist == verbs.CORE_DISTRIBUTION]
    listed = {words for path, held in found.items() if path.startswith("docs/") for kind, words in held
              if kind == "commands"}
    assert sorted(set(core) - listed) == []  # each area's page lists its verbs
    readme = doc_tables.render("commands", "all")
    assert [verb for verb in verbs.every_verb() if verbs.find(verb.words) is verb and verb.area in core
            and f"`picforge {' '.join(verbs.canonical_words(verb))}`" not in readme] == []


def test_a_table_follows_the_declarations_it_is_made_from():
    stale = "<!-- generated: options annotate report -->\n| option | stale |\n<!-- end generated -->\n"
    fresh = doc_tables.refreshed(stale)
    assert "stale" not in fresh and "| `--json PATH` | — | also write the report as JSON |" in fresh
    commands = doc_tables.render("commands", "annotate export")
    assert "| `picforge annotate export expert` | per-annotator sheets of triplets to paraphrase (Q1/Q2/Q3) | `--out` " \
           "(a folder, default `RUN_DIR/annotation/expert`) |" in commands.splitlines()
    assert "stage `final_annotations` of `--run`" in commands and "mturk" not in commands
    with pytest.raises(ValueError, match="no verb `picforge annotate nothing`"):
        doc_tables.render("options", "annotate nothing")
    with pytest.raises(ValueError, match="kind 'verbs'"):
        doc_tables.render("verbs", "mine")


def test_make_docs_check_names_a_drifted_file(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tables.py").write_text((ROOT / "docs" / "tables.py").read_text(encoding="utf-8"))
    (tmp_path / "README.md").write_text("<!-- generated: options annotate trace -->\nold\n<!-- end generated -->\n")
    check = [sys.executable, str(docs / "tables.py"), "--check"]
    done = subprocess.run(check, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert (done.returncode, done.stdout) == (1, f"{tmp_path / 'README.md'}: tables differ from the registries; "
                                                 "run `make docs`\n")
    assert subprocess.run(check[:-1], capture_output=True, timeout=120, cwd=ROOT).returncode == 0
    rewritten = (tmp_path / "README.md").read_text()
    assert "`--id ID`" in rewritten and doc_tables.refreshed(rewritten) == rewritten
