"""The one check of a release folder against its MANIFEST.json, run first by every verb that reads a release."""
import hashlib
import json
import os

from picforge import files
from picforge.croissant import CROISSANT, data_files
from picforge.errors import InputError
from picforge.paths import RELEASE_MANIFEST, plain_file, relative_entry

CARD = "README.md"
# The MANIFEST.json field holding the sha256 of the manifest written without that field, so an edit of the manifest
# alone (its licence, counts or list of files) is seen too.
SELF_DIGEST = "manifest_sha256"
REBUILD = ("rebuild the release (`picforge build --force`, or the companion's `release --force`) or restore it from "
           "the published copy; a release is never edited in place")


def sha256_file(path):
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with files.open_input(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def manifest_digest(manifest):
    """The sha256 of a manifest's JSON (sorted keys, indent 2) without its own digest field."""
    rest = {key: value for key, value in manifest.items() if key != SELF_DIGEST}
    return hashlib.sha256(json.dumps(rest, indent=2, sort_keys=True).encode("utf-8")).hexdigest()


def release_entries(release_dir):
    """Paths (with '/') of the files under a release folder, hidden ones (a Hub download's .gitattributes and
    .cache/) left out."""
    found = []
    for folder, dirs, names in os.walk(release_dir):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [os.path.relpath(os.path.join(folder, n), release_dir).replace(os.sep, "/")
                  for n in names if not n.startswith(".")]
    return sorted(found)


def _refuse(path, problem):
    raise InputError(f"{path}: {problem}; {REBUILD}")


def _check_croissant(release_dir, listed):
    """croissant.json lists every data file of the manifest, each with the manifest's sha256, and nothing else."""
    path = os.path.join(release_dir, CROISSANT)
    metadata = files.read_json(path, REBUILD)
    declared = {entry.get("contentUrl"): entry.get("sha256") for entry in metadata.get("distribution", ())
                if isinstance(entry, dict) and "sha256" in entry}
    for relative, sha256 in declared.items():
        if relative not in listed:
            _refuse(path, f"lists {relative}, which {RELEASE_MANIFEST} does not")
        if sha256 != listed[relative]["sha256"]:
            _refuse(path, f"its sha256 of {relative} differs from {RELEASE_MANIFEST}'s (stale or edited)")
    for relative in data_files(listed):
        if relative not in declared:
            _refuse(path, f"does not list {relative}, which {RELEASE_MANIFEST} does")


def verify_release(release_dir):
    """The MANIFEST.json of a local release folder once the folder matches it, else InputError naming the first file
    that differs: the manifest lists the card and croissant.json; every listed file is there as a plain file with its
    sha256; no other file is there; croissant.json's sha256 fields equal the manifest's; the manifest is unedited."""
    manifest_path = os.path.join(release_dir, RELEASE_MANIFEST)
    if not os.path.lexists(manifest_path):
        raise InputError(f"{manifest_path}: not found, so {release_dir} is no release picforge wrote; build one "
                         "(`picforge build`, or a companion's `release` verb) or restore it from the published copy")
    manifest = files.read_json(plain_file(manifest_path, release_dir), REBUILD)
    listed = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(listed, dict):
        _refuse(manifest_path, "has no `files` list")
    for relative in listed:
        relative_entry(relative, manifest_path)
    for required in (CARD, CROISSANT):
        if required not in listed:
            _refuse(manifest_path, f"does not list {required}, which every release has")
    for relative, meta in listed.items():
        path = os.path.join(release_dir, relative)
        if not os.path.lexists(path):
            _refuse(path, f"listed in {RELEASE_MANIFEST} but missing")
        if sha256_file(plain_file(path, release_dir)) != meta.get("sha256"):
            _refuse(path, f"changed since the build (its sha256 differs from {RELEASE_MANIFEST}'s)")
    for relative in release_entries(release_dir):
        if relative != RELEASE_MANIFEST and relative not in listed:
            _refuse(os.path.join(release_dir, relative),
                    f"not listed in {RELEASE_MANIFEST}, so not part of the release")
    _check_croissant(release_dir, listed)
    with open(manifest_path, encoding="utf-8") as fh:
        as_written = fh.read().rstrip("\n") == json.dumps(manifest, indent=2, sort_keys=True)
    if not as_written or manifest.get(SELF_DIGEST) != manifest_digest(manifest):
        _refuse(manifest_path, "edited since the build (its own sha256 does not match)")
    return manifest


def intact_release(release_dir):
    """The manifest of `release_dir` when it is a release that passes verify_release, else None (a damaged copy is
    rebuilt rather than kept as up to date)."""
    try:
        return verify_release(release_dir)
    except InputError:
        return None
