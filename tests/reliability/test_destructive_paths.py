"""Destructive paths refuse: no output over, inside or around an input; publishing is all-or-nothing; nothing is
written or deleted outside the output named. Each case drives `picforge` as a subprocess on a run mined from the
real 103-page sample and a release built from it."""
import hashlib
import json
import os
import shutil

import pytest

from tests.cli_helpers import picforge_in_child

pytestmark = pytest.mark.slow


def tree_digest(root):
    """{relative path: sha256} of every file under root."""
    return {os.path.relpath(os.path.join(folder, name), root): hashlib.sha256(
        open(os.path.join(folder, name), "rb").read()).hexdigest()
        for folder, _, names in os.walk(root) for name in names}


def test_publishing_a_release_onto_itself_is_refused_and_touches_nothing(release_103):
    before = tree_digest(release_103)
    for dest in (release_103, release_103 / "sub", release_103.parent):
        code, out, err = picforge_in_child("release", "publish", "--release", release_103, "--to", dest, "--live")
        assert code == 2 and "choose a --to outside it" in err and "Traceback" not in err, err
    assert tree_digest(release_103) == before


def test_build_over_its_own_run_is_refused_and_the_run_survives(annotated_103, tmp_path):
    before = tree_digest(annotated_103)
    for out in (annotated_103, annotated_103 / "release", annotated_103.parent):
        code, _, err = picforge_in_child("build", "--run", annotated_103, "--out", out, "--force")
        assert code == 2 and "the output" in err and "the run" in err and "Traceback" not in err, err
    assert tree_digest(annotated_103) == before


def test_a_republish_that_fails_midway_keeps_the_old_release(release_103, tmp_path):
    published = tmp_path / "published"
    assert picforge_in_child("release", "publish", "--release", release_103, "--to", published, "--live")[0] == 0
    old = tree_digest(published)
    # The copy fails on the third file: shutil.copyfile raises ENOSPC in the child process.
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import errno, shutil\n"
        "calls = [0]\n"
        "real = shutil.copyfile\n"
        "def failing(src, dst, **kw):\n"
        "    calls[0] += 1\n"
        "    if calls[0] == 3:\n"
        "        raise OSError(errno.ENOSPC, 'No space left on device')\n"
        "    return real(src, dst, **kw)\n"
        "shutil.copyfile = failing\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")]))
    code, _, err = picforge_in_child("release", "publish", "--release", release_103, "--to", published, "--live", env=env)
    assert code != 0
    assert tree_digest(published) == old
    assert not [n for n in os.listdir(tmp_path) if ".partial-" in n or ".old-" in n]


def test_publishing_into_a_folder_of_other_files_is_refused(release_103, tmp_path):
    folder = tmp_path / "documents"
    folder.mkdir()
    (folder / "thesis.tex").write_text("my thesis")
    code, _, err = picforge_in_child("release", "publish", "--release", release_103, "--to", folder, "--live")
    assert code == 2 and "not a published release" in err
    assert (folder / "thesis.tex").read_text() == "my thesis"


def test_manifest_entries_outside_the_release_are_refused(release_103, tmp_path):
    copy = tmp_path / "rel"
    shutil.copytree(release_103, copy)
    secret = tmp_path / "secret.txt"
    secret.write_text("not for publishing")
    manifest = json.loads((copy / "MANIFEST.json").read_text())
    for entry in ("../secret.txt", str(secret)):
        manifest["files"] = {entry: {"sha256": hashlib.sha256(secret.read_bytes()).hexdigest(), "bytes": 18}}
        (copy / "MANIFEST.json").write_text(json.dumps(manifest))
        code, _, err = picforge_in_child("release", "publish", "--release", copy, "--to", tmp_path / "out", "--live")
        assert code == 2 and "points outside the release folder" in err, err
    assert not (tmp_path / "out").exists()


def test_user_files_in_stage_folders_are_refused_not_deleted(mined_103, tmp_path, enwiki_sample_103, wic_zip):
    run = tmp_path / "run"
    shutil.copytree(mined_103, run)
    (run / "select" / "my-notes.csv").write_text("phrase,comment\n")
    (run / "pairs" / "part-mine.txt").write_text("kept by hand")
    code, _, err = picforge_in_child("mine", "--input", enwiki_sample_103, "--wic", wic_zip, "--out", run, "--force")
    assert code == 2 and "holds files picforge did not write" in err
    assert (run / "select" / "my-notes.csv").exists() and (run / "pairs" / "part-mine.txt").exists()


@pytest.mark.parametrize("name", ["../escape", "a/b", "/abs/olute", ".."])
def test_batch_names_that_are_paths_are_refused(annotated_103, name):
    code, _, err = picforge_in_child("annotate", "mturk", "export", "--run", annotated_103, "--batch", name)
    assert code == 2 and "plain name" in err
    assert not os.path.exists(os.path.join(annotated_103, "escape"))
