"""Bad runs fail with one line naming the triplet and the fix, leaving nothing behind; bad records are reported."""
import json
import os

import pytest

from tests.release.fixture_run import annotation_records, make_run, page_records, triplet_records


def build_fails(picforge, run, out, capsys):
    assert picforge("build", "--run", run, "--out", out) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("picforge: error: ")
    assert not os.path.exists(out) and os.listdir(os.path.dirname(out)) == ["run"]
    return err


@pytest.fixture
def tmp_run(tmp_path):
    return lambda **kw: make_run(tmp_path / "run", **kw)


def test_missing_ledger_export(picforge, tmp_run, tmp_path, capsys):
    err = build_fails(picforge, tmp_run(skip={"final_annotations"}), str(tmp_path / "out"), capsys)
    assert "final_annotations: stage 'final_annotations' has not completed" in err
    assert "picforge annotate export final --run" in err


def test_ledger_export_without_annotations(picforge, tmp_run, tmp_path, capsys):
    err = build_fails(picforge, tmp_run(final_annotations=[]), str(tmp_path / "out"), capsys)
    assert "holds no final annotations" in err


def test_missing_mining_stage(picforge, tmp_run, tmp_path, capsys):
    err = build_fails(picforge, tmp_run(skip={"sentences"}), str(tmp_path / "out"), capsys)
    assert "stage 'sentences' has not completed" in err and "picforge mine" in err


def test_page_missing_from_the_run(picforge, tmp_run, tmp_path, capsys):
    pages = [p for p in page_records() if p["page_id"] != 106]
    err = build_fails(picforge, tmp_run(clean=pages), str(tmp_path / "out"), capsys)
    assert "page 106 (page2 of triplet t04) is missing" in err


def test_phrase_not_found_in_its_passage(picforge, tmp_run, tmp_path, capsys):
    triplets = triplet_records()
    triplets[4]["page2"]["char_span"] = [0, 14]
    err = build_fails(picforge, tmp_run(select=triplets), str(tmp_path / "out"), capsys)
    assert "triplet t05 page2: phrase 'cold reception' is not at char_span [0, 14)" in err


def test_annotation_for_an_unknown_triplet(picforge, tmp_run, tmp_path, capsys):
    annotations = annotation_records()
    annotations[0]["triplet_id"] = "t99"
    err = build_fails(picforge, tmp_run(final_annotations=annotations), str(tmp_path / "out"), capsys)
    assert "triplet t99 of the final annotations is not in this run's select stage" in err


def test_failing_records_are_reported_by_id_and_never_written(picforge, tmp_run, tmp_path, capsys):
    annotations = annotation_records()
    annotations[5].update(q2="", ps_q2=True, ps_q2_phrase="")  # t06: empty paraphrase, endorsed in PS
    pages = page_records()
    ridgeview = next(p for p in pages if p["page_id"] == 103)
    ridgeview["text"] = ridgeview["text"].replace("Ridgeview stages", "{{Use dmy dates}} Ridgeview stages")
    out = tmp_path / "out"
    assert picforge("build", "--run", tmp_run(final_annotations=annotations, clean=pages), "--out", out) == 0
    err = capsys.readouterr().err
    assert "rejected PR-pass t06-2: query: '' should be non-empty" in err
    assert "rejected PR-page t03-1: context: markup residue '{{'" in err
    assert "rejected PR-page t06-1: context: markup residue '{{'" in err
    manifest = json.loads((out / "MANIFEST.json").read_text())
    rejected = {(r["config"], r["id"]) for r in manifest["rejected"]}
    assert {("PR-pass", "t06-2"), ("PR-page", "t06-2"), ("PR-page", "t03-1"), ("PS", "t06:negative")} <= rejected
    written = [json.loads(line)["id"] for split in ("train", "validation", "test")
               for line in (out / "PR-page" / f"{split}.json").read_text().splitlines()]
    assert not {"t03-1", "t06-1", "t06-2"} & set(written) and len(written) == 20
    assert "{{" not in (out / "PR-page" / "train.json").read_text()
