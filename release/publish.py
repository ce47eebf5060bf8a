"""Publish a release directory to s3://, hf://org/name, or gs:// (any Beam FileSystems path), checksums first."""
import base64
import os
from dataclasses import dataclass

from apache_beam.io.filesystems import FileSystems

from picforge.errors import InputError
from picforge.release_writer import MANIFEST, read_manifest, sha256_file

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
    manifest = read_manifest(release_dir)
    if manifest is None:
        raise InputError(f"{os.path.join(release_dir, MANIFEST)}: not found; build the release with "
                         "`picforge build` first")
    uploads = []
    for relative, meta in manifest["files"].items():
        source = os.path.join(release_dir, relative)
        if not os.path.exists(source) or sha256_file(source) != meta["sha256"]:
            raise InputError(f"{source}: missing or changed since the build (sha256 differs from {MANIFEST}); "
                             "rebuild with `picforge build --force` instead of editing a release")
        uploads.append(Upload(source, relative, _target(dest, relative), meta["sha256"], meta["bytes"]))
    manifest_path = os.path.join(release_dir, MANIFEST)
    uploads.append(Upload(manifest_path, MANIFEST, _target(dest, MANIFEST), sha256_file(manifest_path),
                          os.path.getsize(manifest_path)))
    return uploads


def describe_plan(uploads, dest):
    """Lines telling what an upload would send."""
    total = sum(u.bytes for u in uploads)
    lines = [f"{len(uploads)} files, {total:,} bytes → {dest}"]
    lines += [f"  {u.sha256[:16]}  {u.bytes:>12,}  {u.target}" for u in uploads]
    return lines


def upload_s3(uploads, dest, client=None):
    """PUT each file with its SHA-256 checksum, which S3 verifies on receipt."""
    if client is None:
        import boto3

        client = boto3.client("s3")
    bucket, _, prefix = dest[len("s3://"):].partition("/")
    if not bucket:
        raise InputError(f"{dest}: an S3 destination is s3://<bucket>[/<prefix>]")
    for upload in uploads:
        key = "/".join(p for p in (prefix.strip("/"), upload.relative) if p)
        with open(upload.source, "rb") as body:
            client.put_object(Bucket=bucket, Key=key, Body=body,
                              ChecksumSHA256=base64.b64encode(bytes.fromhex(upload.sha256)).decode("ascii"))


def upload_filesystems(uploads):
    """Copy each file through Beam FileSystems (gs://, local paths, and any other registered scheme)."""
    for upload in uploads:
        with open(upload.source, "rb") as source, FileSystems.create(
                upload.target, compression_type="uncompressed") as target:
            for block in iter(lambda: source.read(CHUNK), b""):
                target.write(block)


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
        upload_filesystems(uploads)
    return uploads
