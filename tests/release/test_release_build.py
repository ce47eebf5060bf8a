"""`picforge build` on the fixture run: what each task holds, ids, splits, idempotency and atomic replacement."""
import json
import os
import re
from collections import Counter

from release import checks
from release.cli import build
from release.configs import read_split
from picforge.release_writer import read_manifest
from tests.release.conftest import build_args
from tests.release.fixture_run import ANNOTATIONS, PAGES, PS_CORRECTIONS

ANNOTATED = {tid: (phrase, p1, p2, q1, q2, same, ps1, ps2)
             for tid, phrase, p1, p2, q1, q2, same, ps1, ps2 in ANNOTATIONS}


def records(release_dir, config):
    """{split: records} of the splits the release wrote for `config` (empty splits are never written)."""
    return {split: read_split(release_dir, config, split) for split in read_manifest(release_dir)["counts"][config]}


def all_records(release_dir, config):
    return [r for rows in records(release_dir, config).values() for r in rows]


def page_sentences(page_id):
    return [s for paragraph in PAGES[page_id][2] for s in paragraph]


def test_ps_releases_the_pairs_the_ps_experts_endorsed_with_their_corrections(release_dir):
    rows = all_records(release_dir, "PS")
    # Endorsed positives: t01 t03 t04 t06 t07 t08 t10 t11 (8; t09's rejected, t02 t05 t12 unverified); endorsed
    # negatives: t01 t02 t03 t04 t05 t07 t09 t10 (8; t08's rejected, t06 unverified, t11 t12 same sense): 8 + 8.
    assert len(rows) == 16 and sum(r["label"] for r in rows) == 8
    by_pair = {(r["phrase1"].lower(), r["phrase2"]): r for r in rows}
    for tid, (phrase, p1, _, q1, q2, same, ps1, ps2) in ANNOTATED.items():
        assert ((phrase, q2) in by_pair) == (not same and ps2 is True)
        assert ((phrase, PS_CORRECTIONS.get(tid, q1)) in by_pair) == (ps1 is True)
    assert ("annual report", "yearly statement") not in by_pair      # t11's q1 as corrected by the PS experts
    for r in rows:
        assert r["sentence1"] in {s for page in PAGES for s in page_sentences(page)}
        assert r["sentence2"] == r["sentence1"].replace(r["phrase1"], r["phrase2"], 1)
    for split, rows_of_split in records(release_dir, "PS").items():
        assert [r["idx"] for r in rows_of_split] == list(range(len(rows_of_split)))
    skipped = read_manifest(release_dir)["skipped"]["PS"]
    assert skipped == {"positive pair not verified by the PS experts": 3, "positive pair rejected by PS verification": 1,
                       "negative pair not verified by the PS experts": 1, "negative pair rejected by PS verification": 1}


def test_pr_pass_holds_both_paraphrases_in_eleven_sentence_passages(release_dir):
    rows = {r["id"]: r for r in all_records(release_dir, "PR-pass")}
    assert sorted(rows) == sorted(f"{tid}-{side}" for tid in ANNOTATED for side in (1, 2))
    for example_id, r in rows.items():
        tid, side = example_id.rsplit("-", 1)
        phrase, p1, p2, q1, q2, *_ = ANNOTATED[tid]
        page = (p1, p2)[int(side) - 1]
        assert r["query"] == (q1, q2)[int(side) - 1]
        assert r["title"] == PAGES[page][0]  # the page title, as PiC has it; the address has its own field
        assert r["url"] == "https://en.wikipedia.org/wiki/" + PAGES[page][0].replace(" ", "_")
        assert r["revision_id"] == str(700000000 + page)
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
        assert r["title"].split(" | ") == [PAGES[p][0] for p in (p1, p2)]
        assert r["revision_id"].split(" | ") == [str(700000000 + p) for p in (p1, p2)]
        assert len([s for s in page_sentences(p1) if s in first]) <= 11
    # "stable location" is written twice, three sentences apart, on the Kestrel Fault Zone page (t03 page 2).
    second = rows["t03-1" if "t03-1" in rows else "t03-2"]["context"].split("\n\n")[1]
    assert second.count("stable location") == 1 and len(re.findall(r"\.(?: |$)", second)) < 11


def test_no_triplet_crosses_splits_across_configs(release_dir):
    tid_of_phrase = {phrase: tid for tid, (phrase, *_) in ANNOTATED.items()}
    split_of = {}
    for config in ("PS", "PR-pass", "PR-page", "PSD"):
        for split, rows in records(release_dir, config).items():
            for r in rows:
                tid = tid_of_phrase[r["phrase1"].lower()] if config == "PS" else r["id"].rsplit("-", 1)[0]
                assert split_of.setdefault(tid, split) == split, f"{tid} is in {split_of[tid]} and {config} {split}"
    # 12 triplets cut 70/10/20: round(1.2) = 1 validation, round(2.4) = 2 test, 9 train.
    assert sorted(Counter(split_of.values()).items()) == [("test", 2), ("train", 9), ("validation", 1)]


def test_manifest_lists_every_file_with_its_checksum(release_dir):
    manifest = read_manifest(release_dir)
    on_disk = {os.path.relpath(os.path.join(d, f), release_dir) for d, _, fs in os.walk(release_dir) for f in fs}
    assert set(manifest["files"]) == on_disk - {"MANIFEST.json"}
    assert sum(manifest["counts"]["PSD"].values()) == 10 and manifest["omitted_splits"] == {}
    assert manifest["rejected"] == [] and manifest["seed"] == 42
    assert set(manifest["inputs"]) == {"read-dump", "clean", "sentences", "select", "final_annotations"}


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
