"""The checks every release's croissant.json passes: mlcroissant validates it, its FileObjects' sha256 match the
files, it states the RAI fields and the PROV lineage, mlcroissant reads back exactly the rows of the data files, and
every config of the card loads with `datasets.load_dataset(RELEASE_DIR, CONFIG)`."""
import json
import os

import numpy as np
import yaml

from picforge.croissant import CONFORMS_TO, CROISSANT, RAI_FIELDS, license_url
from picforge.release_writer import read_jsonl, sha256_file


def plain(value, prefix=""):
    """A record as mlcroissant yields it, as JSON would hold it: text decoded, arrays as lists, field ids as names."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, dict):
        return {key.rsplit("/", 1)[-1]: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def data_rows(release_dir, path):
    """The rows of a split as its JSON Lines file holds them (the Parquet file's JSON Lines sibling)."""
    stem = os.path.splitext(os.path.join(release_dir, path))[0]
    found = [stem + ext for ext in (".jsonl", ".json") if os.path.exists(stem + ext)]
    return read_jsonl(found[0])


def card_configs(release_dir):
    """{config: [data file paths]} of the card's `configs:` header."""
    text = open(os.path.join(release_dir, "README.md"), encoding="utf-8").read()
    header = yaml.safe_load(text.split("---\n")[1])
    return {c["config_name"]: [f["path"] for f in c["data_files"]] for c in header["configs"]}


def check_croissant(release_dir, cache_dir):
    """Assert the release at `release_dir` passes every Croissant and loading check; returns its croissant.json."""
    import datasets
    import mlcroissant as mlc

    path = os.path.join(release_dir, CROISSANT)
    metadata = json.load(open(path, encoding="utf-8"))
    dataset = mlc.Dataset(jsonld=path)  # raises ValidationError on any error `mlcroissant validate` reports
    assert not dataset.metadata.ctx.issues.errors
    assert metadata["conformsTo"] == CONFORMS_TO and metadata["citeAs"] and metadata["creator"]
    manifest = json.load(open(os.path.join(release_dir, "MANIFEST.json"), encoding="utf-8"))
    assert metadata["license"] == license_url(manifest.get("license") or manifest["options"]["license"])
    for name in RAI_FIELDS:
        assert metadata[f"rai:{name}"], name
    derived = metadata["prov:wasDerivedFrom"]
    assert derived and all(entity["name"] and entity["url"] and entity["license"] for entity in derived)
    generated = metadata["prov:wasGeneratedBy"]
    assert generated["identifier"] and generated["runner"] and generated["prov:wasAssociatedWith"]["version"]
    objects = [node for node in metadata["distribution"] if node["@type"] == "cr:FileObject"]
    data_files = {name for name in manifest["files"] if name.endswith((".json", ".jsonl", ".parquet")) and "/" in name}
    assert {node["contentUrl"] for node in objects} == data_files
    for node in objects:
        assert node["sha256"] == sha256_file(os.path.join(release_dir, node["contentUrl"]))
    configs = card_configs(release_dir)
    assert {rs["@id"] for rs in metadata["recordSet"]} == set(configs)
    file_sets = {node["@id"]: node for node in metadata["distribution"] if node["@type"] == "cr:FileSet"}
    for record_set in metadata["recordSet"]:
        config = record_set["@id"]
        records = [plain(record) for record in dataset.records(record_set=config)]
        expected = []
        for included in file_sets[f"{config}-files"]["includes"]:
            split = os.path.splitext(os.path.basename(included))[0]
            expected += [dict(row, split=split) for row in data_rows(release_dir, included)]
        key = lambda row: json.dumps(row, sort_keys=True)  # noqa: E731
        assert sorted(map(key, records)) == sorted(map(key, expected)), config
        loaded = datasets.load_dataset(str(release_dir), config, cache_dir=str(cache_dir))
        assert sum(split.num_rows for split in loaded.values()) == len(expected)
    return metadata
