"""The four release configs, the split ratios they share, and their Hugging Face features (from schemas/)."""
import os
from dataclasses import dataclass

from picforge import schemas
from picforge.release_writer import Input, default_license, read_jsonl, wikipedia
from picforge.errors import InputError
from picforge.paths import plain_file

SPLITS = ("train", "validation", "test")
# Splits are drawn per triplet, once for all configs (leak-free), with PS's 70/10/20 (PiC Sec. 5.1); PR's
# 20,147/3,000/5,000 is close to it, PSD's 1,438/500/3,000 cannot be kept without a triplet crossing splits.
SPLIT_RATIOS = (0.7, 0.1, 0.2)
# What a PiC release is built from, for its licence: Wikipedia contexts, phrases filtered by the WiC words.
WIKIPEDIA = wikipedia("each row's `title` is the address of its page (`https://en.wikipedia.org/wiki?curid=<page_id>`, "
                      "PSD: both pages), which is the attribution the licence asks for; keep it with the text")
WIC = Input("cc-by-nc-4.0", "the candidate phrases were filtered with the WiC target words, released under CC BY-NC 4.0, "
                            "which requires attribution (cite the WiC paper) and allows non-commercial use only",
            "WiC: the Word-in-Context dataset", "https://pilehvar.github.io/wic/")
INPUT_TERMS = (WIKIPEDIA, WIC)
LICENSE = default_license(INPUT_TERMS)[0]


@dataclass(frozen=True)
class ReleaseConfig:
    """One dataset config of the release: its directory name, record schema and summary."""

    name: str
    schema: str
    summary: str


CONFIGS = {
    "PS": ReleaseConfig("PS", "ps", "Phrase Similarity: are phrase1 and phrase2 interchangeable in the same sentence?"),
    "PR-pass": ReleaseConfig("PR-pass", "pr",
                             "Phrase Retrieval in an 11-sentence passage: find the phrase meaning the query."),
    "PR-page": ReleaseConfig("PR-page", "pr", "Phrase Retrieval in a whole Wikipedia page."),
    "PSD": ReleaseConfig("PSD", "pr",
                         "Phrase Sense Disambiguation: the phrase occurs twice; find the occurrence meaning the query."),
}


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


def features(config):
    """The Hugging Face Features of a config."""
    return schema_features(CONFIGS[config].schema)


def data_file(config, split, ext="json"):
    """Path of a split's file inside the release directory, e.g. PR-pass/train.json."""
    return f"{config}/{split}.{ext}"


def read_split(release_dir, config, split):
    """The records of one split of a release directory (JSON Lines)."""
    path = os.path.join(release_dir, data_file(config, split))
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file; {config} has no {split} split in this release (empty splits are not "
                         f"written; its README.md says which), or {release_dir} is not a release built by "
                         "`picforge build`")
    return read_jsonl(plain_file(path, release_dir))
