"""The one release writer: data files, stats.json, a dataset card with a Hugging Face YAML header, plots, a
croissant.json and a MANIFEST.json with the sha256 of every file, written into a fresh folder that replaces the old
one whole."""
import json
import os
import re
import shutil
import tempfile
import uuid

from picforge import __version__, files, schemas
from picforge.croissant import CROISSANT, Description, Input, croissant, dump_names
# The licence functions the areas' release modules reach through this writer.
from picforge.licences import (check_license, default_license, license_section,  # noqa: F401
                               wikipedia_license, wikipedia_license_of_dump)
from picforge.files import pid_alive, pid_tag, remove_leftovers
from picforge.options import add_run_option
from picforge.release_check import CARD, SELF_DIGEST, intact_release, manifest_digest, sha256_file, verify_release
from picforge.paths import PRODUCER, plain_file, refuse_overlap, refuse_replacing

MANIFEST = "MANIFEST.json"
STATS = "stats.json"
# The splits a release may have, in the order cards and loaders list them.
SPLITS = ("train", "validation", "test")
# Fewer items than this in a split and a score on it says next to nothing (a 95 % interval of an accuracy spans
# about ±18 points at 30 items): cards flag such splits, builds warn of them and `evaluate` says so.
MIN_EVAL_ITEMS = 30

# The terms of one input of a release (Input: Hugging Face licence id, what the card says it requires, and for
# the lineage its name and address). Areas declare their other inputs (WiC, STS-B, SimLex-999) the same way.
WIKIPEDIA_TERMS = ("English Wikipedia text ({revisions}): reusing it requires attribution to its authors (a link to "
                   "each page is enough) and keeping derived text under the same licence (ShareAlike); {attribution}")


def wikipedia(attribution, revision_dates=(), dump_manifest=None):
    """The Wikipedia input of a release whose text comes from revisions saved on `revision_dates`, or else from the
    dump a stage manifest lists (its date bounds the revisions'; none known: taken as CC BY-SA 4.0), saying where
    its rows point to their pages (`attribution`)."""
    license_id, revisions = wikipedia_license(list(revision_dates)) if revision_dates else \
        wikipedia_license_of_dump(dump_names(dump_manifest or {})[1])
    return Input(license_id, WIKIPEDIA_TERMS.format(revisions=revisions, attribution=attribution), "English Wikipedia",
                 "https://dumps.wikimedia.org/enwiki/")


WIKIPEDIA = wikipedia("the page each context came from is named in the run's dump and its pages' ids")


def read_manifest(release_dir):
    """The MANIFEST.json of a release directory, or None when there is none."""
    path = os.path.join(release_dir, MANIFEST)
    if not os.path.lexists(path):
        return None
    return files.read_json(plain_file(path, release_dir),
                           f"restore it from the published copy, or rebuild the release into {release_dir}")


# What every release verb creates: its --out.
RELEASE_OUT = "release directory to write (local path, replaced whole)"


def add_release_options(parser, *, reads, default_license):
    """The options every release verb shares besides its --out: --run (the run it reads), --license and --force."""
    add_run_option(parser, reads)
    add_license_options(parser, default_license)
    parser.add_argument("--force", action="store_true", help="replace --out even if it holds something else")


def add_license_options(parser, default_license):
    """--license (refused when it conflicts with a redistributed input's terms) and --license-override REASON."""
    parser.add_argument("--license", help=f"licence id for the card (default {default_license})")
    parser.add_argument("--license-override", metavar="REASON",
                        help="publish under a --license that conflicts with a redistributed input's terms, for this "
                             "reason (stated on the card and in MANIFEST.json)")


def license_fields(license_id, override=None):
    """A release MANIFEST's licence fields: the id, and the reason a maintainer gave for an override."""
    return {"license": license_id, **({"license_override": override} if override else {})}


def release_summary(out, manifest, counted):
    """The lines a release verb prints: sizes per split, licence, whether it was up to date, and a warning per split
    too small to evaluate on."""
    state = " (up to date, skipped)" if manifest.get("skipped") else ""
    sizes = ", ".join(f"{split} {n}" for split, n in manifest["counts"].items())
    return "\n".join([f"{out}: {sizes} {counted}, license {manifest['license']}{state}",
                      *size_warnings(manifest)])


def small_splits(configs):
    """{config: {split: items}} of the splits with fewer than MIN_EVAL_ITEMS items; `configs` as
    Description.configs."""
    small = {config: {split: n for split, (_, n, _) in splits.items() if n < MIN_EVAL_ITEMS}
             for config, (_, splits) in configs.items()}
    return {config: splits for config, splits in small.items() if splits}


def size_warnings(manifest):
    """One warning line per split the manifest records as too small to evaluate on (`small_splits`)."""
    return [f"warning: {config} {split} has {n} item{'s' * (n != 1)}, under {MIN_EVAL_ITEMS}: too small to evaluate "
            "on (the card says so)" for config, splits in manifest.get("small_splits", {}).items()
            for split, n in splits.items()]


def with_split_sizes(card, configs):
    """The card with its items per config and split (split_sizes_table) at the head of its Statistics section, or
    as a section of their own before the first section of a card that has none."""
    table = (f"Items per config and split (a split of under {MIN_EVAL_ITEMS} items is too small to evaluate on):"
             f"\n\n{split_sizes_table(configs)}\n\n")
    found = re.search(r"^## Statistics[^\n]*\n\n", card, flags=re.M)
    if found:
        return card[:found.end()] + table + card[found.end():]
    at = card.find("\n## ")
    at = len(card) if at < 0 else at + 1
    return card[:at] + "## Statistics\n\n" + table + card[at:]


def split_sizes_table(configs):
    """The card's items per config and split, flagging each split too small to evaluate on; `configs` as
    Description.configs."""
    rows = [[config, split, f"{n:,}", f"**too small to evaluate on** (under {MIN_EVAL_ITEMS} items)"
             if n < MIN_EVAL_ITEMS else ""] for config, (_, splits) in configs.items() for split, (_, n, _) in
            splits.items()]
    return markdown_table(["config", "split", "items", "note"], rows)


def current_release(out, wanted, *, force, kind, run):
    """The manifest of `out` when it already holds the release fingerprinted `wanted`, intact (verify_release), and
    not `force`; else None.

    Refuses (InputError) an `out` that is, holds or sits inside the `run` it reads, and, unless `force`, an `out`
    holding anything but a release picforge wrote, naming what would be deleted (picforge.paths.refuse_replacing).
    """
    refuse_overlap(out, {"run": run})
    existing = None if force else intact_release(out)
    if existing and existing.get("fingerprint") == wanted:
        return existing
    refuse_replacing(out, "--out", kind=kind, force=force)
    return None


def file_checksums(root):
    """{relative path: {sha256, bytes}} of every file under `root`, sorted by path."""
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = plain_file(os.path.join(folder, name), root)  # a release never holds links
            files[os.path.relpath(path, root).replace(os.sep, "/")] = {
                "sha256": sha256_file(path), "bytes": os.path.getsize(path)}
    return dict(sorted(files.items()))


def write_jsonl(path, rows):
    """Rows as JSON Lines (UTF-8, not ASCII-escaped), creating the folder; returns the file's size in bytes."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return os.path.getsize(path)


def read_jsonl(path):
    """The rows of a release's JSON Lines data file (an unreadable line names the file and line)."""
    return files.read_jsonl(path, "the release is damaged: build it again")


def write_parquet(path, rows, arrow_schema):
    """Rows as zstd Parquet with `arrow_schema`; returns the Arrow size in bytes (a card's num_bytes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows, schema=arrow_schema)
    pq.write_table(table, path, compression="zstd")
    return table.nbytes


def plot_histograms(panels, title, path):
    """A PNG with one histogram per {axis label: values} panel, side by side."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4 * len(panels), 3.2), layout="constrained")
    figure.suptitle(title)
    for ax, (name, values) in zip(figure.subplots(1, len(panels), squeeze=False)[0], panels.items()):
        ax.hist(values, bins=min(30, max(5, len(set(values)))), color="#4c72b0", edgecolor="white")
        ax.set_xlabel(name)
        ax.set_ylabel("count")
    save_png(figure, path)


def save_png(figure, path):
    """A matplotlib figure as a PNG without the software stamp, so the same plot gives the same bytes."""
    figure.savefig(path, format="png", dpi=80, metadata={"Software": None})


def markdown_table(header, rows):
    """A Markdown table of a header and rows of cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def schema_feature(prop):
    """The Hugging Face feature of one JSON Schema property."""
    import datasets

    kind = prop["type"]
    if kind == "string":
        return datasets.Value("string")
    if kind == "integer":
        names = prop.get("x-class-names")
        return datasets.ClassLabel(names=names) if names else datasets.Value("int32")
    if kind == "number":
        return datasets.Value("float64")
    if kind == "array":
        return datasets.List(schema_feature(prop["items"]))
    if kind == "object":
        return {name: schema_feature(sub) for name, sub in prop["properties"].items()}
    raise ValueError(f"no release feature for JSON type {kind!r}")


def schema_features(schema_name):
    """The Hugging Face Features of a record schema, in field order (integers int32, labels ClassLabel, numbers
    float64)."""
    import datasets

    props = schemas.load(schema_name)["properties"]
    return datasets.Features({name: schema_feature(prop) for name, prop in props.items()})


def card_header(*, license_id, pretty_name, task_categories, configs):
    """The card's YAML header: per config its data files, features and split sizes.

    `configs` is {config: (datasets.Features, {split: (path, num_examples, num_bytes)})}, splits in order.
    """
    from datasets import DatasetInfo, SplitInfo
    from datasets.info import DatasetInfosDict
    from datasets.splits import SplitDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCardData

    data = DatasetCardData(license=license_id, language=["en"], pretty_name=pretty_name,
                           task_categories=list(task_categories))
    infos, data_files = {}, {}
    for config, (features, splits) in configs.items():
        data_files[config] = {"data_files": [{"split": s, "path": path} for s, (path, _, _) in splits.items()]}
        infos[config] = DatasetInfo(features=features, splits=SplitDict(
            {s: SplitInfo(name=s, num_examples=n, num_bytes=size) for s, (_, n, size) in splits.items()}))
    DatasetInfosDict(infos).to_dataset_card_data(data)
    described = data["dataset_info"]
    for info in described if isinstance(described, list) else [described]:
        info["features"] = [_as_sequence(feature) for feature in info["features"]]
    MetadataConfigs(data_files).to_dataset_card_data(data)
    return data.to_yaml()


def _as_sequence(feature):
    """Write a struct of plain lists (PR `answers`) in the older `sequence` form, as the public PiC cards do.

    Both forms load as the same Arrow type; `sequence` is also understood by `datasets` releases before 4.0.
    """
    children = feature.get("struct", [])
    if children and all(isinstance(child.get("list"), str) for child in children):
        return {"name": feature["name"],
                "sequence": [{"name": child["name"], "dtype": child["list"]} for child in children]}
    return feature


def render_card(header, title, intro, sections):
    """A dataset card: the YAML header, a title, intro paragraphs and (heading, body) sections, in that order."""
    parts = [f"---\n{header.rstrip()}\n---", f"# {title}", *intro]
    parts += [f"## {heading}\n\n{body}" for heading, body in sections]
    return "\n\n".join(part.rstrip("\n") for part in parts) + "\n"


def write_release(out, fill):
    """Write a release folder atomically and return its manifest.

    `fill(folder)` writes the data files and plots into a fresh folder and returns (card text, statistics,
    manifest fields, croissant Description); this writes stats.json, README.md, croissant.json (its FileObjects
    carrying the data files' sha256) and MANIFEST.json (the fields plus every file's sha256 and size), then renames
    the folder to `out`, so readers see the old release or the whole new one. Every release's licence is checked
    here against the inputs it redistributes (picforge.licences.check_license, with the manifest's override).
    """
    def contents(folder):
        card, stats, fields, description = fill(folder)
        check_license(description.license_id, description.inputs, fields.get("license_override"))
        card = with_split_sizes(card, description.configs)
        with open(os.path.join(folder, STATS), "w", encoding="utf-8") as fh:
            json.dump(stats, fh, indent=2, sort_keys=True)
        with open(os.path.join(folder, CARD), "w", encoding="utf-8") as fh:
            fh.write(card)
        metadata = croissant(folder, description, file_checksums(folder), version=__version__)
        with open(os.path.join(folder, CROISSANT), "w", encoding="utf-8") as fh:
            json.dump(metadata, fh, indent=2, ensure_ascii=False)
        validate_croissant(os.path.join(folder, CROISSANT))
        manifest = dict(fields, producer=PRODUCER, small_splits=small_splits(description.configs),
                        files=file_checksums(folder))
        manifest[SELF_DIGEST] = manifest_digest(manifest)
        with open(os.path.join(folder, MANIFEST), "w", encoding="utf-8") as fh:
            json.dump(manifest, fh, indent=2, sort_keys=True)
        return manifest

    return replace_directory(out, contents)


def validate_croissant(path):
    """Check a croissant.json with mlcroissant (what `mlcroissant validate` runs); RuntimeError lists its errors.
    Its warnings are not printed: the one it gives, no datePublished, is left to whoever publishes the release."""
    import mlcroissant
    from absl import logging as absl_logging

    verbosity = absl_logging.get_verbosity()
    absl_logging.set_verbosity(absl_logging.ERROR)
    try:
        mlcroissant.Dataset(jsonld=path)
    except mlcroissant.ValidationError as err:
        raise RuntimeError(f"{path}: the release's croissant.json does not validate: {err}") from None
    finally:
        absl_logging.set_verbosity(verbosity)


def replace_directory(out, write_contents):
    """Run `write_contents(staging)` in a fresh sibling directory of `out`, then rename it to `out` (replacing
    any old one), so readers see the old directory or the whole new one; returns what it returned."""
    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    name = os.path.basename(out)
    remove_leftovers(os.path.dirname(out), (f".{name}.partial-", f"{name}.old-"), owner_alive=pid_alive)
    with files.writing_to(out):
        staging = tempfile.mkdtemp(prefix=f".{name}.partial{pid_tag()}", dir=os.path.dirname(out))
    os.chmod(staging, 0o755)
    try:
        with files.writing_to(out):
            manifest = write_contents(staging)
            old = None
            if os.path.exists(out):
                old = f"{out}.old{pid_tag()}{uuid.uuid4().hex[:8]}"
                os.rename(out, old)
            os.rename(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if old:
        shutil.rmtree(old)
    return manifest
