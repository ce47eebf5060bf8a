"""The four release configs, the split ratios they share."""
import os
from dataclasses import dataclass

from picforge.release_writer import Input, read_jsonl, schema_features, wikipedia
from picforge.errors import InputError
from picforge.paths import plain_file

# Splits are drawn per triplet, once for all configs (leak-free), with PS's 70/10/20 (PiC Sec. 5.1); PR's
# 20,147/3,000/5,000 is close to it, PSD's 1,438/500/3,000 cannot be kept without a triplet crossing splits.
SPLIT_RATIOS = (0.7, 0.1, 0.2)
# What a PiC release is built from, for its licence: Wikipedia contexts (redistributed), phrases filtered by the WiC
# target words (read only).
WIKIPEDIA_ATTRIBUTION = ("each PR-pass, PR-page and PSD row names its page (`title`, `url`) and the revision its text "
                         "was taken from (`revision_id`); every page revision this release holds text of is listed "
                         "below with its history, where its authors are named")
WIC = Input("cc-by-nc-4.0", "the WiC target words (CC BY-NC 4.0; cite Pilehvar and Camacho-Collados, NAACL 2019) only "
                            "chose which candidate phrases were mined; no WiC text is in the release",
            "WiC: the Word-in-Context dataset", "https://pilehvar.github.io/wic/", redistributed=False)


def input_terms(sources=None):
    """The inputs of a PiC release whose text comes from the page revisions `sources` ({page_id: inputs.Source};
    None: not known yet), for its licence and lineage."""
    dates = [s.revision_timestamp for s in (sources or {}).values()]
    return wikipedia(WIKIPEDIA_ATTRIBUTION, dates), WIC


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
