"""`picforge pearl release`: the PEARL corpus as a Hugging Face dataset (JSON Lines splits by phrase, card, plots)."""
import dataclasses
import os
from collections import Counter

from matplotlib.figure import Figure

from companions.pearl import corpus, paraphrase
from companions.pearl.augment import KINDS, PARAPHRASE_KIND
from companions.pearl.constituents import LEXICAL_TYPES, ONTONOTES_TYPES, OTHER
from companions.pearl.options import PearlOptions
from companions.pearl.splits import split_of
from picforge import __version__, release_writer, rundir
from picforge.croissant import dump_used
from picforge.release_writer import markdown_table, read_jsonl, schema_features, SPLITS

SCHEMA = "pearl_phrase"
WIKIPEDIA_ATTRIBUTION = ("the rows hold phrases seen at least twice in the pages' sentences, not running text, and no "
                         "page address: credit Wikipedia and name the dump this release names in croissant.json "
                         "(wasDerivedFrom)")
WIKIPEDIA = release_writer.wikipedia(WIKIPEDIA_ATTRIBUTION)
INPUT_TERMS = (WIKIPEDIA,)
CITATION = ("Lihu Chen, Gaël Varoquaux and Fabian M. Suchanek. Learning High-Quality and General-Purpose Phrase "
            "Representations. EACL 2024.")
LICENSE = release_writer.default_license(INPUT_TERMS)[0]
# Section 4.1 of the PEARL paper: shares of the five lexical types among its 3.8M phrases
PAPER_LEXICAL_SHARES = {"NP": 60.1, "VP": 0.4, "PP": 26.1, "ADVP": 11.0, "ADJP": 2.4}


def with_paraphrases(records, paraphrases):
    """Records with their kept LLM paraphrase appended to the augmentations (kind `paraphrase`)."""
    kept = {row["phrase"]: row["paraphrase"] for row in paraphrases if row["status"] == "kept"}
    for record in records:
        extra = [{"kind": PARAPHRASE_KIND, "text": kept[record["phrase"]]}] if record["phrase"] in kept else []
        yield dict(record, augmentations=list(record["augmentations"]) + extra)


def negative_bins(counters):
    """{"cosine": {bin: n}, "edit_similarity": {bin: n}} of the chosen hard negatives, from the build's counters."""
    bins = {"cosine": {}, "edit_similarity": {}}
    for name, value in counters.items():
        for measure, prefix in (("cosine", "negative-cosine-"), ("edit_similarity", "negative-edit-similarity-")):
            if name.split("/", 1)[1].startswith(prefix):
                bins[measure][name.split("/", 1)[1][len(prefix):]] = value
    return {measure: dict(sorted(found.items(), key=lambda item: float(item[0]))) for measure, found in bins.items()}


def release_statistics(splits, negative_counters=None):
    """Statistics of the released rows: sizes, lexical/entity/label shares, augmentation kinds, negatives (with
    the bins of their cosine and edit similarity from the build's `negative_counters`)."""
    rows = [row for split in SPLITS for row in splits[split]]
    split_of_phrase = {row["phrase"].lower(): split for split in SPLITS for row in splits[split]}  # case-folded
    kept = {row["phrase"] for row in rows}
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
        "distinct_hard_negatives": len({n for row in rows for n in row["hard_negatives"]}),
        "hard_negatives_across_splits": sum(1 for split in SPLITS for row in splits[split]
                                            for n in row["hard_negatives"]
                                            if split_of_phrase.get(n.lower(), split) != split),
        "hard_negatives_of_rare_phrases": sum(1 for row in rows for n in row["hard_negatives"]
                                              if n not in kept),
        "hard_negative_coverage": {split: round(sum(1 for row in splits[split] if row["hard_negatives"])
                                                / (len(splits[split]) or 1), 3) for split in SPLITS},
        "hard_negative_bins": negative_bins(negative_counters or {}),
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


def release_configs(split_bytes):
    """The one config and its non-empty splits, as the card header and croissant.json list them."""
    splits = {s: (f"data/{s}.jsonl", *split_bytes[s]) for s in SPLITS if split_bytes[s][0]}
    return {"default": (schema_features(SCHEMA), splits)}


def input_terms(built):
    """The input a PEARL release redistributes phrases of: the Wikipedia dump its corpus stage read (its licence
    by the dump's date)."""
    return (release_writer.wikipedia(WIKIPEDIA_ATTRIBUTION, dump_manifest=built)._replace(used=dump_used(built)),)


def card_header(split_bytes, license_id):
    """The card's YAML header: one config with its JSON Lines files, features and split sizes."""
    return release_writer.card_header(license_id=license_id, pretty_name="PEARL phrase corpus (picforge build)",
                                      task_categories=["feature-extraction", "sentence-similarity"],
                                      configs=release_configs(split_bytes))


def models_that_ran(options, paraphrased):
    """The models and resources that labelled and augmented the phrases, as the build and paraphrase stages ran."""
    from picforge.spacy_models import default_spacy_model

    spacy_model = options["spacy_model"] or default_spacy_model()
    tools = [f"spaCy `{spacy_model}` ({options['parser']} constituents; entities by "
             f"`{options['ner_model'] or spacy_model}`)", f"hard negatives: encoder `{options['encoder']}`",
             synonym_sources(options)]
    if paraphrased is not None:
        tools.append(f"phrase paraphrases: LLM `{paraphrased['options']['model']}`")
    return tools


def description(stats, split_bytes, *, options, built, paraphrased, wanted, license_id):
    """What croissant.json says of a PEARL release: its input, RAI fields (machine-made labels, no human
    annotation) from the build's manifest, lineage."""
    lexical = ", ".join(f"{t} {v['pct']}% (paper {v['paper_pct']}%)" for t, v in stats["lexical_types"].items())
    rai = {
        "dataCollection": f"Phrases of five lexical types seen at least {options['min_count']} times in the "
                          f"sentences of a picforge mining run ({dump_used(built)}): {stats['phrases']} phrases, "
                          f"{stats['occurrences']} occurrences",
        "dataCollectionType": ["Document Analysis", "Software Collection"],
        "dataAnnotationProtocol": ["no human annotation: the lexical type comes from the constituency parse, the "
                                   "entity type from NER (OntoNotes types or OTHER), augmentations and hard negatives "
                                   "from the rules of docs/pearl.md"],
        "dataAnnotationPlatform": ["none: machine annotation only"],
        "annotationsPerItem": "one machine label per phrase",
        "dataAnnotationAnalysis": [f"lexical types: {lexical}",
                                   f"{stats['other_pct']}% of phrases have entity type OTHER (paper: 88.5%)",
                                   f"{stats['with_hard_negatives']} of {stats['phrases']} phrases have a hard negative"],
        "annotatorDemographics": ["not applicable: no human annotator"],
        "machineAnnotationTools": models_that_ran(options, paraphrased),
        "dataLimitations": [f"lexical-type shares differ from the paper's: {lexical}",
                            "labels are machine-made and unchecked by people"],
        "dataBiases": ["English Wikipedia only; phrases seen at least twice, so frequent topics dominate"],
        "dataUseCases": ["training and evaluating phrase encoders (PEARL's contrastive objective with "
                         "augmentations as positives and hard negatives)"],
        "personalSensitiveInformation": ["phrases can name people (entity type PERSON); they are public Wikipedia "
                                         "text"],
    }
    return release_writer.Description(
        name="PEARL phrase corpus (picforge build)", description=" ".join(INTRO.format(version=__version__).split()),
        cite_as=CITATION, inputs=input_terms(built), rai=rai,
        generated_by={"identifier": wanted, "runner": built.get("runner", "not recorded in the run")},
        license_id=license_id, configs=release_configs(split_bytes))


def negatives_section(stats, options):
    """The hard-negative paragraph of the card: the thresholds, the counts and the bins of the chosen ones."""
    bins = stats["hard_negative_bins"]
    coverage = ", ".join(f"{split} {share}" for split, share in stats["hard_negative_coverage"].items())
    edges = sorted(set(bins["cosine"]) | set(bins["edit_similarity"]), key=float)
    table = markdown_table(["bin", "cosine", "edit similarity"],
                           [[f"[{edge}, {float(edge) + 0.1:.1f})", bins["cosine"].get(edge, 0),
                             bins["edit_similarity"].get(edge, 0)] for edge in edges])
    return f"""Hard negatives: {stats['hard_negatives']} ({stats['distinct_hard_negatives']} distinct phrases) for
{stats['with_hard_negatives']} phrases; {stats['hard_negatives_across_splits']} from another split, {stats['hard_negatives_of_rare_phrases']} of them phrases of the corpus
seen fewer than {options['min_count']} times (in no split). Share of phrases with one: {coverage}. Candidates are phrases
of the same split, or seen fewer than {options['min_count']} times, sharing a content word at edit similarity (1 - Levenshtein
distance / longer length) >= {options['min_edit_similarity']}; of the {options['negative_candidates']} most alike of each phrase the {options.get('negatives_encoded', options['negative_candidates'])} sharing the fewest words are encoded
and the {options['negatives_k']} of lowest encoder cosine (<= {options['max_cosine']}, `{options['encoder']}` in {options.get('precision', 'fp32')}) kept. Bins of the
chosen ones (from the build's counters):

{table}"""


def synonym_sources(options):
    """Which synonym sources the build ran, in a sentence for the card."""
    wordnet = (f"WordNet (`{options['wordnet']}`): the other attested lemmas of the word's sense in its part of "
               "speech as tagged in context (base-form nouns, verbs, adjectives and adverbs), the sense whose gloss "
               f"the encoder finds closest to the phrase, kept when the replaced phrase's cosine with the phrase is "
               f">= {options['min_synonym_cosine']}"
               if options["wordnet"] else "WordNet: off")
    vectors = (f"word vectors `{os.path.basename(options['vectors'])}` (given with --vectors): neighbours of "
               f"cosine >= {options['min_vector_cosine']}" if options["vectors"] else
               "word vectors: off (the paper uses FastText; give a .vec file with --vectors)")
    return f"Synonym sources that ran: {wordnet}; {vectors}."


def render_card(stats, split_bytes, *, options, fingerprints, license_id=LICENSE, paraphrased=None,
                terms=INPUT_TERMS, license_override=None):
    """The README.md of a release: header, fields, distributions (from the written files) and provenance."""
    lexical = markdown_table(["lexical type", "phrases", "%", "paper %"],
                     [[t, v["phrases"], v["pct"], v["paper_pct"]] for t, v in stats["lexical_types"].items()])
    entity = markdown_table(["entity type", "phrases", "% of named"],
                    [[e, v["phrases"], v["pct_of_named"]] for e, v in
                     sorted(stats["entity_types"].items(), key=lambda item: -item[1]["phrases"])])
    augment = markdown_table(["kind", "augmentations"], list(stats["augmentations"].items()))
    sizes = markdown_table(["split", "phrases"], list(stats["split_sizes"].items()))
    labels = ", ".join(f"`{label}` {n}" for label, n in stats["top_labels"])
    inputs = "\n".join([f"- `{stage}`: `{fp}`" for stage, fp in fingerprints.items()]
                       + [f"- {tool}" for tool in models_that_ran(options, paraphrased)])
    fields = f"""`phrase`, `lexical_type` (NP|VP|PP|ADVP|ADJP), `entity_type` (18 OntoNotes types or OTHER), `label`
(`<lexical_type>-<entity_type>`), `count` (occurrences in the corpus), `augmentations` (list of `{{kind, text}}`,
kind one of {", ".join(KINDS)}), `hard_negatives` (list of corpus phrases)."""
    split_note = f"""Split by phrase at build time (a seeded hash of the lower-cased phrase, ratios
{"/".join(str(r) for r in options["ratios"])}, seed {options["seed"]}), so no phrase is in two splits and hard negatives come from
the phrase's own split or from phrases no split holds."""
    summary = f"""Computed from the released files: {stats["phrases"]} phrases, {stats["occurrences"]} occurrences,
{stats["labels_used"]} of the 95 labels used; {stats["other_pct"]}% of phrases have entity type OTHER (paper: 88.5%)."""
    distributions_body = "\n\n".join([
        summary, lexical, entity, f"Most frequent labels: {labels}.", augment, synonym_sources(options),
        negatives_section(stats, options),
        "![distributions](plots/distributions.png)"])
    sections = [("Fields", fields), ("Splits", f"{split_note}\n\n{sizes}"), ("Distributions", distributions_body),
                ("Provenance", inputs),
                ("License", release_writer.license_section(license_id, terms, license_override))]
    return release_writer.render_card(card_header(split_bytes, license_id), "PEARL phrase corpus (picforge build)",
                                      [INTRO.format(version=__version__), LOADING], sections)


def _write_contents(root, splits, *, options, built, paraphrased, fingerprints, license_id, corpus_name,
                    license_override=None):
    """The data and plot of a PEARL release, and its card, statistics and manifest fields (see write_release)."""
    os.makedirs(os.path.join(root, "plots"))
    split_bytes = {split: (len(splits[split]), release_writer.write_jsonl(
        os.path.join(root, "data", f"{split}.jsonl"), splits[split])) for split in SPLITS}
    written = {split: read_jsonl(os.path.join(root, "data", f"{split}.jsonl")) for split in SPLITS}
    stats = release_statistics(written, built["counters"])
    plot_distributions(stats, os.path.join(root, "plots", "distributions.png"), corpus_name)
    card = render_card(stats, split_bytes, options=options, fingerprints=fingerprints, license_id=license_id,
                       paraphrased=paraphrased, terms=input_terms(built), license_override=license_override)
    wanted = release_fingerprint(fingerprints, license_id, license_override)
    manifest = {"fingerprint": wanted,
                "package_version": __version__, "seed": options["seed"], "ratios": list(options["ratios"]),
                **release_writer.license_fields(license_id, license_override),
                "inputs": fingerprints, "counts": stats["split_sizes"]}
    return card, stats, manifest, description(stats, split_bytes, options=options, built=built,
                                              paraphrased=paraphrased, wanted=wanted, license_id=license_id)


def release_fingerprint(fingerprints, license_id, license_override=None):
    """What a PEARL release depends on: its input stages (whose options hold the split seed and ratios) and licence."""
    return rundir.fingerprint("pearl-release", fingerprints, release_writer.license_fields(license_id,
                                                                                            license_override))


def write_release(run_dir, out, *, license_id=None, force=False, license_override=None):
    """Write the release of a PEARL run directory into `out` (replaced whole), split as the build chose, unless it
    is up to date; returns its MANIFEST. A non-empty `out` that is not this release is replaced only with `force`;
    `license_id` None is the inputs' default licence; one that conflicts with the Wikipedia text's terms is refused
    unless `license_override` says why."""
    run = rundir.RunDir(run_dir)
    built = run.require(corpus.STAGE)
    license_id = release_writer.check_license(license_id, input_terms(built), license_override)
    options = dict(dataclasses.asdict(PearlOptions()), **built["options"])
    fingerprints = {corpus.STAGE: built["fingerprint"]}
    paraphrased = run.read_manifest(paraphrase.STAGE)
    if paraphrased is not None:
        fingerprints[paraphrase.STAGE] = paraphrased["fingerprint"]
    wanted = release_fingerprint(fingerprints, license_id, license_override)
    existing = release_writer.current_release(out, wanted, force=force, kind="PEARL", run=run_dir)
    if existing:
        return dict(existing, skipped=True)
    records = list(run.iter_records(corpus.STAGE))
    paraphrases = run.iter_records(paraphrase.STAGE) if paraphrased is not None else []
    splits = {split: [] for split in SPLITS}
    for record in sorted(with_paraphrases(records, paraphrases), key=lambda r: r["phrase"]):
        splits[split_of(record["phrase"], options["seed"], options["ratios"])].append(record)
    return release_writer.write_release(out, lambda staging: _write_contents(
        staging, splits, options=options, built=built, paraphrased=paraphrased, fingerprints=fingerprints,
        license_id=license_id, license_override=license_override,
        corpus_name=f"of run {os.path.basename(run_dir.rstrip('/'))!r}"))
