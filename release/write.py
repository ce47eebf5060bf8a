"""Write a built release directory atomically: data files, statistics, plots, card and checksum manifest."""
import hashlib
import json
import os
import shutil
import tempfile
import uuid
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq

from picforge import __version__
from picforge.rundir import fingerprint
from release import checks, plots, stats
from release.card import render_card
from release.configs import SPLITS, data_file, features

MANIFEST = "MANIFEST.json"


def release_fingerprint(stage_fingerprints, seed):
    """What a release depends on: its input stages and the seed."""
    return fingerprint("release", stage_fingerprints, {"seed": seed})


def read_manifest(release_dir):
    """The MANIFEST.json of a release directory, or None when there is none."""
    path = os.path.join(release_dir, MANIFEST)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def sha256_file(path):
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_checksums(root):
    """{relative path: {sha256, bytes}} of every file under `root`, sorted by path."""
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            files[os.path.relpath(path, root).replace(os.sep, "/")] = {
                "sha256": sha256_file(path), "bytes": os.path.getsize(path)}
    return dict(sorted(files.items()))


def _write_split(root, config, split, records):
    """JSON Lines and Parquet of one non-empty split; returns the Arrow size in bytes (the card's num_bytes)."""
    if not records:
        raise RuntimeError(f"{config} {split}: an empty split reached the writer; `load_dataset` refuses empty files")
    for record in records:
        found = checks.problems(config, record)
        if found:
            raise RuntimeError(f"{config} {split}: a record that fails the checks reached the writer: {found}")
    os.makedirs(os.path.join(root, config), exist_ok=True)
    with open(os.path.join(root, data_file(config, split)), "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    table = pa.Table.from_pylist(records, schema=features(config).arrow_schema)
    pq.write_table(table, os.path.join(root, data_file(config, split, "parquet")), compression="zstd")
    return table.nbytes


def omitted_splits(release):
    """{config: [empty splits]} of the built release; a config with no example at all lists every split."""
    return {config: [s for s in SPLITS if not splits[s]] for config, splits in release.splits.items()
            if any(not splits[s] for s in SPLITS)}


def _write_contents(root, release, seed, stage_fingerprints):
    split_sizes, all_stats, plot_files = {}, {}, {}
    os.makedirs(os.path.join(root, "plots"))
    for config, splits in release.splits.items():
        if not any(splits.values()):
            continue
        split_sizes[config] = {s: (len(splits[s]), _write_split(root, config, s, splits[s]))
                               for s in SPLITS if splits[s]}
        all_stats[config], lengths = stats.describe(config, splits)
        plot_files[f"{config} lengths"] = f"plots/lengths-{config}.png"
        plots.plot_lengths(config, lengths, os.path.join(root, plot_files[f"{config} lengths"]))
    plot_files["triplet scores"] = "plots/triplet-scores.png"
    plots.plot_scores(release.scores, os.path.join(root, plot_files["triplet scores"]))
    with open(os.path.join(root, "stats.json"), "w", encoding="utf-8") as fh:
        json.dump(all_stats, fh, indent=2, sort_keys=True)
    rejected = Counter(config for config, _, _ in release.rejected)
    omitted = omitted_splits(release)
    card = render_card(all_stats, split_sizes, seed=seed, fingerprints=stage_fingerprints,
                       skipped=release.skipped, rejected=rejected, plots=plot_files, omitted=omitted,
                       provenance=release.provenance)
    with open(os.path.join(root, "README.md"), "w", encoding="utf-8") as fh:
        fh.write(card)
    manifest = {
        "fingerprint": release_fingerprint(stage_fingerprints, seed),
        "package_version": __version__,
        "seed": seed,
        "inputs": stage_fingerprints,
        "counts": {config: {s: n for s, (n, _) in sizes.items()} for config, sizes in split_sizes.items()},
        "omitted_splits": omitted,
        "skipped": release.skipped,
        "rejected": [{"config": c, "id": key, "reason": reason} for c, key, reason in release.rejected],
        "files": file_checksums(root),
    }
    with open(os.path.join(root, MANIFEST), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=2, sort_keys=True)
    return manifest


def write_release(release, out, *, seed, stage_fingerprints):
    """Write `release` into a fresh sibling directory, then rename it to `out` (replacing any old one)."""
    return replace_directory(out, lambda staging: _write_contents(staging, release, seed, stage_fingerprints))


def replace_directory(out, write_contents):
    """Run `write_contents(staging)` in a fresh sibling directory of `out`, then rename it to `out` (replacing
    any old one), so readers see the old directory or the whole new one; returns what it returned."""
    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.partial-", dir=os.path.dirname(out))
    os.chmod(staging, 0o755)
    try:
        manifest = write_contents(staging)
        old = None
        if os.path.exists(out):
            old = f"{out}.old-{uuid.uuid4().hex[:8]}"
            os.rename(out, old)
        os.rename(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if old:
        shutil.rmtree(old)
    return manifest
