"""`picforge build` on the fixture run: what each task holds, ids, splits, idempotency and atomic replacement."""
import json
import os
import re

from release import checks
from release.cli import build
from release.configs import SPLITS, read_split
from release.write import read_manifest
from tests.release.conftest import build_args
from tests.release.fixture_run import ANNOTATIONS, PAGES

ANNOTATED = {tid: (phrase, p1, p2, q1, q2, same, ps1, ps2)
             for tid, phrase, p1, p2, q1, q2, same, ps1, ps2 in ANNOTATIONS}


def records(release_dir, config):
    return {split: read_split(release_dir, config, split) for split in SPLITS}


def all_records(release_dir, config):
    return [r for rows in records(release_dir, config).values() for r in rows]


def page_sentences(page_id):
    return [s for paragraph in PAGES[page_id][2] for s in paragraph]


def test_ps_is_balanced_and_built_from_page_one_sentences(release_dir):
    rows = all_records(release_dir, "PS")
    # 11 positives survive PS verification (t09's is rejected), 9 negatives (10 differ in sense, t08's rejected).
    assert len(rows) == 18 and sum(r["label"] for r in rows) == 9
    by_pair = {(r["phrase1"].lower(), r["phrase2"]): r for r in rows}
    for tid, (phrase, p1, _, q1, q2, same, ps1, ps2) in ANNOTATED.items():
        if (phrase, q2) in by_pair:
            assert not same and ps2 is not False and by_pair[(phrase, q2)]["label"] == 0
        assert ((phrase, q1) in by_pair) <= (ps1 is not False)
    for r in rows:
        assert r["sentence1"] in {s for page in PAGES for s in page_sentences(page)}
        assert r["sentence2"] == r["sentence1"].replace(r["phrase1"], r["phrase2"], 1)
    for split, rows_of_split in records(release_dir, "PS").items():
        assert [r["idx"] for r in rows_of_split] == list(range(len(rows_of_split)))


def test_pr_pass_holds_both_paraphrases_in_eleven_sentence_passages(release_dir):
    rows = {r["id"]: r for r in all_records(release_dir, "PR-pass")}
    assert sorted(rows) == sorted(f"{tid}-{side}" for tid in ANNOTATED for side in (1, 2))
    for example_id, r in rows.items():
        tid, side = example_id.rsplit("-", 1)
        phrase, p1, p2, q1, q2, *_ = ANNOTATED[tid]
        page = (p1, p2)[int(side) - 1]
        assert r["query"] == (q1, q2)[int(side) - 1]
        assert r["title"] == f"https://en.wikipedia.org/wiki?curid={page}"
        sentences = page_sentences(page)
        assert r["context"] in " ".join(sentences)
        assert sum(r["context"].count(s) for s in sentences) == min(11, len(sentences))
        start, text = r["answers"]["answer_start"][0], r["answers"]["text"][0]
        assert text.lower() == phrase and r["context"][start:start + len(text)] == text


def test_pr_page_uses_the_whole_page_and_drops_pages_holding_the_query(release_dir):
    rows = {r["id"]: r for r in all_records(release_dir, "PR-page")}
    # t02's q1 "steep decline" is written in its page 1 (Harlow Mutual Bank): that example is left out.
    assert "t02-1" not in rows and len(rows) == 23
    page_texts = {"\n\n".join(" ".join(p) for p in paragraphs) for _, _, paragraphs in PAGES.values()}
    for r in rows.values():
        start, text = r["answers"]["answer_start"][0], r["answers"]["text"][0]
        assert r["context"] in page_texts and r["context"][start:start + len(text)] == text
        assert checks.count_phrase(r["context"], r["query"]) == 0
    manifest = read_manifest(release_dir)
    assert manifest["skipped"]["PR-page"] == {"the page contains the query verbatim": 1}


def test_psd_holds_the_phrase_twice_and_answers_in_the_query_sense_paragraph(release_dir):
    rows = {r["id"]: r for r in all_records(release_dir, "PSD")}
    assert sorted(i.split("-")[0] for i in rows) == [tid for tid, v in sorted(ANNOTATED.items()) if not v[5]]
    assert rows.keys() >= {"t09-2"}  # t09's q1 pair failed PS verification, so its query must be q2
    assert "t08-2" not in rows
    for example_id, r in rows.items():
        tid, side = example_id.rsplit("-", 1)
        phrase, p1, p2, q1, q2, *_ = ANNOTATED[tid]
        first, second = r["context"].split("\n\n")
        assert checks.count_phrase(first, phrase) == 1 and checks.count_phrase(second, phrase) == 1
        assert r["query"] == (q1, q2)[int(side) - 1]
        start = r["answers"]["answer_start"][0]
        in_first = start < len(first)
        assert in_first == (side == "1")
        assert r["title"].split() == [f"https://en.wikipedia.org/wiki?curid={p}" for p in (p1, p2)]
        assert len([s for s in page_sentences(p1) if s in first]) <= 11
    # "stable location" is written twice, three sentences apart, on the Kestrel Fault Zone page (t03 page 2).
    second = rows["t03-1" if "t03-1" in rows else "t03-2"]["context"].split("\n\n")[1]
    assert second.count("stable location") == 1 and len(re.findall(r"\.(?: |$)", second)) < 11


def test_every_triplet_stays_in_one_split(release_dir):
    for config in ("PR-pass", "PR-page", "PSD"):
        seen = {}
        for split, rows in records(release_dir, config).items():
            for r in rows:
                assert seen.setdefault(r["id"].rsplit("-", 1)[0], split) == split
    pass_split = {r["id"]: s for s, rows in records(release_dir, "PR-pass").items() for r in rows}
    for split, rows in records(release_dir, "PR-page").items():
        assert all(pass_split[r["id"]] == split for r in rows)


def test_manifest_lists_every_file_with_its_checksum(release_dir):
    manifest = read_manifest(release_dir)
    on_disk = {os.path.relpath(os.path.join(d, f), release_dir) for d, _, fs in os.walk(release_dir) for f in fs}
    assert set(manifest["files"]) == on_disk - {"MANIFEST.json"}
    assert manifest["counts"]["PSD"] == {"train": 3, "validation": 1, "test": 6}
    assert manifest["rejected"] == [] and manifest["seed"] == 42
    assert set(manifest["inputs"]) == {"clean", "sentences", "select", "final_annotations"}


def test_rebuild_is_skipped_then_forced_identically_and_another_seed_differs(run_dir, release_dir, tmp_path,
                                                                              capsys):
    assert build.run(build_args(run_dir, release_dir)) == 0
    assert "up to date" in capsys.readouterr().out
    copy = tmp_path / "again"
    assert build.run(build_args(run_dir, copy)) == 0
    assert read_manifest(copy)["files"] == read_manifest(release_dir)["files"]  # byte-identical rebuild
    assert build.run(build_args(run_dir, copy, seed=7, force=True)) == 0
    assert read_manifest(copy)["seed"] == 7
    assert read_manifest(copy)["files"]["PR-pass/train.json"] != read_manifest(release_dir)["files"][
        "PR-pass/train.json"]
    assert sorted(os.listdir(tmp_path)) == ["again"]  # no staging or old directories left behind


def test_build_refuses_to_overwrite_other_content_without_force(picforge, run_dir, tmp_path, capsys):
    out = tmp_path / "busy"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert picforge("build", "--run", run_dir, "--out", out) == 2
    assert "not a picforge release; pass --force" in capsys.readouterr().err
    assert (out / "notes.txt").read_text() == "keep me"
    assert picforge("build", "--run", run_dir, "--out", out, "--force") == 0
    assert not (out / "notes.txt").exists() and json.loads((out / "MANIFEST.json").read_text())["seed"] == 42
