"""`picforge release publish`: checksum-verified plans, dry run by default, S3 through a stubbed real boto3 client."""
import base64
import hashlib
import json
import os
import shutil

import boto3
import pytest
from botocore.stub import ANY, Stubber

from picforge.errors import InputError
from release.publish import git_blob_sha1, hf_changes, plan_upload, upload_filesystems, upload_s3


def test_plan_lists_every_manifest_file_with_the_manifest_last(release_dir):
    manifest = json.load(open(os.path.join(release_dir, "MANIFEST.json")))
    uploads = plan_upload(release_dir, "gs://bucket/pic/v1/")
    assert [u.relative for u in uploads] == list(manifest["files"]) + ["MANIFEST.json"]
    assert uploads[0].target == f"gs://bucket/pic/v1/{uploads[0].relative}"
    hf = plan_upload(release_dir, "hf://my-org/pic")
    assert hf[-1].target == "hf://datasets/my-org/pic/MANIFEST.json"


def test_dry_run_uploads_nothing(picforge, release_dir, capsys):
    assert picforge("release", "publish", "--release", release_dir, "--to", "hf://my-org/pic") == 0
    out = capsys.readouterr().out
    assert "dry run: nothing uploaded; pass --live to upload" in out
    assert "hf://datasets/my-org/pic/PS/train.json" in out and "→ hf://my-org/pic" in out


def test_a_file_changed_after_the_build_is_refused(picforge, release_dir, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(release_dir, copy)
    with open(copy / "PS" / "test.json", "a") as fh:
        fh.write("\n")
    assert picforge("release", "publish", "--release", copy, "--to", "s3://bucket/pic") == 2
    err = capsys.readouterr().err
    assert "PS/test.json: changed since the build" in err and "picforge build --force" in err
    with pytest.raises(InputError, match="MANIFEST.json: not found"):
        plan_upload(str(tmp_path), "s3://bucket/pic")


def test_s3_upload_puts_each_file_with_its_sha256(release_dir):
    client = boto3.client("s3", region_name="us-east-1", aws_access_key_id="testing",
                          aws_secret_access_key="testing")
    uploads = plan_upload(release_dir, "s3://pic-bucket/releases/v1")
    with Stubber(client) as stub:
        for upload in uploads:
            digest = hashlib.sha256(open(upload.source, "rb").read()).digest()
            checksum = base64.b64encode(digest).decode()
            stub.add_response("put_object", {"ETag": '"etag"', "ChecksumSHA256": checksum},
                              {"Bucket": "pic-bucket", "Key": ANY, "Body": ANY, "ChecksumSHA256": checksum})
        stub.add_response("delete_object", {}, {"Bucket": "pic-bucket", "Key": "releases/v1/MANIFEST.json"})
        for upload in uploads:
            stub.add_response("copy_object", {}, {"Bucket": "pic-bucket", "Key": f"releases/v1/{upload.relative}",
                                                  "ChecksumAlgorithm": "SHA256", "CopySource": ANY})
        stub.add_response("delete_objects", {}, {"Bucket": "pic-bucket", "Delete": ANY})
        upload_s3(uploads, "s3://pic-bucket/releases/v1", client=client)
        stub.assert_no_pending_responses()


def test_filesystems_upload_copies_byte_for_byte(release_dir, tmp_path):
    mirror = tmp_path / "mirror"
    uploads = plan_upload(release_dir, str(mirror))
    upload_filesystems(uploads, str(mirror))
    for upload in uploads:
        assert hashlib.sha256((mirror / upload.relative).read_bytes()).hexdigest() == upload.sha256


def test_publish_yes_to_a_filesystems_path(picforge, release_dir, tmp_path, capsys):
    mirror = tmp_path / "published"
    assert picforge("release", "publish", "--release", release_dir, "--to", mirror, "--live") == 0
    assert "uploaded" in capsys.readouterr().out
    assert json.loads((mirror / "MANIFEST.json").read_text()) == json.load(
        open(os.path.join(release_dir, "MANIFEST.json")))
    (mirror / "NOTES.md").write_text("my notes")
    assert picforge("release", "publish", "--release", release_dir, "--to", mirror, "--live") == 2
    assert "pass --force to replace it anyway" in capsys.readouterr().err and (mirror / "NOTES.md").exists()
    assert picforge("release", "publish", "--release", release_dir, "--to", mirror, "--live", "--force") == 0
    assert not (mirror / "NOTES.md").exists()


def test_bad_destinations_are_explained(release_dir):
    with pytest.raises(InputError, match="hf://<org>/<name>"):
        plan_upload(release_dir, "hf://just-a-name")
    with pytest.raises(InputError, match="s3://<bucket>"):
        upload_s3(plan_upload(release_dir, "s3://"), "s3://", client=object())


def test_hf_commit_sends_only_what_the_hub_lacks_and_deletes_old_shards(release_dir):
    uploads = plan_upload(release_dir, "hf://my-org/pic")
    sent, deleted = hf_changes(uploads, {})
    assert sent == uploads and deleted == []
    # a re-run against a repo that holds the release (LFS sha256 or, outside LFS, the git blob id) sends nothing
    held = {u.relative: u.sha256 for u in uploads} | {"README.md": git_blob_sha1(f"{release_dir}/README.md"),
                                                      ".gitattributes": "0" * 40}
    assert hf_changes(uploads, held) == ([], [])
    # a shard of an earlier release is deleted in the same commit, and a changed file is sent again
    changed = uploads[0]
    stale = dict(held, **{"PS/train-00000-of-00002.parquet": "1" * 64, changed.relative: "2" * 64})
    assert hf_changes(uploads, stale) == ([changed], ["PS/train-00000-of-00002.parquet"])


def test_git_blob_sha1_is_the_id_git_gives_a_file(tmp_path):
    (tmp_path / "hello").write_bytes(b"hello\n")
    assert git_blob_sha1(str(tmp_path / "hello")) == "ce013625030ba8dba906f756967f9e9ca394464a"
