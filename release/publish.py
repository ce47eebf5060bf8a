"""Publish a release directory to s3://, hf://org/name, or gs:// (any Beam FileSystems path), checksums first."""
import base64
import os
import shutil
import uuid
from dataclasses import dataclass

from apache_beam.io.filesystems import FileSystems

from picforge.errors import InputError
from picforge.paths import plain_file, plain_tree, refuse_overlap, refuse_replacing, relative_entry
from picforge.release_writer import MANIFEST, read_manifest, replace_directory, sha256_file

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


def plan_upload(release_dir, dest):
    """The uploads of every file listed in MANIFEST.json, after checking each still has its recorded sha256.

    Data files come first and MANIFEST.json last, so a destination holding the manifest holds everything.
    """
    manifest = read_manifest(plain_tree(release_dir))
    if manifest is None:
        raise InputError(f"{os.path.join(release_dir, MANIFEST)}: not found; build the release with "
                         "`picforge build` first")
    refuse_overlap(dest, {"release": release_dir}, option="--to")
    refuse_replacing(dest, "--to")
    uploads = []
    for relative, meta in manifest["files"].items():
        source = os.path.join(release_dir, relative_entry(relative, os.path.join(release_dir, MANIFEST)))
        plain_file(source, release_dir)
        if sha256_file(source) != meta["sha256"]:
            raise InputError(f"{source}: missing or changed since the build (sha256 differs from {MANIFEST}); "
                             "rebuild with `picforge build --force` instead of editing a release")
        uploads.append(Upload(source, relative, _target(dest, relative), meta["sha256"], meta["bytes"]))
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
        leftovers = FileSystems.match([staging + "/**"])[0].metadata_list
        if leftovers:
            FileSystems.delete([m.path for m in leftovers])


def upload_hf(uploads, dest, release_dir, api=None, private=False):
    """One commit to a Hugging Face dataset repository holding every planned file."""
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    repo_id = hf_repo_id(dest)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    api.upload_folder(repo_id=repo_id, repo_type="dataset", folder_path=release_dir,
                      allow_patterns=[u.relative for u in uploads],
                      commit_message="Upload PiC release built by picforge")


def publish(release_dir, dest, *, private=False):
    """Upload a checked release to `dest`; returns the uploads made."""
    uploads = plan_upload(release_dir, dest)
    if dest.startswith("s3://"):
        upload_s3(uploads, dest)
    elif dest.startswith("hf://"):
        upload_hf(uploads, dest, release_dir, private=private)
    else:
        upload_filesystems(uploads, dest)
    return uploads
