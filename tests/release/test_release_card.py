"""The release loads with the real `datasets` library (offline), and its card describes what the files hold."""
import json
import os
import re

import pyarrow.parquet as pq
import pytest
import yaml
from datasets import ClassLabel, load_dataset

from picforge.release_writer import read_manifest, SPLITS
from release import stats
from release.configs import CONFIGS, read_split
from tests.release.fixture_run import PAGES, annotation_records, article_records, make_run

CONFIG_NAMES = list(CONFIGS)


@pytest.mark.parametrize("config", CONFIG_NAMES)
def test_load_dataset_from_the_release_directory(release_dir, config, tmp_path):
    loaded = load_dataset(release_dir, config, cache_dir=str(tmp_path / "cache"))
    assert list(loaded) == list(SPLITS)
    for split in SPLITS:
        assert loaded[split].to_list() == read_split(release_dir, config, split)
    if config == "PS":
        assert isinstance(loaded["train"].features["label"], ClassLabel)
        assert loaded["train"].features["idx"].dtype == "int32"
    else:
        assert loaded["test"].features["answers"]["answer_start"].feature.dtype == "int32"


def test_load_dataset_json_with_data_files(release_dir, tmp_path):
    files = {split: os.path.join(release_dir, "PR-pass", f"{split}.json") for split in SPLITS}
    loaded = load_dataset("json", data_files=files, cache_dir=str(tmp_path / "cache"))
    assert {split: loaded[split].num_rows for split in SPLITS} == {"train": 18, "validation": 2, "test": 4}
    row = loaded["test"][0]
    start = row["answers"]["answer_start"][0]
    assert row["context"][start:].startswith(row["answers"]["text"][0])


def test_empty_splits_are_never_written_and_the_card_says_so(picforge, tmp_path, capsys):
    # Two triplets (t11, t12: same sense) are too few to cut: both go to train. No Q3 = No label: PSD has no
    # example, and PS no negative, so balancing samples out t11's endorsed positive too.
    run = make_run(tmp_path / "run", final_annotations=[r for r in annotation_records()
                                                        if r["triplet_id"] in ("t11", "t12")])
    out = tmp_path / "release"
    assert picforge("build", "--run", run, "--out", out) == 0
    printed = capsys.readouterr().out
    assert "PSD: not written: train, validation, test (no example; see the card)" in printed
    assert "PS: train 0, validation 0, test 0" not in printed and "PS: not written: train, validation, test" in printed
    written = sorted(os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs
                     if f.endswith((".json", ".parquet")) and "/" in os.path.relpath(os.path.join(d, f), out))
    assert written == [f"{c}/train.{ext}" for c in ("PR-page", "PR-pass") for ext in ("json", "parquet")]
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert manifest["omitted_splits"] == {"PS": list(SPLITS), "PR-pass": ["validation", "test"],
                                          "PR-page": ["validation", "test"], "PSD": list(SPLITS)}
    assert manifest["skipped"]["PS"]["verified pair sampled out to balance the classes"] == 1
    header, body = card_header(str(out))
    assert "- **PR-pass**: no validation and no test split." in body
    assert "- **PS**: not written at all" in body and "- **PSD**: not written at all" in body
    assert sorted(c["config_name"] for c in header["configs"]) == ["PR-page", "PR-pass"]
    for config in ("PR-pass", "PR-page"):
        loaded = load_dataset(str(out), config, cache_dir=str(tmp_path / "cache"))
        assert list(loaded) == ["train"] and loaded["train"].num_rows > 0


@pytest.mark.parametrize("config", CONFIG_NAMES)
def test_parquet_holds_the_same_rows_as_json_lines(release_dir, config):
    for split in SPLITS:
        table = pq.read_table(os.path.join(release_dir, config, f"{split}.parquet"))
        assert table.to_pylist() == read_split(release_dir, config, split)
        assert b"huggingface" in table.schema.metadata


def card_header(release_dir):
    text = open(os.path.join(release_dir, "README.md"), encoding="utf-8").read()
    _, header, body = text.split("---\n", 2)
    return yaml.safe_load(header), body


def test_card_header_declares_configs_features_splits_and_license(release_dir):
    header, _ = card_header(release_dir)
    assert header["license"] == "cc-by-sa-3.0"  # the fixture's pages are 2016 revisions
    assert {c["config_name"] for c in header["configs"]} == set(CONFIGS)
    infos = {info["config_name"]: info for info in header["dataset_info"]}
    for config in CONFIGS:
        sizes = {s["name"]: s["num_examples"] for s in infos[config]["splits"]}
        assert sizes == {split: len(read_split(release_dir, config, split)) for split in SPLITS}
    assert [f["name"] for f in infos["PS"]["features"]] == ["phrase1", "phrase2", "sentence1", "sentence2",
                                                            "label", "idx"]
    answers = next(f for f in infos["PSD"]["features"] if f["name"] == "answers")
    assert answers["sequence"] == [{"name": "text", "dtype": "string"}, {"name": "answer_start", "dtype": "int32"}]


def saved_splits(release_dir, config):
    """{split: records} of a config as written; a split the release omitted (empty) reads as []."""
    return {split: read_split(release_dir, config, split)
            if os.path.exists(os.path.join(release_dir, config, f"{split}.json")) else [] for split in SPLITS}


def test_card_statistics_are_computed_from_the_released_files(release_dir):
    saved = json.load(open(os.path.join(release_dir, "stats.json"), encoding="utf-8"))
    _, body = card_header(release_dir)
    for config in CONFIGS:
        splits = saved_splits(release_dir, config)
        assert saved[config] == json.loads(json.dumps(stats.describe(config, splits)[0]))
    ps = saved["PS"]
    assert ps["labels"] == {"negative": 8, "positive": 8}
    # Of the fixture's PS-endorsed pairs only "annual report" ~ "yearly report" (t11's correction) shares a word.
    assert any(r["phrase2"] == "yearly report" for rows in saved_splits(release_dir, "PS").values() for r in rows)
    assert ps["lexical_overlap_pct"] == pytest.approx(100 / 16, abs=0.01)
    assert f"| lexical overlap (%) | {ps['lexical_overlap_pct']} |" in body
    assert saved["PR-pass"]["mean_length"]["document (sentences)"] == 11.0
    assert f"| all | {saved['PR-pass']['instances']['all']} | {saved['PR-page']['instances']['all']} |" in body


def test_plots_are_png_images(release_dir):
    for name in ["lengths-PS.png", "lengths-PR-pass.png", "lengths-PR-page.png", "lengths-PSD.png",
                 "triplet-scores.png"]:
        with open(os.path.join(release_dir, "plots", name), "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
        assert f"(plots/{name})" in card_header(release_dir)[1]


def test_lexical_overlap_and_document_lengths():
    assert stats.lexical_overlap("River crossing", "river bridge")
    assert not stats.lexical_overlap("massive figure", "huge sum")
    sentences, total, per_sentence = stats.document_lengths("Dr. Smith left. He said \"no\" twice.")
    assert (sentences, per_sentence) == (2, [4, 7]) and total == 11


def license_paragraph(release_dir):
    """The card's License section, and the `license:` of its header."""
    header, body = card_header(release_dir)
    return body.split("## License\n\n", 1)[1].split("\n## ", 1)[0], header["license"]


def test_card_states_the_license_worked_out_from_what_it_redistributes(release_dir):
    text, license_id = license_paragraph(release_dir)
    assert license_id == read_manifest(release_dir)["license"] == "cc-by-sa-3.0"
    assert text.startswith("`cc-by-sa-3.0`, worked out from what this release redistributes. It redistributes: "
                           "English Wikipedia text (8 revisions saved 2016-04-01 to 2016-04-08, before English "
                           "Wikipedia moved to CC BY-SA 4.0 (June 2023), so under CC BY-SA 3.0)")
    assert "keeping derived text under the same licence (ShareAlike)" in text
    assert "Not redistributed, so not binding the licence: the WiC target words (CC BY-NC 4.0" in text
    assert "cc-by-nc" not in text.split("Not redistributed")[0]
    metadata = json.load(open(os.path.join(release_dir, "croissant.json"), encoding="utf-8"))
    assert metadata["license"] == "https://creativecommons.org/licenses/by-sa/3.0/"
    lineage = {entity["name"]: entity for entity in metadata["prov:wasDerivedFrom"]}
    assert lineage["English Wikipedia"]["license"] == "https://creativecommons.org/licenses/by-sa/3.0/"
    assert lineage["WiC: the Word-in-Context dataset"]["description"].endswith("read only, not redistributed")


def test_card_attributes_every_page_revision_whose_text_it_holds(release_dir):
    """Attribution as CC BY-SA asks: each page, the revision used, its address and its history (the authors)."""
    text, _ = license_paragraph(release_dir)
    attributed = re.findall(r"^\| (.+?) \| (\S+) \| \[(\d+)\]\((\S+)\) \| (\S+) \| (\S+) \|$", text, re.M)
    rows = [r for config in CONFIGS if CONFIGS[config].schema == "pr" for split in SPLITS
            for r in read_split(release_dir, config, split)]
    named = {(t, u, int(v)) for r in rows
             for t, u, v in zip(*(r[field].split(" | ") for field in ("title", "url", "revision_id")))}
    assert {(title, url, int(revision)) for title, url, revision, *_ in attributed} == named
    for title, url, revision, revision_url, saved, history in attributed:
        page_id = next(p for p, (t, *_) in PAGES.items() if t == title)
        assert revision_url == f"https://en.wikipedia.org/w/index.php?oldid={revision}"
        assert history == f"https://en.wikipedia.org/w/index.php?curid={page_id}&action=history"
        assert saved.startswith("2016-04-")
    # the page fields are declared where the rows are described: the card's Fields section and croissant.json
    _, body = card_header(release_dir)
    assert "`url` (string): the page's address" in body and "`revision_id` (string): the page revision" in body
    metadata = json.load(open(os.path.join(release_dir, "croissant.json"), encoding="utf-8"))
    for record_set in metadata["recordSet"]:
        if record_set["name"] != "PS":
            declared = {f["name"]: f["dataType"] for f in record_set["field"] if "dataType" in f}
            assert declared["title"] == declared["url"] == declared["revision_id"] == "sc:Text"


def test_a_license_that_breaks_sharealike_is_refused_unless_overridden(release_dir, picforge, run_dir, tmp_path,
                                                                        capsys):
    out = tmp_path / "nc"
    capsys.readouterr()
    assert picforge("build", "--run", run_dir, "--out", out, "--license", "cc-by-nc-4.0") == 2
    err = capsys.readouterr().err
    assert "--license cc-by-nc-4.0: conflicts with what the release redistributes: English Wikipedia is " \
           "redistributed under `cc-by-sa-3.0`, which allows `cc-by-sa-3.0` or `cc-by-sa-4.0`" in err
    assert "--license-override" in err and not out.exists()

    assert picforge("build", "--run", run_dir, "--out", out, "--license", "cc-by-nc-4.0",
                    "--license-override", "counsel cleared a non-commercial relicence") == 0
    text, license_id = license_paragraph(out)
    assert license_id == read_manifest(out)["license"] == "cc-by-nc-4.0"
    assert read_manifest(out)["license_override"] == "counsel cleared a non-commercial relicence"
    assert text.startswith("`cc-by-nc-4.0`, chosen with --license against the redistributed inputs' terms")
    assert 'the maintainer recorded this override: "counsel cleared a non-commercial relicence"' in text

    later = tmp_path / "sa4"
    assert picforge("build", "--run", run_dir, "--out", later, "--license", "cc-by-sa-4.0") == 0
    text, license_id = license_paragraph(later)
    assert license_id == "cc-by-sa-4.0" and "license_override" not in read_manifest(later)
    assert text.startswith("`cc-by-sa-4.0`, chosen with --license; the redistributed inputs allow it (the default is "
                           "`cc-by-sa-3.0`).")
    for name, entry in read_manifest(later)["files"].items():
        if name not in ("README.md", "croissant.json"):
            assert entry == read_manifest(release_dir)["files"][name]  # only the card and croissant.json differ
    capsys.readouterr()
    assert picforge("build", "--run", run_dir, "--out", later) == 2
    assert "holds a release built from other inputs, seed or licence, or changed since its build; pass --force" in \
        capsys.readouterr().err
    assert picforge("build", "--run", run_dir, "--out", later, "--license", "cc-by-sa-4.0") == 0
    assert "up to date (same run stages, seed and licence)" in capsys.readouterr().out


def test_revisions_after_june_2023_are_cc_by_sa_4(picforge, tmp_path):
    articles = [dict(a, revision_timestamp="2024-01-02T03:04:05Z") if a["page_id"] == 103 else a
                for a in article_records()]
    out = tmp_path / "release"
    assert picforge("build", "--run", make_run(tmp_path / "run", **{"read-dump": articles}), "--out", out) == 0
    text, license_id = license_paragraph(out)
    assert license_id == "cc-by-sa-4.0"
    assert "some after English Wikipedia moved to CC BY-SA 4.0 (June 2023)" in text
    assert picforge("build", "--run", tmp_path / "run", "--out", tmp_path / "v3", "--license", "cc-by-sa-3.0") == 2
