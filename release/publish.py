"""Publish a release directory to s3://, hf://org/name, or gs:// (any Beam FileSystems path), checksums first."""
import base64
import hashlib
import os
import shutil
import uuid
from dataclasses import dataclass

from apache_beam.io.filesystems import FileSystems

from picforge.errors import InputError
from picforge.paths import glob_escape, plain_file, plain_tree, refuse_overlap, refuse_replacing
from picforge.release_check import verify_release
from picforge.release_writer import MANIFEST, replace_directory, sha256_file

CHUNK = 1 << 20


@dataclass(frozen=True)
class Upload:
    """One file to send: its local path, its path inside the release, where it goes, and its checksum."""

    source: str
    relative: str
    target: str
    sha256: str
    bytes: int


def hf_repo_id(dest):
    """`org/name` of an hf://org/name (or hf://datasets/org/name) destination."""
    parts = [p for p in dest[len("hf://"):].split("/") if p]
    if parts[:1] == ["datasets"]:
        parts = parts[1:]
    if len(parts) != 2:
        raise InputError(f"{dest}: a Hugging Face destination is hf://<org>/<name>")
    return "/".join(parts)


def _target(dest, relative):
    if dest.startswith("hf://"):
        return f"hf://datasets/{hf_repo_id(dest)}/{relative}"
    return dest.rstrip("/") + "/" + relative


def refuse_rehearsal(manifest, release_dir, dest, allow_rehearsal):
    """Refuse (InputError) to send a release built from rehearsed answers to the Hub, S3 or GCS (any remote
    `dest`) unless `allow_rehearsal`: its card says so on its first line, but readers of a published dataset take
    its labels as worked."""
    if manifest.get("rehearsal") and "://" in dest and not allow_rehearsal:
        raise InputError(f"{os.path.join(release_dir, MANIFEST)}: a rehearsal build ({manifest['rehearsal']}); "
                         f"not published to {dest}. Ingest answers from real workers and build again, or pass "
                         "--allow-rehearsal to publish it as a rehearsal (its card says so)")


def plan_upload(release_dir, dest, *, force=False, allow_rehearsal=False):
    """The uploads of every file listed in MANIFEST.json, once the release passes verify_release.

    Data files come first and MANIFEST.json last, so a destination holding the manifest holds everything. A local
    `dest` holding anything but a release picforge published is refused unless `force`; a rehearsal build is
    refused for a remote `dest` unless `allow_rehearsal`.
    """
    manifest = verify_release(plain_tree(release_dir))
    refuse_rehearsal(manifest, release_dir, dest, allow_rehearsal)
    refuse_overlap(dest, {"release": release_dir}, option="--to")
    refuse_replacing(dest, "--to", force=force)
    uploads = [Upload(os.path.join(release_dir, relative), relative, _target(dest, relative), meta["sha256"],
                      meta["bytes"]) for relative, meta in manifest["files"].items()]
    manifest_path = os.path.join(release_dir, MANIFEST)
    plain_file(manifest_path, release_dir)
    uploads.append(Upload(manifest_path, MANIFEST, _target(dest, MANIFEST), sha256_file(manifest_path),
                          os.path.getsize(manifest_path)))
    return uploads


def describe_plan(uploads, dest):
    """Lines telling what an upload would send."""
    total = sum(u.bytes for u in uploads)
    lines = [f"{len(uploads)} files, {total:,} bytes → {dest}"]
    lines += [f"  {u.sha256[:16]}  {u.bytes:>12,}  {u.target}" for u in uploads]
    return lines


def _staging_prefix():
    return f".partial-{uuid.uuid4().hex[:12]}"


def upload_s3(uploads, dest, client=None):
    """PUT each file under a staging prefix with its SHA-256 checksum (S3 verifies it on receipt), then copy the
    staged files into place, MANIFEST.json last, after the old one is removed; the staging keys are deleted.
    A failed upload leaves the old release untouched."""
    if client is None:
        import boto3

        client = boto3.client("s3")
    bucket, _, prefix = dest[len("s3://"):].partition("/")
    if not bucket:
        raise InputError(f"{dest}: an S3 destination is s3://<bucket>[/<prefix>]")

    def key(*parts):
        return "/".join(p for p in (prefix.strip("/"), *parts) if p)

    staging = _staging_prefix()
    staged = []
    try:
        for upload in uploads:
            with open(upload.source, "rb") as body:
                client.put_object(Bucket=bucket, Key=key(staging, upload.relative), Body=body,
                                  ChecksumSHA256=base64.b64encode(bytes.fromhex(upload.sha256)).decode("ascii"))
            staged.append(key(staging, upload.relative))
        client.delete_object(Bucket=bucket, Key=key(MANIFEST))
        for upload in uploads:
            client.copy_object(Bucket=bucket, Key=key(upload.relative), ChecksumAlgorithm="SHA256",
                               CopySource={"Bucket": bucket, "Key": key(staging, upload.relative)})
    finally:
        if staged:
            client.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in staged]})


def _copy_file(source, target):
    with open(source, "rb") as fh, FileSystems.create(target, compression_type="uncompressed") as out:
        for block in iter(lambda: fh.read(CHUNK), b""):
            out.write(block)


def upload_filesystems(uploads, dest):
    """Copy each file through Beam FileSystems. A local destination is written as a sibling folder and renamed
    into place; a gs:// (or other) one is staged under a `.partial-*` prefix, then moved into place, MANIFEST.json
    last after the old one is removed. Either way a failed upload leaves the old release whole."""
    if "://" not in dest:
        def copy_all(staging):
            for upload in uploads:
                target = os.path.join(staging, upload.relative)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(upload.source, target)
        replace_directory(dest, copy_all)
        return
    staging = dest.rstrip("/") + "/" + _staging_prefix()
    try:
        staged = [f"{staging}/{upload.relative}" for upload in uploads]
        for upload, target in zip(uploads, staged):
            _copy_file(upload.source, target)
        if FileSystems.exists(uploads[-1].target):
            FileSystems.delete([uploads[-1].target])
        FileSystems.rename(staged[:-1], [u.target for u in uploads[:-1]])
        FileSystems.rename(staged[-1:], [uploads[-1].target])
    finally:
        leftovers = FileSystems.match([glob_escape(staging) + "/**"])[0].metadata_list  # its own, even under "rel[1]"
        if leftovers:
            FileSystems.delete([m.path for m in leftovers])


def git_blob_sha1(path):
    """The git blob id of a file (what the Hub reports for a file it keeps outside LFS)."""
    digest = hashlib.sha1(f"blob {os.path.getsize(path)}\0".encode())
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def hf_changes(uploads, remote):
    """(uploads to send, repository paths to delete) that make a Hub repo hold exactly the release: a file whose
    copy there already has its sha256 (LFS) or git blob id is not sent again, and a file there that the release
    does not list (an old shard, a renamed split) is deleted in the same commit; `.gitattributes` stays.

    `remote` is {path: sha256 or git blob id} of the repo's files."""
    sent = [u for u in uploads if remote.get(u.relative) not in (u.sha256, git_blob_sha1(u.source))]
    listed = {u.relative for u in uploads}
    return sent, sorted(path for path in remote if path not in listed and path != ".gitattributes")


def hf_remote_files(api, repo_id):
    """{path: sha256 (LFS) or git blob id} of the files of a Hub dataset repo ({} when it has none yet)."""
    from huggingface_hub.hf_api import RepoFile

    return {entry.path: entry.lfs.sha256 if entry.lfs else entry.blob_id
            for entry in api.list_repo_tree(repo_id, repo_type="dataset", recursive=True)
            if isinstance(entry, RepoFile)}


def upload_hf(uploads, dest, api=None, private=False):
    """One commit to a Hugging Face dataset repository that makes it hold exactly the planned files (hf_changes).

    Large files go up first through the Hub's LFS (or Xet) storage, which keeps what it received: a run cut off
    half-way resumes by sending only what is missing, and the one commit is made after all are there. Returns the
    (sent, deleted) of that commit; nothing is committed when the repo already holds the release."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    repo_id = hf_repo_id(dest)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    sent, deleted = hf_changes(uploads, hf_remote_files(api, repo_id))
    if sent or deleted:
        additions = [CommitOperationAdd(path_in_repo=u.relative, path_or_fileobj=u.source) for u in sent]
        api.preupload_lfs_files(repo_id, additions=additions, repo_type="dataset")
        api.create_commit(repo_id, repo_type="dataset", commit_message="Upload release built by picforge",
                          operations=additions + [CommitOperationDelete(path_in_repo=p) for p in deleted])
    return sent, deleted


def publish(release_dir, dest, *, private=False, force=False, allow_rehearsal=False):
    """Upload a checked release to `dest` (replacing what a local `dest` holds only when `force`; a rehearsal build
    to a remote one only when `allow_rehearsal`); returns the uploads made."""
    uploads = plan_upload(release_dir, dest, force=force, allow_rehearsal=allow_rehearsal)
    if dest.startswith("s3://"):
        upload_s3(uploads, dest)
    elif dest.startswith("hf://"):
        upload_hf(uploads, dest, private=private)
    else:
        upload_filesystems(uploads, dest)
    return uploads
