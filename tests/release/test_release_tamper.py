"""Tamper-evident releases: every verb that reads a release (evaluate, publish, the companions' evaluate) refuses a
folder that differs from its MANIFEST.json, in one line naming the file, through the CLI."""
import json
import os
import shutil

import pytest

from picforge.release_check import manifest_digest, release_entries

# Each verb that reads a release, given the release folder (arguments after it are what the verb needs besides).
READERS = {
    "evaluate": lambda release, tmp: ["release", "evaluate", "--release", release, "--baseline", "PS"],
    "publish": lambda release, tmp: ["release", "publish", "--release", release, "--to", tmp / "published", "--live"],
    "cosimlex evaluate": lambda release, tmp: ["cosimlex", "evaluate", "--predictions", predictions(tmp),
                                               "--release", release],
    "mcphrasy evaluate": lambda release, tmp: ["mcphrasy", "evaluate", "--release", release, "--predictions",
                                               predictions(tmp)],
}


def predictions(tmp):
    path = tmp / "predictions.csv"
    path.write_text("word1,word2,sim1,sim2\nbank,river,1,2\n")
    return path


def rewrite_manifest(release, change):
    """Apply `change` to the release's manifest and write it back as picforge would, with a fresh own digest (the
    worst case: whoever edited it also knew to recompute that)."""
    path = release / "MANIFEST.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    manifest["manifest_sha256"] = manifest_digest(manifest)
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True))


def refused(picforge, capsys, release, tmp, named):
    """Every reader exits 2 with one error line naming `named`, and publish sends nothing."""
    for verb, argv in READERS.items():
        capsys.readouterr()
        assert picforge(*argv(release, tmp)) == 2, verb
        err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
        assert len(err) == 1 and err[0].startswith("picforge: error: ") and named in err[0], (verb, err)
    assert not (tmp / "published").exists()


@pytest.fixture
def copy(release_dir, tmp_path):
    shutil.copytree(release_dir, tmp_path / "copy")
    return tmp_path / "copy"


def test_an_edited_label_is_refused_by_every_reader(picforge, copy, tmp_path, capsys):
    test = copy / "PS" / "test.json"
    rows = [json.loads(line) for line in test.read_text().splitlines()]
    rows[0]["label"] = 1 - rows[0]["label"]
    test.write_text("".join(json.dumps(row) + "\n" for row in rows))
    refused(picforge, capsys, copy, tmp_path, f"{copy}/PS/test.json: changed since the build")


def test_card_and_croissant_taken_out_of_the_manifest_are_refused(picforge, copy, tmp_path, capsys):
    def unlist(manifest):
        del manifest["files"]["croissant.json"], manifest["files"]["README.md"]
    rewrite_manifest(copy, unlist)
    for name in ("croissant.json", "README.md"):
        (copy / name).unlink()
    refused(picforge, capsys, copy, tmp_path, "MANIFEST.json: does not list README.md, which every release has")


def test_a_data_file_edited_with_its_manifest_sha256_leaves_croissant_stale(picforge, copy, tmp_path, capsys):
    from picforge.release_check import sha256_file

    test = copy / "PS" / "test.json"
    test.write_text(test.read_text().replace('"label": 0', '"label": 1', 1))

    def follow(manifest):
        manifest["files"]["PS/test.json"].update(sha256=sha256_file(test), bytes=os.path.getsize(test))
    rewrite_manifest(copy, follow)
    refused(picforge, capsys, copy, tmp_path, "croissant.json: its sha256 of PS/test.json differs from MANIFEST.json")


def test_every_single_file_change_is_refused_naming_the_file(picforge, release_dir, tmp_path, capsys):
    names = release_entries(release_dir)
    assert {"MANIFEST.json", "README.md", "croissant.json", "PS/test.json", "stats.json"} <= set(names)
    for n, name in enumerate(names):
        release = tmp_path / f"changed-{n}"
        shutil.copytree(release_dir, release)
        with open(release / name, "ab") as fh:
            fh.write(b" ")
        refused(picforge, capsys, release, tmp_path, f"{release}/{name}: ")
        (release / name).unlink()
        refused(picforge, capsys, release, tmp_path, f"{release}/{name}: ")
    added = tmp_path / "added"
    shutil.copytree(release_dir, added)
    shutil.copy(added / "PS" / "train.json", added / "PS" / "extra.json")
    refused(picforge, capsys, added, tmp_path, f"{added}/PS/extra.json: not listed in MANIFEST.json")
    licence = tmp_path / "licence"
    shutil.copytree(release_dir, licence)
    path = licence / "MANIFEST.json"
    path.write_text(path.read_text().replace('"license": "', '"license": "x-', 1))
    refused(picforge, capsys, licence, tmp_path, f"{path}: edited since the build")


def test_an_intact_release_publishes_and_its_copy_checks(picforge, release_dir, tmp_path, capsys):
    assert picforge("release", "publish", "--release", release_dir, "--to", tmp_path / "published", "--live") == 0
    assert picforge("release", "publish", "--release", tmp_path / "published", "--to", tmp_path / "again") == 0
    # a Hub download adds hidden files (.gitattributes, .cache/): not part of the release, not refused
    (tmp_path / "published" / ".gitattributes").write_text("*.parquet filter=lfs\n")
    assert picforge("release", "publish", "--release", tmp_path / "published", "--to", tmp_path / "again") == 0


def test_build_never_calls_a_damaged_release_up_to_date(picforge, run_dir, copy, capsys):
    (copy / "PS" / "test.json").write_text("")
    assert picforge("build", "--run", run_dir, "--out", copy) == 2
    assert "changed since its build; pass --force" in capsys.readouterr().err
    assert picforge("build", "--run", run_dir, "--out", copy, "--force") == 0
    assert picforge("build", "--run", run_dir, "--out", copy) == 0
    assert "up to date" in capsys.readouterr().out
