"""End to end: `mine` (real Beam stages) on a wikitext dump, a synthetic ledger export, then `picforge build`.

The shared 5-page enwiki sample yields no triplet (its funnel forms no sentence pair), so the dump is the mining
tests' planted one, whose "massive figure" carries two senses on two pages of unrelated categories.
"""
import hashlib
import json

import pytest
from datasets import load_dataset

from picforge.rundir import RunDir
from pipeline.mine import mine
from release import checks
from release.configs import read_split
from tests.pipeline.dump_factory import planted_pages, write_dump


@pytest.mark.slow
def test_mined_run_builds_a_loadable_release(tmp_path, wic_zip, picforge):
    dump = write_dump(tmp_path / "planted.xml.bz2", planted_pages())
    run_root = str(tmp_path / "run")
    mine(dump, str(wic_zip), run_root)
    run = RunDir(run_root)
    triplets = list(run.iter_records("select"))
    assert [t["phrase"] for t in triplets] == ["massive figure"]
    annotations = [{"triplet_id": t["triplet_id"], "phrase": t["phrase"], "annotator": "A1", "q1": "huge sum",
                    "q2": "giant statue", "same_meaning": False, "q1_rule": "round1", "q2_rule": "round1",
                    "q3_rule": "round1", "ps_q1": True, "ps_q1_phrase": "huge sum", "ps_q2": True,
                    "ps_q2_phrase": "giant statue"} for t in triplets]
    run.write_stage("final_annotations", annotations, "final_annotation", options={},
                    inputs={"records_sha256": hashlib.sha256(json.dumps(annotations).encode()).hexdigest()})

    out = tmp_path / "release"
    assert picforge("build", "--run", run_root, "--out", out) == 0
    tid = triplets[0]["triplet_id"]
    ps = read_split(str(out), "PS", "train")
    assert sorted((r["phrase2"], r["label"]) for r in ps) == [("giant statue", 0), ("huge sum", 1)]
    assert all(r["sentence1"] == triplets[0]["page1"]["sentence"] for r in ps)
    pages = {p["page_id"]: p["text"] for p in run.iter_records("clean")}
    pr_page = {r["id"]: r for r in read_split(str(out), "PR-page", "train")}
    assert set(pr_page) == {f"{tid}-1", f"{tid}-2"}
    assert pr_page[f"{tid}-2"]["context"] == pages[triplets[0]["page2"]["page_id"]]
    (psd,) = read_split(str(out), "PSD", "train")
    assert checks.count_phrase(psd["context"], "massive figure") == 2
    for config in ("PS", "PR-pass", "PR-page", "PSD"):
        for record in read_split(str(out), config, "train"):
            assert checks.problems(config, record) == []
        assert not (out / config / "test.json").exists()     # empty splits are never written
        loaded = load_dataset(str(out), config, cache_dir=str(tmp_path / "cache"))
        assert list(loaded) == ["train"] and loaded["train"].num_rows == len(read_split(str(out), config, "train"))
