"""The whole CoSimLex round-trip through the CLI on a real candidates run: survey, forms, answers,
post-processing and evaluation; every step re-run safely."""
import csv
import json
import pathlib

import openpyxl
import pytest

from companions.cosimlex.stage_names import FINAL, FORMS, RATINGS, SELECTION
from companions.cosimlex.candidate_pipeline import CANDIDATES
from picforge import schemas
from picforge.cli import main
from picforge.encoders import BUNDLED_MODEL
from picforge.release_writer import sha256_file
from picforge.rundir import RunDir
from tests.croissant_checks import check_croissant

SHORTENED = "Schools group their pupils by age. A child learns to read in the first years. " \
            "Teachers meet an adult from each family."


def cli(*args):
    return main(["cosimlex", *map(str, args)])


def fill_selection_xlsx(path):
    """Answer the exported XLSX like an expert: two contexts of every pair, the child|adult candidate of
    page 102 among them and shortened by deleting text."""
    book = openpyxl.load_workbook(path)
    sheet = book.active
    header = [c.value for c in sheet[1]]
    col = {name: header.index(name) + 1 for name in header}
    rows_of = {}
    for row in range(2, sheet.max_row + 1):
        rows_of.setdefault(sheet.cell(row, col["pair_id"]).value, []).append(row)
    for rows in rows_of.values():
        rows.sort(key=lambda r: sheet.cell(r, col["candidate_id"]).value != "child|adult@102:0")
        if len(rows) >= 2:
            sheet.cell(rows[0], col["choice"]).value = "most"
            sheet.cell(rows[0], col["expected_difference"]).value = 2
            sheet.cell(rows[1], col["choice"]).value = "least"
    edited = next(r for rows in rows_of.values() for r in rows
                  if sheet.cell(r, col["candidate_id"]).value == "child|adult@102:0")
    sheet.cell(edited, col["edited_context"]).value = SHORTENED
    book.save(path)


def answers_file(folder, form, worker, base_rating):
    """The JSON a standalone form downloads (see test_rating_page), from one annotator."""
    answers = {"form_id": form["form_id"], "worker_id": worker}
    for number, item in enumerate(form["items"], start=1):
        letters = "".join(chr(97 + int(d)) if d.isdigit() else d for d in f"{form['form_id']}{number}")
        answers |= {f"item{number}_id": item["item_id"], f"item{number}_inspired1": f"idea{letters}{worker}",
                    f"item{number}_inspired2": "picture",
                    f"item{number}_rating": str(min(6, base_rating + item["context_no"] + number % 2))}
    path = folder / f"cosimlex-{form['form_id']}-{worker}.json"
    path.write_text(json.dumps({"form_id": form["form_id"], "worker_id": worker,
                                "submitted_at": f"2024-03-0{len(worker)}T10:00:00Z", "answers": answers}))
    return path


def test_survey_forms_answers_postprocess_and_eval(run_copy, tmp_path, capsys):
    run = RunDir(str(run_copy))
    assert cli("export", "selection", "--run", run_copy, "--expert", "ana") == 0
    export = pathlib.Path(run.join("cosimlex-exports", "selection"))
    assert {p.name for p in export.iterdir()} == {"selection-ana.csv", "selection-ana.xlsx", "guidelines.md"}
    given = tmp_path / "to-send"  # --out names another folder: the same files there, none in the run
    assert cli("export", "selection", "--run", run_copy, "--expert", "ana", "--out", given) == 0
    assert (given / "selection-ana.csv").read_bytes() == (export / "selection-ana.csv").read_bytes()
    assert {p.name for p in given.iterdir()} == {p.name for p in export.iterdir()}
    capsys.readouterr()
    assert cli("export", "selection", "--run", run_copy, "--out", run_copy / "cosimlex-candidates" / "x") == 2
    assert capsys.readouterr().err.endswith(f"sits inside the run {run_copy}; choose a --out outside it (nothing was "
                                            "written)\n")
    assert not (run_copy / "cosimlex-candidates" / "x").exists()
    with open(export / "selection-ana.csv", encoding="utf-8-sig") as fh:
        exported = list(csv.DictReader(fh))
    assert len(exported) == run.count_rows(CANDIDATES)
    sheet = tmp_path / "selection-ana-filled.xlsx"
    sheet.write_bytes((export / "selection-ana.xlsx").read_bytes())
    fill_selection_xlsx(sheet)

    assert cli("ingest", "selection", "--sheets", sheet, "--run", run_copy, "--expert", "ana") == 0
    selections = list(run.iter_records(SELECTION))
    pairs_with_two = {r["pair_id"] for r in exported if r["option"] == "2"}
    assert {s["pair_id"] for s in selections} == pairs_with_two
    child = next(s for s in selections if s["pair_id"] == "child|adult")
    (edited,) = [c for c in (child["context1"], child["context2"]) if c["candidate_id"] == "child|adult@102:0"]
    assert edited["text"] == SHORTENED and edited["edited"]
    assert edited["text"][edited["word2_start"]:edited["word2_end"]] == "adult"
    assert child[f"context{child['expected_more_similar']}"] == edited
    assert cli("ingest", "selection", "--sheets", sheet, "--run", run_copy, "--expert", "ana") == 0
    assert list(run.iter_records(SELECTION)) == selections

    assert cli("export", "rating", "--run", run_copy, "--pairs-per-form", 2, "--annotators", "ann,bea") == 0
    forms = sorted(run.iter_records(FORMS), key=lambda f: f["form_id"])
    assignments = pathlib.Path(run.join("cosimlex-exports", "rating", "assignments.csv")).read_text()
    variant_forms = {v: " ".join(f["form_id"] for f in forms if f["variant"] == v) for v in "AB"}
    assert assignments == f"annotator,variant,forms\nann,A,{variant_forms['A']}\nbea,B,{variant_forms['B']}\n"
    assert cli("export", "rating", "--run", run_copy, "--pairs-per-form", 2) == 0
    assert cli("export", "rating", "--run", run_copy, "--pairs-per-form", 1) == 2
    assert "pass --force only if none was posted" in capsys.readouterr().err
    plan = json.loads(pathlib.Path(run.join("cosimlex-exports", "rating", "plan.json")).read_text())
    assert [f["form_id"] for f in plan["forms"]] == [f["form_id"] for f in forms]
    tokens = {entry["request_token"] for entry in plan["forms"]}
    assert len(tokens) == len(forms) and all(len(t) <= 64 for t in tokens)  # MTurk's UniqueRequestToken
    for entry in plan["forms"]:
        assert pathlib.Path(entry["question_xml"]).read_text().startswith("<HTMLQuestion")
        assert 'data-mode="standalone"' in pathlib.Path(entry["standalone_html"]).read_text()

    files = []
    for form in forms:
        for worker, base in (("ann", 1), ("bea", 1), ("cyrus", 2)):
            files.append(answers_file(tmp_path, form, f"{worker}{form['variant']}", base))
    twice = answers_file(tmp_path, next(f for f in forms if f["variant"] == "B"), "annA", 0)  # both contexts
    assert cli("ingest", "rating", "--sheets", *files, twice, "--run", run_copy) == 0
    ratings = list(run.iter_records(RATINGS))
    repeat = {r["item_id"] for r in ratings if r["status"] == "repeat-pair"}
    assert repeat and all(r["worker_id"] == "annA" for r in ratings if r["status"] == "repeat-pair")
    capsys.readouterr()
    assert cli("ingest", "rating", "--sheets", *files, "--run", run_copy) == 0
    assert capsys.readouterr().out.startswith("0 new ratings")
    assert list(run.iter_records(RATINGS)) == ratings

    assert cli("postprocess", "--run", run_copy, "--min-correlation", "-1") == 0
    report = json.loads(capsys.readouterr().out)
    final = list(run.iter_records(FINAL))
    assert report["pairs"] == len(final) == len(selections)
    for row in final:
        assert schemas.errors("cosimlex_final", row) == []
        check_word_places(row)
        assert 0 <= row["sim1"] <= 10 and 0 <= row["sim2"] <= 10 and 0 <= row["p_value"] <= 1
    child_row = next(r for r in final if r["word1"] == "child")
    assert {child_row["word1_context1"], child_row["word1_context2"]} <= {"child", "children"}
    assert SHORTENED in (child_row["context1"], child_row["context2"])
    assert run.read_manifest(FINAL)["report"] == report

    predictions = tmp_path / "predictions.tsv"
    predictions.write_text("word1\tword2\tsim1\tsim2\n" + "".join(
        f"{r['word1']}\t{r['word2']}\t{r['sim1'] / 10}\t{r['sim2'] / 10}\n" for r in final))
    assert cli("evaluate", "--predictions", predictions, "--run", run_copy) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["pairs"] == len(final) and scores["subtask1"] == pytest.approx(1.0)

    check_release(run_copy, final, tmp_path, capsys)


def check_word_places(row):
    """Each word's offsets in each context cut out exactly its surface form there, a whole token, apart from the
    other word's."""
    for c in (1, 2):
        context = row[f"context{c}"]
        for w in (1, 2):
            start, end = row[f"context{c}_word{w}_start"], row[f"context{c}_word{w}_end"]
            form = context[start:end]
            assert form == row[f"word{w}_context{c}"] and form.strip() == form and form
            assert (start == 0 or not context[start - 1].isalnum()) and (end == len(context) or not context[end].isalnum())
        assert row[f"context{c}_word1_end"] <= row[f"context{c}_word2_start"] or \
            row[f"context{c}_word2_end"] <= row[f"context{c}_word1_start"]


def check_release(run_copy, final, tmp_path, capsys):
    """`cosimlex release` writes the rows, card, statistics, plot and a MANIFEST that checks; a re-run is
    skipped, --license rebuilds it, and a folder that is no release is refused."""
    release = tmp_path / "release"
    assert cli("release", "--run", run_copy, "--out", release) == 0
    assert "license other" in capsys.readouterr().out
    assert sorted(str(p.relative_to(release)) for p in release.rglob("*") if p.is_file()) == [
        "MANIFEST.json", "README.md", "croissant.json", "data/test.jsonl", "data/test.parquet", "plots/similarities.png",
        "stats.json"]
    released = [json.loads(line) for line in (release / "data" / "test.jsonl").read_text().splitlines()]
    assert released == final
    manifest = json.loads((release / "MANIFEST.json").read_text())
    assert manifest["counts"] == {"test": len(final)} and manifest["license"] == "other"
    for name, entry in manifest["files"].items():
        assert sha256_file(str(release / name)) == entry["sha256"]
    assert (release / "plots" / "similarities.png").read_bytes().startswith(b"\x89PNG")
    stats = json.loads((release / "stats.json").read_text())
    changes = [abs(r["sim2"] - r["sim1"]) for r in final]
    assert stats["pairs"] == len(final) and stats["mean_abs_change"] == round(sum(changes) / len(changes), 3)
    card = (release / "README.md").read_text()
    assert "\nlicense: other\n" in card and f"| pairs | {len(final)} |" in card
    assert "SimLex-999's" in card and "CC BY-SA" in card and "worked out from what this release redistributes" in card
    assert "No one licence meets all of these terms, so each part keeps its own (`other`)." in card
    candidates = RunDir(str(run_copy)).read_manifest(CANDIDATES)["options"]
    assert f"scored by `{BUNDLED_MODEL}` token vectors, the tok2vec layer of `{candidates['spacy_model']}`" in card
    metadata = check_croissant(release, tmp_path / "croissant-cache")
    assert metadata["rai:annotationsPerItem"].endswith(")") and "ratings per context" in metadata["rai:annotationsPerItem"]
    assert [entity["name"] for entity in metadata["prov:wasDerivedFrom"]] == ["English Wikipedia", "SimLex-999"]

    from datasets import load_dataset
    loaded = load_dataset(str(release), cache_dir=str(tmp_path / "cache"))
    assert list(loaded) == ["test"] and loaded["test"].to_list() == final
    assert loaded["test"].features["sim1"].dtype == "float64"

    assert cli("release", "--run", run_copy, "--out", release) == 0
    assert "up to date, skipped" in capsys.readouterr().out
    # CC BY-SA would relicense SimLex-999's pairs, which carry their authors' terms: refused unless overridden
    assert cli("release", "--run", run_copy, "--out", release, "--license", "cc-by-sa-4.0") == 2
    assert "SimLex-999 is redistributed under `other`, which allows `other`" in capsys.readouterr().err
    assert cli("release", "--run", run_copy, "--out", release, "--license", "cc-by-sa-4.0", "--license-override",
               "the SimLex-999 authors agreed to CC BY-SA") == 0
    assert "license cc-by-sa-4.0" in capsys.readouterr().out
    card = (release / "README.md").read_text()
    assert "\nlicense: cc-by-sa-4.0\n" in card and "chosen with --license against the redistributed" in card
    assert 'recorded this override: "the SimLex-999 authors agreed to CC BY-SA"' in card
    assert json.loads((release / "MANIFEST.json").read_text())["fingerprint"] != manifest["fingerprint"]

    notes = tmp_path / "notes" / "keep.txt"
    notes.parent.mkdir()
    notes.write_text("mine")
    assert cli("release", "--run", run_copy, "--out", notes.parent) == 2 and notes.read_text() == "mine"
    assert "holds files that are not a CoSimLex release; pass --force" in capsys.readouterr().err


def test_steps_out_of_order_say_which_command_comes_first(tmp_path, capsys):
    assert cli("export", "selection", "--run", tmp_path) == 2
    assert f"run `picforge cosimlex candidates --pairs SIMLEX --run MINED_RUN --out {tmp_path}` first" in (
        capsys.readouterr().err)
    assert cli("postprocess", "--run", tmp_path) == 2
    assert "run `picforge cosimlex ingest rating --run" in capsys.readouterr().err
