"""`picforge pearl release`: the PEARL corpus as a Hugging Face dataset (JSON Lines splits by phrase, card, plots)."""
import hashlib
import json
import os
from collections import Counter

from datasets import DatasetInfo, SplitInfo
from datasets.info import DatasetInfosDict
from datasets.splits import SplitDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCardData
from matplotlib.figure import Figure

from companions.pearl import corpus, paraphrase
from companions.pearl.augment import KINDS, PARAPHRASE_KIND
from companions.pearl.constituents import LEXICAL_TYPES, ONTONOTES_TYPES, OTHER
from companions.pearl.options import DEFAULT_RATIOS
from picforge import __version__, rundir
from picforge.errors import InputError
from release.card import markdown_table
from release.configs import SPLITS, schema_features
from release.write import MANIFEST, file_checksums, read_manifest, replace_directory

SCHEMA = "pearl_phrase"
LICENSE = "cc-by-sa-4.0"  # Wikipedia text
# Section 4.1 of the PEARL paper: shares of the five lexical types among its 3.8M phrases
PAPER_LEXICAL_SHARES = {"NP": 60.1, "VP": 0.4, "PP": 26.1, "ADVP": 11.0, "ADJP": 2.4}


def split_of(phrase, seed, ratios=DEFAULT_RATIOS):
    """The split of a phrase: a seeded hash of its lower-cased text, so a phrase (in any casing) is in one split."""
    digest = hashlib.sha256(f"{seed}\x1f{phrase.lower()}".encode("utf-8")).digest()
    point, edge = int.from_bytes(digest[:8], "big") / 2 ** 64, 0.0
    for split, ratio in zip(SPLITS, ratios):
        edge += ratio
        if point < edge:
            return split
    return SPLITS[-1]


def with_paraphrases(records, paraphrases):
    """Records with their kept LLM paraphrase appended to the augmentations (kind `paraphrase`)."""
    kept = {row["phrase"]: row["paraphrase"] for row in paraphrases if row["status"] == "kept"}
    for record in records:
        extra = [{"kind": PARAPHRASE_KIND, "text": kept[record["phrase"]]}] if record["phrase"] in kept else []
        yield dict(record, augmentations=list(record["augmentations"]) + extra)


def read_jsonl(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def distributions(splits):
    """Statistics of the released rows: sizes, lexical/entity/label shares, augmentation kinds, negatives."""
    rows = [row for split in SPLITS for row in splits[split]]
    total = len(rows) or 1
    lexical = Counter(row["lexical_type"] for row in rows)
    entity = Counter(row["entity_type"] for row in rows)
    named = sum(n for ent, n in entity.items() if ent != OTHER) or 1
    return {
        "split_sizes": {split: len(splits[split]) for split in SPLITS},
        "phrases": len(rows),
        "occurrences": sum(row["count"] for row in rows),
        "lexical_types": {lex: {"phrases": lexical[lex], "pct": round(100 * lexical[lex] / total, 1),
                                "paper_pct": PAPER_LEXICAL_SHARES[lex]} for lex in LEXICAL_TYPES},
        "entity_types": {ent: {"phrases": entity[ent], "pct_of_named": round(100 * entity[ent] / named, 1)}
                         for ent in ONTONOTES_TYPES},
        "other_pct": round(100 * entity[OTHER] / total, 1),
        "labels_used": len({row["label"] for row in rows}),
        "top_labels": Counter(row["label"] for row in rows).most_common(10),
        "augmentations": {kind: sum(1 for row in rows for a in row["augmentations"] if a["kind"] == kind)
                          for kind in KINDS},
        "with_hard_negatives": sum(1 for row in rows if row["hard_negatives"]),
        "hard_negatives": sum(len(row["hard_negatives"]) for row in rows),
    }


def plot_distributions(stats, path):
    """Two bar charts: lexical types beside the paper's shares, and entity types without OTHER (Figure A1)."""
    figure = Figure(figsize=(11, 3.6), layout="constrained")
    lex_ax, ent_ax = figure.subplots(1, 2, width_ratios=[1, 2.4])
    positions = range(len(LEXICAL_TYPES))
    lex_ax.bar([p - 0.2 for p in positions], [stats["lexical_types"][t]["pct"] for t in LEXICAL_TYPES], 0.4,
               label="this corpus", color="#4c72b0")
    lex_ax.bar([p + 0.2 for p in positions], [PAPER_LEXICAL_SHARES[t] for t in LEXICAL_TYPES], 0.4,
               label="PEARL paper", color="#dd8452")
    lex_ax.set_xticks(list(positions), LEXICAL_TYPES)
    lex_ax.set_ylabel("% of phrases")
    lex_ax.legend()
    ordered = sorted(ONTONOTES_TYPES, key=lambda ent: -stats["entity_types"][ent]["phrases"])
    ent_ax.bar(ordered, [stats["entity_types"][ent]["pct_of_named"] for ent in ordered], color="#4c72b0")
    ent_ax.set_ylabel("% of phrases with an entity type")
    ent_ax.set_title(f"entity types (without OTHER, {stats['other_pct']}% of phrases)")
    ent_ax.tick_params(axis="x", labelrotation=60)
    figure.savefig(path, format="png", dpi=80, metadata={"Software": None})


def card_header(split_bytes):
    """The card's YAML header: one config with its JSON Lines files, features and split sizes."""
    data = DatasetCardData(license=LICENSE, language=["en"], pretty_name="PEARL phrase corpus (picforge build)",
                           task_categories=["feature-extraction", "sentence-similarity"])
    present = [split for split in SPLITS if split_bytes[split][0]]
    info = DatasetInfo(features=schema_features(SCHEMA), splits=SplitDict(
        {s: SplitInfo(name=s, num_examples=split_bytes[s][0], num_bytes=split_bytes[s][1]) for s in present}))
    DatasetInfosDict({"default": info}).to_dataset_card_data(data)
    MetadataConfigs({"default": {"data_files": [{"split": s, "path": f"data/{s}.jsonl"} for s in present]}}
                    ).to_dataset_card_data(data)
    return data.to_yaml()


def render_card(stats, split_bytes, *, seed, ratios, fingerprints):
    """The README.md of a release: header, fields, distributions (from the written files) and provenance."""
    lexical = markdown_table(["lexical type", "phrases", "%", "paper %"],
                     [[t, v["phrases"], v["pct"], v["paper_pct"]] for t, v in stats["lexical_types"].items()])
    entity = markdown_table(["entity type", "phrases", "% of named"],
                    [[e, v["phrases"], v["pct_of_named"]] for e, v in
                     sorted(stats["entity_types"].items(), key=lambda item: -item[1]["phrases"])])
    augment = markdown_table(["kind", "phrases"], list(stats["augmentations"].items()))
    sizes = markdown_table(["split", "phrases"], list(stats["split_sizes"].items()))
    labels = ", ".join(f"`{label}` {n}" for label, n in stats["top_labels"])
    inputs = "\n".join(f"- `{stage}`: `{fp}`" for stage, fp in fingerprints.items())
    return f"""---
{card_header(split_bytes).rstrip()}
---

# PEARL phrase corpus (picforge build)

Phrases of five lexical types (NP, VP, PP, ADVP, ADJP) seen at least twice in Wikipedia sentences, each with an
OntoNotes entity type (or OTHER) and their product label (95 possible), character-, token- and phrase-level
augmentations as positive samples, and hard negatives (look alike, mean something else), after the PEARL paper
(Sections 3.1-3.3, 4.1). Built by picforge {__version__}; see docs/pearl.md for how each part is made.

```python
from datasets import load_dataset
pearl = load_dataset("json", data_files={{"train": "data/train.jsonl", "validation": "data/validation.jsonl", "test": "data/test.jsonl"}})
```

## Fields

`phrase`, `lexical_type` (NP|VP|PP|ADVP|ADJP), `entity_type` (18 OntoNotes types or OTHER), `label`
(`<lexical_type>-<entity_type>`), `count` (occurrences in the corpus), `augmentations` (list of `{{kind, text}}`,
kind one of {", ".join(KINDS)}), `hard_negatives` (list of corpus phrases).

## Splits

Split by phrase (a seeded hash of the lower-cased phrase, ratios {"/".join(str(r) for r in ratios)}, seed {seed}),
so no phrase is in two splits.

{sizes}

## Distributions

Computed from the released files: {stats["phrases"]} phrases, {stats["occurrences"]} occurrences,
{stats["labels_used"]} of the 95 labels used; {stats["other_pct"]}% of phrases have entity type OTHER (paper: 88.5%).

{lexical}

{entity}

Most frequent labels: {labels}.

{augment}

Hard negatives: {stats["hard_negatives"]} for {stats["with_hard_negatives"]} phrases.

![distributions](plots/distributions.png)

## Provenance

{inputs}
"""


def _write_contents(root, splits, *, seed, ratios, fingerprints):
    os.makedirs(os.path.join(root, "data"))
    os.makedirs(os.path.join(root, "plots"))
    split_bytes = {}
    for split in SPLITS:
        path = os.path.join(root, "data", f"{split}.jsonl")
        with open(path, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in splits[split])
        split_bytes[split] = (len(splits[split]), os.path.getsize(path))
    written = {split: read_jsonl(os.path.join(root, "data", f"{split}.jsonl")) for split in SPLITS}
    stats = distributions(written)
    plot_distributions(stats, os.path.join(root, "plots", "distributions.png"))
    with open(os.path.join(root, "stats.json"), "w", encoding="utf-8") as fh:
        json.dump(stats, fh, indent=2, sort_keys=True)
    with open(os.path.join(root, "README.md"), "w", encoding="utf-8") as fh:
        fh.write(render_card(stats, split_bytes, seed=seed, ratios=ratios, fingerprints=fingerprints))
    manifest = {"fingerprint": rundir.fingerprint("pearl-release", fingerprints, {"seed": seed, "ratios": ratios}),
                "package_version": __version__, "seed": seed, "ratios": list(ratios), "inputs": fingerprints,
                "counts": stats["split_sizes"], "files": file_checksums(root)}
    with open(os.path.join(root, MANIFEST), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=2, sort_keys=True)
    return manifest


def release_corpus(run_dir, out, *, seed=0, ratios=DEFAULT_RATIOS, force=False):
    """Write the release of a PEARL run directory into `out` (replaced whole) unless it is up to date;
    returns its MANIFEST. A non-empty `out` that is not this release is replaced only with `force`."""
    ratios = tuple(ratios)
    if len(ratios) != len(SPLITS) or any(r < 0 for r in ratios) or abs(sum(ratios) - 1) > 1e-6:
        raise InputError(f"--ratios {ratios}: give three non-negative shares (train, validation, test) summing to 1")
    run = rundir.RunDir(run_dir)
    fingerprints = {corpus.STAGE: run.require(corpus.STAGE)["fingerprint"]}
    paraphrased = run.read_manifest(paraphrase.STAGE)
    if paraphrased is not None:
        fingerprints[paraphrase.STAGE] = paraphrased["fingerprint"]
    wanted = rundir.fingerprint("pearl-release", fingerprints, {"seed": seed, "ratios": ratios})
    existing = read_manifest(out)
    if existing and existing["fingerprint"] == wanted and not force:
        return dict(existing, skipped=True)
    if os.path.isdir(out) and os.listdir(out) and not existing and not force:
        raise InputError(f"{out}: holds files that are not a PEARL release; pass --force to replace it or choose "
                         "another --out")
    records = list(run.iter_records(corpus.STAGE))
    paraphrases = run.iter_records(paraphrase.STAGE) if paraphrased is not None else []
    splits = {split: [] for split in SPLITS}
    for record in sorted(with_paraphrases(records, paraphrases), key=lambda r: r["phrase"]):
        splits[split_of(record["phrase"], seed, ratios)].append(record)
    return replace_directory(out, lambda staging: _write_contents(
        staging, splits, seed=seed, ratios=tuple(ratios), fingerprints=fingerprints))
