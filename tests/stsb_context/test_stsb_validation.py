"""Two-annotator validation sheets and the released dataset with its card."""
import csv
import json

import pytest
from openpyxl import load_workbook

from companions.stsb_context import dataset, validation
from picforge import schemas
from picforge.errors import InputError
from picforge.release_writer import sha256_file
from picforge.rundir import RunDir
from tests.croissant_checks import check_croissant

FAULTS = {"measures another woman": "no-phrase"}


@pytest.fixture
def exported(picforge, small_stsb, openai_server, tmp_path):
    """A run directory with all 14 pairs generated (13 kept) and the validation sheets exported."""
    server = openai_server(faults=FAULTS)
    out = tmp_path / "run"
    assert picforge("stsb-context", "generate", "--stsb", small_stsb, "--out", out, "--base-url", server.base_url) == 0
    assert picforge("stsb-context", "export", "validation", "--run", out) == 0
    return out


def read_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def write_csv(path, rows):
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=validation.COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path


def filled_csv(exported, tmp_path, answers, name="a1.csv"):
    rows = read_csv(exported / "validation" / "annotator-1.csv")
    for row, answer in zip(rows, answers):
        row["changes_similarity"] = answer
    return write_csv(tmp_path / name, rows)


def test_export_fill_ingest_release(exported, picforge, tmp_path, capsys):
    stage = exported / "validation"
    assert sorted(p.name for p in stage.iterdir()) == [
        "GUIDELINES.md", "_manifest.json", "annotator-1.csv", "annotator-1.xlsx", "annotator-2.csv", "annotator-2.xlsx"]
    rows = read_csv(stage / "annotator-1.csv")
    kept = [r for r in RunDir(str(exported)).iter_records("generations") if r["status"] == "kept"]
    assert [r["item_id"] for r in rows] == [r["pair_id"] for r in kept] and len(rows) == 13
    for row in rows:
        assert schemas.errors("stsb_validation_row", dict(row, score=float(row["score"]))) == []
    assert {r["annotator"] for r in rows} == {"annotator-1"}

    # annotator 1 flags the first item in the CSV; annotator 2 flags the last one in the XLSX (lower-case answers)
    first = filled_csv(exported, tmp_path, ["Y"] + ["N"] * 12)
    book = load_workbook(stage / "annotator-2.xlsx")
    sheet = book.active
    answer_column = validation.COLUMNS.index("changes_similarity") + 1
    for row in range(2, 15):
        sheet.cell(row=row, column=answer_column, value="yes" if row == 14 else "no")
    second = tmp_path / "a2.xlsx"
    book.save(second)

    assert picforge("stsb-context", "ingest", "validation", "--run", exported, "--sheets", first, second) == 0
    assert "11 rows" in capsys.readouterr().out
    released = [json.loads(line) for line in (exported / "dataset" / dataset.JSONL).read_text().splitlines()]
    assert len(released) == 11
    assert [r["origin_phrase"] for r in released] == [r["origin_phrase"] for r in kept[1:12]]
    for row in released:
        assert list(row) == list(dataset.FIELDS) and schemas.errors("stsb_context", row) == []
        assert row["context"][row["target_start"]:row["target_start"] + len(row["target_phrase"])] == row["target_phrase"]
    assert RunDir(str(exported)).read_table("dataset").to_pylist() == released

    manifest = RunDir(str(exported)).read_manifest("dataset")
    assert manifest["counters"] == {"validation/items": 13, "validation/flagged_by_annotator-1": 1,
                                    "validation/flagged_by_annotator-2": 1, "validation/dropped": 2}
    # by hand: p_o = 11/13, p_e = (1/13)^2 + (12/13)^2 = 145/169, kappa = (143 - 145) / (169 - 145)
    assert manifest["agreement"]["agreement"] == pytest.approx(11 / 13)
    assert manifest["agreement"]["cohen_kappa"] == pytest.approx(-2 / 24)
    assert manifest["validation_drop_rate"] == pytest.approx(2 / 13)
    assert manifest["verbatim_drop_rate"] == pytest.approx(1 / 14)

    from datasets import load_dataset
    loaded = load_dataset("json", data_files=str(exported / "dataset" / dataset.JSONL), split="train")
    assert loaded.num_rows == 11 and loaded.column_names == list(dataset.FIELDS)

    assert picforge("stsb-context", "ingest", "validation", "--run", exported, "--sheets", first, second) == 0
    assert "up to date, skipped" in capsys.readouterr().out

    check_release(exported, released, picforge, tmp_path, capsys)


def check_release(run, released, picforge, tmp_path, capsys):
    """`stsb-context release` writes the validated rows, a card with construction, statistics and licence, and a
    MANIFEST that checks; a re-run is skipped and --license rebuilds it."""
    out = tmp_path / "release"
    assert picforge("stsb-context", "release", "--run", run, "--out", out) == 0
    assert "test 11 rows, license other" in capsys.readouterr().out
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert sorted(manifest["files"]) == ["README.md", "croissant.json", "data/test.jsonl", "data/test.parquet",
                                         "stats.json"]
    for name, entry in manifest["files"].items():
        assert sha256_file(str(out / name)) == entry["sha256"]
    assert [json.loads(line) for line in (out / "data" / "test.jsonl").read_text().splitlines()] == released
    card = (out / "README.md").read_text()
    assert card.startswith("---\n") and "\npretty_name: STS-B-Context\n" in card
    assert "  - split: test\n    path: data/test.jsonl\n" in card and "    num_examples: 11\n" in card
    assert "| rows | 11 |" in card and "7.1% dropped" in card and "Cohen's kappa -0.083" in card
    assert "\nlicense: other\n" in card
    assert "## License\n\n`other`, worked out from what this release redistributes" in card
    assert "## Evaluation (SLICE Table 1)\n\nNot evaluated in the run this release was made from." in card
    from datasets import load_dataset
    loaded = load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert list(loaded) == ["test"] and loaded["test"].to_list() == released
    metadata = check_croissant(out, tmp_path / "croissant-cache")
    assert metadata["prov:wasDerivedFrom"][0]["name"] == "STS Benchmark"
    assert metadata["rai:annotationsPerItem"] == "2 judgements per generated context"
    assert "Cohen's kappa -0.083" in metadata["rai:dataAnnotationAnalysis"][0]

    assert picforge("stsb-context", "release", "--run", run, "--out", out) == 0
    assert "up to date, skipped" in capsys.readouterr().out
    # the STS-B pairs keep their sources' terms: another licence is refused unless an override says why
    assert picforge("stsb-context", "release", "--run", run, "--out", out, "--license", "cc-by-sa-4.0") == 2
    assert "STS Benchmark is redistributed under `other`, which allows `other`" in capsys.readouterr().err
    assert picforge("stsb-context", "release", "--run", run, "--out", out, "--license", "cc-by-sa-4.0",
                    "--license-override", "only the CC BY-SA captions part is used") == 0
    card = (out / "README.md").read_text()
    assert "\nlicense: cc-by-sa-4.0\n" in card and "chosen with --license against the redistributed inputs' " \
                                                   "terms" in card
    assert 'recorded this override: "only the CC BY-SA captions part is used"' in card


@pytest.mark.parametrize("edit, message", [
    (lambda rows: rows[4].update(changes_similarity="maybe"), "row 6: changes_similarity is 'maybe'; write Y"),
    (lambda rows: rows[2].update(item_id="MSRvid-2012test-9999"), "row 4: item_id 'MSRvid-2012test-9999' is not"),
    (lambda rows: rows.append(dict(rows[0])), "row 15: item MSRvid-2012test-0024 is answered twice"),
    (lambda rows: rows.pop(), "no row for 1 item(s), first"),
    (lambda rows: rows[3].update(annotator="someone"), "row 5: annotator 'someone' differs"),
])
def test_bad_sheet_names_file_and_row(exported, tmp_path, edit, message):
    rows = read_csv(exported / "validation" / "annotator-1.csv")
    for row in rows:
        row["changes_similarity"] = "N"
    edit(rows)
    sheet = write_csv(tmp_path / "bad.csv", rows)
    good = filled_csv(exported, tmp_path, ["N"] * 13, name="good.csv")
    with pytest.raises(InputError) as err:
        dataset.ingest_validation(RunDir(str(exported)), [str(good), str(sheet)])
    assert str(err.value).startswith(str(sheet)) and message in str(err.value)
    assert not (exported / "dataset").exists()


def test_ingest_needs_two_different_annotators(exported, tmp_path):
    one = filled_csv(exported, tmp_path, ["N"] * 13)
    run = RunDir(str(exported))
    with pytest.raises(InputError, match="give exactly 2 filled sheets"):
        dataset.ingest_validation(run, [str(one)])
    with pytest.raises(InputError, match="annotator 'annotator-1' already answered in the other sheet"):
        dataset.ingest_validation(run, [str(one), str(one)])


def test_export_guards_unfinished_generations_and_filled_sheets(picforge, small_stsb, openai_server, tmp_path, capsys):
    server = openai_server(faults=FAULTS)
    out = tmp_path / "run"
    assert picforge("stsb-context", "generate", "--stsb", small_stsb, "--out", out, "--base-url", server.base_url,
                    "--max-requests", 5) == 1
    assert picforge("stsb-context", "export", "validation", "--run", out) == 2
    assert "9 pairs have no answer yet" in capsys.readouterr().err
    assert picforge("stsb-context", "export", "validation", "--run", out, "--partial") == 0
    assert len(read_csv(out / "validation" / "annotator-1.csv")) == 4  # 5 answered, 1 without the phrase

    assert picforge("stsb-context", "generate", "--stsb", small_stsb, "--out", out, "--base-url", server.base_url) == 0
    assert picforge("stsb-context", "export", "validation", "--run", out) == 2
    assert "exporting again would overwrite" in capsys.readouterr().err
    assert len(read_csv(out / "validation" / "annotator-1.csv")) == 4  # 5 answered, 1 without the phrase
    assert picforge("stsb-context", "export", "validation", "--run", out, "--force") == 0
    assert len(read_csv(out / "validation" / "annotator-1.csv")) == 13


def test_steps_out_of_order_say_what_to_run_first(picforge, tmp_path, capsys):
    empty = tmp_path / "empty"
    assert picforge("stsb-context", "export", "validation", "--run", empty) == 2
    assert f"--run {empty}: no such run directory" in capsys.readouterr().err
    empty.mkdir()
    assert picforge("stsb-context", "export", "validation", "--run", empty) == 2
    assert "stage 'generations' has not completed" in capsys.readouterr().err
    assert picforge("stsb-context", "evaluate", "--run", empty) == 2
    assert f"run `picforge stsb-context ingest validation --run {empty} --sheets SHEET SHEET` first" in capsys.readouterr().err
    assert picforge("stsb-context", "ingest", "validation", "--run", empty, "--sheets", tmp_path / "a.csv", tmp_path / "b.csv") == 2
    assert "a.csv: no such sheet" in capsys.readouterr().err
    assert picforge("stsb-context", "generate", "--stsb", tmp_path / "missing.tsv", "--out", empty, "--offline") == 2
    assert "missing.tsv: no such path; give the STS Benchmark test file with --stsb" in capsys.readouterr().err
