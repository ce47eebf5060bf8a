"""`picforge pearl release`: the PEARL corpus as a Hugging Face dataset (JSON Lines splits by phrase, card, plots)."""
import hashlib
import os
from collections import Counter

from matplotlib.figure import Figure

from companions.pearl import corpus, paraphrase
from companions.pearl.augment import KINDS, PARAPHRASE_KIND
from companions.pearl.constituents import LEXICAL_TYPES, ONTONOTES_TYPES, OTHER
from companions.pearl.options import DEFAULT_RATIOS
from picforge import __version__, release_writer, rundir
from picforge.errors import InputError
from picforge.release_writer import markdown_table, read_jsonl
from release.configs import SPLITS, schema_features

SCHEMA = "pearl_phrase"
INPUT_TERMS = (release_writer.WIKIPEDIA,)
LICENSE = release_writer.default_license(INPUT_TERMS)[0]
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


def plot_distributions(stats, path, corpus_name):
    """Two bar charts: lexical types beside the paper's shares, and entity types without OTHER (Figure A1), each
    titled with the distribution and the corpus it counts."""
    figure = Figure(figsize=(11, 3.9), layout="constrained")
    figure.suptitle(f"PEARL phrase corpus {corpus_name}: {stats['phrases']:,} phrases")
    lex_ax, ent_ax = figure.subplots(1, 2, width_ratios=[1, 2.4])
    lex_ax.set_title("lexical types: this corpus vs the PEARL paper")
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
    ent_ax.set_title(f"entity types of this corpus (without OTHER, {stats['other_pct']}% of phrases)")
    ent_ax.tick_params(axis="x", labelrotation=60)
    release_writer.save_png(figure, path)


INTRO = """Phrases of five lexical types (NP, VP, PP, ADVP, ADJP) seen at least twice in Wikipedia sentences, each with an
OntoNotes entity type (or OTHER) and their product label (95 possible), character-, token- and phrase-level
augmentations as positive samples, and hard negatives (look alike, mean something else), after the PEARL paper
(Sections 3.1-3.3, 4.1). Built by picforge {version}; see docs/pearl.md for how each part is made."""

LOADING = """```python
from datasets import load_dataset
pearl = load_dataset("json", data_files={"train": "data/train.jsonl", "validation": "data/validation.jsonl", "test": "data/test.jsonl"})
```"""


def card_header(split_bytes, license_id):
    """The card's YAML header: one config with its JSON Lines files, features and split sizes."""
    splits = {s: (f"data/{s}.jsonl", *split_bytes[s]) for s in SPLITS if split_bytes[s][0]}
    return release_writer.card_header(license_id=license_id, pretty_name="PEARL phrase corpus (picforge build)",
                                      task_categories=["feature-extraction", "sentence-similarity"],
                                      configs={"default": (schema_features(SCHEMA), splits)})


def render_card(stats, split_bytes, *, seed, ratios, fingerprints, license_id=LICENSE):
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
    fields = f"""`phrase`, `lexical_type` (NP|VP|PP|ADVP|ADJP), `entity_type` (18 OntoNotes types or OTHER), `label`
(`<lexical_type>-<entity_type>`), `count` (occurrences in the corpus), `augmentations` (list of `{{kind, text}}`,
kind one of {", ".join(KINDS)}), `hard_negatives` (list of corpus phrases)."""
    split_note = f"""Split by phrase (a seeded hash of the lower-cased phrase, ratios {"/".join(str(r) for r in ratios)}, seed {seed}),
so no phrase is in two splits."""
    summary = f"""Computed from the released files: {stats["phrases"]} phrases, {stats["occurrences"]} occurrences,
{stats["labels_used"]} of the 95 labels used; {stats["other_pct"]}% of phrases have entity type OTHER (paper: 88.5%)."""
    distributions_body = "\n\n".join([
        summary, lexical, entity, f"Most frequent labels: {labels}.", augment,
        f"Hard negatives: {stats['hard_negatives']} for {stats['with_hard_negatives']} phrases.",
        "![distributions](plots/distributions.png)"])
    sections = [("Fields", fields), ("Splits", f"{split_note}\n\n{sizes}"), ("Distributions", distributions_body),
                ("Provenance", inputs), ("License", release_writer.license_section(license_id, INPUT_TERMS))]
    return release_writer.render_card(card_header(split_bytes, license_id), "PEARL phrase corpus (picforge build)",
                                      [INTRO.format(version=__version__), LOADING], sections)


def _write_contents(root, splits, *, seed, ratios, fingerprints, license_id, corpus_name):
    """The data and plot of a PEARL release, and its card, statistics and manifest fields (see write_release)."""
    os.makedirs(os.path.join(root, "plots"))
    split_bytes = {split: (len(splits[split]), release_writer.write_jsonl(
        os.path.join(root, "data", f"{split}.jsonl"), splits[split])) for split in SPLITS}
    written = {split: read_jsonl(os.path.join(root, "data", f"{split}.jsonl")) for split in SPLITS}
    stats = distributions(written)
    plot_distributions(stats, os.path.join(root, "plots", "distributions.png"), corpus_name)
    card = render_card(stats, split_bytes, seed=seed, ratios=ratios, fingerprints=fingerprints, license_id=license_id)
    manifest = {"fingerprint": release_print(fingerprints, seed, ratios, license_id),
                "package_version": __version__, "seed": seed, "ratios": list(ratios), "license": license_id,
                "inputs": fingerprints, "counts": stats["split_sizes"]}
    return card, stats, manifest


def release_print(fingerprints, seed, ratios, license_id):
    """What a PEARL release depends on: its input stages, seed, split ratios and licence."""
    return rundir.fingerprint("pearl-release", fingerprints, {"seed": seed, "ratios": ratios, "license": license_id})


def release_corpus(run_dir, out, *, seed=0, ratios=DEFAULT_RATIOS, license_id=None, force=False):
    """Write the release of a PEARL run directory into `out` (replaced whole) unless it is up to date;
    returns its MANIFEST. A non-empty `out` that is not this release is replaced only with `force`;
    `license_id` None is the inputs' default licence."""
    license_id = license_id or LICENSE
    ratios = tuple(ratios)
    if len(ratios) != len(SPLITS) or any(r < 0 for r in ratios) or abs(sum(ratios) - 1) > 1e-6:
        raise InputError(f"--ratios {ratios}: give three non-negative shares (train, validation, test) summing to 1")
    run = rundir.RunDir(run_dir)
    fingerprints = {corpus.STAGE: run.require(corpus.STAGE)["fingerprint"]}
    paraphrased = run.read_manifest(paraphrase.STAGE)
    if paraphrased is not None:
        fingerprints[paraphrase.STAGE] = paraphrased["fingerprint"]
    wanted = release_print(fingerprints, seed, ratios, license_id)
    existing = release_writer.current_release(out, wanted, force=force, kind="PEARL", run=run_dir)
    if existing:
        return dict(existing, skipped=True)
    records = list(run.iter_records(corpus.STAGE))
    paraphrases = run.iter_records(paraphrase.STAGE) if paraphrased is not None else []
    splits = {split: [] for split in SPLITS}
    for record in sorted(with_paraphrases(records, paraphrases), key=lambda r: r["phrase"]):
        splits[split_of(record["phrase"], seed, ratios)].append(record)
    return release_writer.write_release(out, lambda staging: _write_contents(
        staging, splits, seed=seed, ratios=ratios, fingerprints=fingerprints, license_id=license_id,
        corpus_name=f"of run {os.path.basename(run_dir.rstrip('/'))!r}"))
