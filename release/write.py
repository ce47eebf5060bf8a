"""The PiC release folder: its data files, statistics, plots, card and manifest fields, written by the core writer."""
import os
from collections import Counter

from picforge import __version__
from picforge.release_writer import (Description, SPLITS, license_fields, write_jsonl, write_parquet,
                                     write_release as write_folder)
from picforge.licences import check_license
from picforge.rundir import fingerprint
from release import checks, plots, stats
from release.card import INTRO, release_configs, render_card
from release.provenance import PIC_CITATION
from release.configs import data_file, features


def release_fingerprint(stage_fingerprints, seed, license_id=None, license_override=None):
    """What a release depends on: its input stages, the seed, the licence asked for (None: the inputs' default)
    and an override's reason."""
    return fingerprint("release", stage_fingerprints, {"seed": seed, "license": license_id or "",
                                                       "license_override": license_override or ""})


def _write_split(root, config, split, records):
    """JSON Lines and Parquet of one non-empty split; returns the Arrow size in bytes (the card's num_bytes)."""
    if not records:
        raise RuntimeError(f"{config} {split}: an empty split reached the writer; `load_dataset` refuses empty files")
    for record in records:
        found = checks.problems(config, record)
        if found:
            raise RuntimeError(f"{config} {split}: a record that fails the checks reached the writer: {found}")
    write_jsonl(os.path.join(root, data_file(config, split)), records)
    return write_parquet(os.path.join(root, data_file(config, split, "parquet")), records,
                         features(config).arrow_schema)


def omitted_splits(release):
    """{config: [empty splits]} of the built release; a config with no example at all lists every split."""
    return {config: [s for s in SPLITS if not splits[s]] for config, splits in release.splits.items()
            if any(not splits[s] for s in SPLITS)}


def _write_contents(root, release, seed, stage_fingerprints, requested_license, license_override):
    """The data, plots, card, statistics and manifest fields of a PiC release (see write_folder)."""
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
    rejected = Counter(config for config, _, _ in release.rejected)
    omitted = omitted_splits(release)
    inputs, rai, runner = release.facts
    license_id = check_license(requested_license, inputs, license_override)
    card = render_card(all_stats, split_sizes, seed=seed, fingerprints=stage_fingerprints,
                       skipped=release.skipped, rejected=rejected, plots=plot_files, omitted=omitted,
                       provenance=release.provenance, license_id=license_id, inputs=inputs,
                       license_override=license_override, sources=release.sources, rehearsal=release.rehearsal,
                       rai=rai, left_out=release.left_out, agreement=release.agreement)
    wanted = release_fingerprint(stage_fingerprints, seed, requested_license, license_override)
    description = Description(
        name="PiC (picforge build)", description=" ".join((release.rehearsal + " " + INTRO).split()),
        cite_as=PIC_CITATION, inputs=inputs,
        rai=rai, generated_by={"description": f"picforge build, seed {seed}, from the run's stages "
                               + ", ".join(f"{stage} {fp[:12]}" for stage, fp in stage_fingerprints.items()),
                               "identifier": wanted, "runner": runner},
        license_id=license_id, configs=release_configs(split_sizes))
    manifest = {
        "fingerprint": wanted,
        "package_version": __version__,
        "seed": seed,
        **license_fields(license_id, license_override),
        **({"rehearsal": release.rehearsal} if release.rehearsal else {}),
        "inputs": stage_fingerprints,
        "counts": {config: {s: n for s, (n, _) in sizes.items()} for config, sizes in split_sizes.items()},
        "omitted_splits": omitted,
        "skipped": release.skipped,
        "rejected": [{"config": c, "id": key, "reason": reason} for c, key, reason in release.rejected],
    }
    return card, all_stats, manifest, description


def write_release(release, out, *, seed, stage_fingerprints, license_id=None, license_override=None):
    """Write `release` into `out` through the core release writer (atomically replacing any old one); a
    `license_id` that conflicts with a redistributed input's terms is refused unless `license_override` says why."""
    check_license(license_id, release.facts[0], license_override)
    return write_folder(out, lambda staging: _write_contents(staging, release, seed, stage_fingerprints, license_id,
                                                             license_override))
