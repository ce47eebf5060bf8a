"""The phrase-clustering release: Hugging Face-format files, a card with Table 1 and the clustering baseline."""
import os

import numpy as np

from companions.mcphrasy import baselines, clusters, grouping, stages
from companions.mcphrasy.declarations import CLUSTERS, GROUPS
from companions.mcphrasy.baselines import DEFAULT_KS
from companions.mcphrasy.release_options import ReleaseOptions
from picforge import __version__, files, release_writer, schemas
from picforge.croissant import dump_used
from picforge.encoders import BUNDLED_MODEL, encode, load_sentence_model
from picforge.errors import InputError
from picforge.paths import plain_file
from picforge.release_writer import markdown_table, schema_features
from picforge.rundir import RunDir, fingerprint
from picforge.sheets import read_json_lines
from picforge.word_vectors import read_vectors_file
from picforge.resources import stopwords

SCHEMA = "mcphrasy_clustering"
DATA_FILE = "data/test.json"
PARQUET_FILE = "data/test.parquet"
WIKIPEDIA_ATTRIBUTION = ("the rows hold short noun phrases of the pages (2-3 words from their first 200 characters), "
                         "not running text, and no page address: credit Wikipedia and name the dump this release "
                         "names in croissant.json (wasDerivedFrom)")
WIKIPEDIA = release_writer.wikipedia(WIKIPEDIA_ATTRIBUTION)
REVIEWS = release_writer.Input(
    "other", "the phrases come from the Amazon review data of Ni, Li and McAuley (2019), shared by its authors for "
             "research", "Amazon Review Data (2018)", "https://nijianmo.github.io/amazon/")
INPUT_TERMS = (WIKIPEDIA,)
CITATION = ("Amir D. N. Cohen, Hila Gonen, Ori Shapira, Ran Levy and Yoav Goldberg. McPhraSy: Multi-Context Phrase "
            "Similarity and Clustering. Findings of EMNLP 2022.")
LICENSE = release_writer.default_license(INPUT_TERMS)[0]


def overlapping(cluster, others):
    """How many of `others` share a non-stop word with `cluster`."""
    words = {w for p in cluster["phrases"] for w in p.split()} - stopwords()
    return sum(bool(words & {w for p in other["phrases"] for w in p.split()}) for other in others)


def table1(records):
    """McPhraSy Table 1 from released rows, with and without singleton clusters."""
    columns = {}
    for name, keep in (("with_singletons", lambda c: True), ("without_singletons", lambda c: len(c["phrases"]) > 1)):
        per_group = [[c for c in r["clusters"] if keep(c)] for r in records]
        kept = [c for group in per_group for c in group]
        overlaps = [overlapping(c, [o for o in group if o is not c]) for group in per_group for c in group]
        columns[name] = {
            "groups": len(records),
            "phrases_per_group": _mean([len(r["phrases"]) for r in records]),
            "clusters_per_group": _mean([len(group) for group in per_group]),
            "cluster_size": _mean([len(c["phrases"]) for c in kept]),
            "overlapping_clusters": _mean(overlaps),
        }
    return columns


def _mean(values):
    return round(float(np.mean(values)), 2) if values else 0.0


def gold_labels(record):
    """The record's phrases and their gold cluster ids."""
    labels = {p: (str(n), c["kind"]) for n, c in enumerate(record["clusters"]) for p in c["phrases"]}
    return record["phrases"], clusters.label_vector(record["phrases"], labels)


def baseline_scores(records, model_name=BUNDLED_MODEL, ks=DEFAULT_KS, device="auto"):
    """Mean V-measure, ARI and AMI of the encoder (on `device`) + agglomerative baseline per k ('gold' = the true
    count)."""
    if not records:
        return {}
    model = load_sentence_model(model_name, device=device)
    phrases = sorted({p for r in records for p in r["phrases"]})
    vector_of = dict(zip(phrases, encode(model, phrases)))
    by_k = baselines.group_scores(records, lambda names: baselines.cosine_distances(np.stack([vector_of[p] for p in names])), ks)
    return {k: {key: round(value, 4) for key, value in clusters.mean_scores(rows).items()} for k, rows in by_k.items()}


def compare_baselines(records, model_name=BUNDLED_MODEL, vectors_file=None, contexts_run=None,
                      max_contexts=stages.MAX_CONTEXTS, ks=DEFAULT_KS, rounds=baselines.ROUNDS, seed=0, device="auto"):
    """The §5.3.1 baselines side by side on released groups, with paired permutation tests between them; the
    encoders run on `device`."""
    model = load_sentence_model(model_name, device=device)
    phrases = sorted({p for r in records for p in r["phrases"]})
    if vectors_file:
        words = read_vectors_file(vectors_file, {w for p in phrases for w in p.split()})
        word_vector, dimensions = words.get, len(next(iter(words.values()))) if words else 1
    else:
        word_vector, dimensions = baselines.static_word_vectors(model)
    contexts_of = None
    if contexts_run:
        contexts_of = {r["phrase"]: r["contexts"] for r in RunDir(contexts_run).require_records(stages.CONTEXTS)}
    methods = baselines.method_distances(phrases, model, model_name, word_vector, dimensions, contexts_of,
                                         max_contexts, device)
    described = {
        "edit-distance": "character edit distance / the longer phrase's length",
        "word-vectors": (f"cosine of averaged word vectors of `{vectors_file}` (known words)" if vectors_file else
                         f"cosine of averaged static word-piece embeddings of `{model_name}` (stand-in for GloVe; "
                         "give --vectors FILE for real word vectors)"),
        "encoder": f"cosine of `{model_name}` phrase embeddings (Phrase-BERT's place; --encoder names another)",
        "contexts": f"cosine of the mean over up to {max_contexts} contexts of `{model_name}`'s token vector at "
                    "[MASK] (McPhraSy §3.1 without the trained embedder; zeros for a phrase without contexts)",
        "contexts+phrase": "mean of the `contexts` and `encoder` cosines (the concatenation McPhraSy feeds its "
                           "embedder)"}
    compared = baselines.compare({name: baselines.group_scores(records, distance_of, ks)
                                  for name, distance_of in methods.items()}, rounds, seed)
    test = (f"paired permutation test over groups (sign flips of the per-group differences, two-sided, {rounds} "
            f"rounds, seed {seed}); significant: p < {baselines.SIGNIFICANT}")
    without = sorted(p for p in phrases if contexts_of is not None and not contexts_of.get(p))
    return dict(compared, groups=len(records), methods={m: described[m] for m in methods}, test=test,
                phrases_without_contexts=len(without) if contexts_of is not None else None)


def read_release(release_dir):
    """The rows of a release directory's data file."""
    path = os.path.join(release_dir, DATA_FILE)
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file; is {release_dir} a release made by `picforge mcphrasy release`?")
    return release_writer.read_jsonl(plain_file(path, release_dir))


def time_text(time):
    """The card's line on annotation time per group."""
    if not time.get("timed_sheets"):
        return "No returned sheet gave the minutes spent on its group."
    per_annotator = ", ".join(f"{a} {m}" for a, m in time["per_annotator"].items())
    return (f"{time['mean_minutes_per_group']} minutes per group on average, over the {time['timed_sheets']} of "
            f"{time['sheets']} sheets that give a time (per annotator: {per_annotator}); the paper: about "
            f"{time['paper_minutes_per_group']} minutes (Appendix B.3).")


def groups_text(groups_report, max_groups):
    """The card's lines on how the groups were made and how many were reached against the paper's 106."""
    per_category = ", ".join(f"{c} {r['groups']}" for c, r in groups_report["categories"].items())
    reached = sum(r["groups"] for r in groups_report["categories"].values())
    target = groups_report.get("target", grouping.PAPER_GROUPS)
    return (f"{reached} groups reached of the target {target} (`--groups`; the paper: {grouping.PAPER_GROUPS} over 5 "
            f"categories), at most {max_groups} per category (`--max-groups`): {per_category}. Phrases grouped by "
            f"{groups_report['vectors']}.")


def release_configs(records, num_bytes):
    """The one config and its test split, as the card header and croissant.json list it."""
    return {"default": (schema_features(SCHEMA), {"test": (DATA_FILE, len(records), num_bytes)})}


def input_terms(documents):
    """The input a McPhraSy release redistributes phrases of: the review files or the Wikipedia dump (its licence
    by the dump's date) its documents stage read."""
    if "reviews" in documents.get("inputs", {}):
        files = [os.path.basename(entry["path"]) for entry in documents["inputs"]["reviews"]]
        return (REVIEWS._replace(used=f"review files {', '.join(files)}"),)
    wikipedia = release_writer.wikipedia(WIKIPEDIA_ATTRIBUTION, dump_manifest=documents)
    return (wikipedia._replace(used=dump_used(documents)),)


def render_card(records, num_bytes, table, baseline, model_name, license_id, agreement, groups, time, vectors,
                inputs=INPUT_TERMS, license_override=None):
    """The dataset card: YAML header (config, features, split size), how the groups were made (with `vectors`, what
    built them), Table 1, agreement, annotation time and the baseline."""
    header = release_writer.card_header(
        license_id=license_id, pretty_name="McPhraSy phrase clustering", task_categories=["text-classification"],
        configs=release_configs(records, num_bytes))
    stats_rows = [(label, table["with_singletons"][key], table["without_singletons"][key]) for label, key in (
        ("# groups", "groups"), ("phrases per group", "phrases_per_group"),
        ("avg. # clusters per group", "clusters_per_group"), ("avg. cluster size", "cluster_size"),
        ("avg. # overlapping clusters", "overlapping_clusters"))]
    agreement_rows = [(pair, *(round(s[m], 2) for m in ("v_measure", "ari", "ami")))
                      for pair, s in agreement.get("per_pair", {}).items()]
    if agreement.get("average"):
        agreement_rows.append(("average", *(round(agreement["average"][m], 2) for m in ("v_measure", "ari", "ami"))))
    baseline_rows = [(k, s["v_measure"], s["ari"], s["ami"]) for k, s in baseline.items()]
    intro = [f"""Groups of related noun phrases of one category (a seed phrase and its nearest phrases by {vectors}),
clustered by experts into clusters of phrases that are equivalent in meaning (`equivalent`) or the same of a kind
(`same-kind`); a phrase left alone is a `singleton` cluster. Built with picforge {__version__} after McPhraSy
(§4, Appendix B). Load with `datasets.load_dataset("json", data_files="{DATA_FILE}")`.""",
             "Row: `{group_id, category, seed, phrases, clusters[{phrases, kind}]}`."]
    sections = [
        ("Groups", groups),
        ("Statistics (Table 1)", "Overlapping clusters: the other clusters of the group sharing a non-stop word with a "
                                 "cluster.\n\n" + markdown_table(["", "with singletons", "without singletons"], stats_rows)),
        ("Annotator agreement", f"{agreement.get('groups', 0)} groups clustered by several annotators (V-measure, "
                                "adjusted Rand, adjusted mutual information):\n\n"
                                + (markdown_table(["annotators", "V", "ARI", "AMI"], agreement_rows)
                                   if agreement_rows else "none.")),
        ("Annotation time", time),
        ("Clustering baseline", f"""`{model_name}` phrase embeddings, agglomerative clustering with complete linkage on cosine distance into k clusters
(`gold` = the group's own number of clusters), mean over groups:\n\n"""
         + (markdown_table(["k", "V", "ARI", "AMI"], baseline_rows) if baseline_rows else "no groups.")),
        ("License", release_writer.license_section(license_id, inputs, license_override)),
    ]
    return release_writer.render_card(header, "McPhraSy phrase clustering", intro, sections)


def description(run, manifest, groups_manifest, stats, records, num_bytes, model_name, license_id):
    """What croissant.json says of a McPhraSy release: inputs, RAI fields from the run's stages, lineage."""
    documents = run.read_manifest(stages.DOCUMENTS) or {}
    source = "reviews" if "reviews" in documents.get("inputs", {}) else "wikipedia"
    inputs = input_terms(documents)
    counts = manifest.get("report", {}).get("counts", {})
    agreement, time, vectors = stats["agreement"], stats["time"], stats["groups"]["vectors"]
    average = agreement.get("average") or {}
    rai = {
        "dataCollection": f"Documents from {source} ({documents.get('records', 'an unrecorded number of')} "
                          "documents); 2-3-word noun phrases by the B.1 POS pattern over each document's first 200 "
                          "characters, ranked by frequency per category; "
                          + groups_text(stats["groups"], groups_manifest["options"]["max_groups"]),
        "dataCollectionType": ["Document Analysis", "Manual Human Curation"],
        "dataAnnotationProtocol": [
            "cluster sheets: each annotator sorts a group's phrases into clusters of equivalent or same-kind phrases "
            "(a phrase alone is a singleton) and gives the minutes spent",
            "groups clustered by several annotators are reconciled by the majority: " + ", ".join(
                f"{name} {n}" for name, n in counts.items())],
        "dataAnnotationPlatform": ["cluster sheets (CSV/XLSX) exported and ingested by picforge"],
        "annotationsPerItem": f"{counts.get('single-annotator', 0)} groups clustered by one annotator, "
                              f"{counts.get('reconciled', 0)} by several",
        "dataAnnotationAnalysis": [
            f"agreement on {agreement.get('groups', 0)} groups clustered by several annotators: " + (", ".join(
                f"{m} {round(average[m], 2)}" for m in ("v_measure", "ari", "ami")) if average else "none measured"),
            time_text(time)],
        "annotatorDemographics": ["not collected: the ledger holds the annotators' names only"],
        "machineAnnotationTools": [f"groups built by {vectors}", f"clustering baseline: `{model_name}`"],
        "dataLimitations": [f"{len(records)} groups against the paper's {grouping.PAPER_GROUPS}"]
                           + ([f"groups built by {vectors}"] if "sentence encoder" in vectors else []),
        "dataBiases": ["each category's most frequent phrases seed the groups, so frequent topics dominate",
                       "phrases from the first 200 characters of each document (its lead) only"],
        "dataUseCases": ["evaluating phrase similarity by clustering (V-measure, ARI, AMI)"],
        "personalSensitiveInformation": ["none expected: short noun phrases of public documents; annotator names "
                                         "are not released"],
    }
    return release_writer.Description(
        name="McPhraSy phrase clustering (picforge build)",
        description=f"Groups of related noun phrases of one category, built by {vectors} and clustered by experts "
                    "into clusters of equivalent or same-kind phrases, after McPhraSy (Section 4, Appendix B).",
        cite_as=CITATION, inputs=inputs, rai=rai,
        generated_by={"identifier": manifest["fingerprint"], "runner": documents.get("runner", "not recorded in the run")},
        license_id=license_id, configs=release_configs(records, num_bytes))


def release_fingerprint(fingerprints, license_id, model_name, ks, license_override=None):
    """What a McPhraSy release depends on: the clusters stage, the baseline encoder and its ks, and the licence."""
    licence = release_writer.license_fields(license_id, license_override)
    return fingerprint("mcphrasy-release", fingerprints, {"model": model_name, "ks": list(ks), **licence})


def write_release(run_dir, out, *, license_id=None, force=False, options=ReleaseOptions(), ks=DEFAULT_KS,
                  license_override=None):
    """Write the release of a run's `mcphrasy-clusters` stage into `out` (replaced whole) unless it is up to date,
    the baseline encoder and its device from `options`; returns its MANIFEST (with `skipped` when up to date) and
    its statistics. `license_id` None is the inputs' default licence; one that conflicts with a redistributed
    input's terms is refused unless `license_override` says why."""
    model_name, device = options.encoder, options.device_spec()
    run = RunDir(run_dir)
    inputs = input_terms(run.read_manifest(stages.DOCUMENTS) or {})
    license_id = release_writer.check_license(license_id, inputs, license_override)
    manifest = run.require(CLUSTERS)
    groups_manifest = run.require(GROUPS)
    fingerprints = {CLUSTERS: manifest["fingerprint"]}
    wanted = release_fingerprint(fingerprints, license_id, model_name, ks, license_override)
    existing = release_writer.current_release(out, wanted, force=force, kind="McPhraSy", run=run_dir)
    if existing:
        stats = files.read_json(plain_file(os.path.join(out, release_writer.STATS), out), "build the release again")
        return dict(existing, skipped=True, stats=stats)
    records = list(run.iter_records(CLUSTERS))
    if not records:
        raise InputError(f"{run.stage_dir(CLUSTERS)}: no clustered groups yet; ingest cluster sheets and run "
                         "`picforge mcphrasy reconcile` first")

    made = {}

    def fill(root):
        release_writer.write_jsonl(os.path.join(root, DATA_FILE), records)
        num_bytes = release_writer.write_parquet(os.path.join(root, PARQUET_FILE), records,
                                                 schemas.arrow_schema(SCHEMA))
        written = read_release(root)
        report = manifest.get("report", {})
        stats = {"table1": table1(written), "baseline": baseline_scores(written, model_name, ks, device),
                 "agreement": report.get("agreement", {}), "time": report.get("time", {}),
                 "groups": groups_manifest["report"]}
        made["stats"] = stats
        text = render_card(written, num_bytes, stats["table1"], stats["baseline"], model_name, license_id,
                           stats["agreement"], groups_text(stats["groups"], groups_manifest["options"]["max_groups"]),
                           time_text(stats["time"]), stats["groups"]["vectors"], inputs, license_override)
        fields = {"fingerprint": wanted, "package_version": __version__,
                  **release_writer.license_fields(license_id, license_override), "inputs": fingerprints,
                  "options": {"model": model_name, "ks": list(ks)}, "records": len(written),
                  "counts": {"test": len(written)}}
        return text, stats, fields, description(run, manifest, groups_manifest, stats, written, num_bytes,
                                                model_name, license_id)

    return dict(release_writer.write_release(out, fill), stats=made["stats"])


def score_predictions(records, predictions_path):
    """Mean V/ARI/AMI of predicted clusterings (JSON lines {group_id, clusters: [[phrase, …], …]}) against gold."""
    gold = {r["group_id"]: r for r in records}
    shape = 'write {"group_id": …, "clusters": [[phrase, …], …]} covering every phrase of the group'
    rows = []
    for line_no, predicted in read_json_lines(predictions_path, ("group_id", "clusters"), shape=shape):
        try:
            record = gold[predicted["group_id"]]
            labels = {p: (str(n), "") for n, c in enumerate(predicted["clusters"]) for p in c}
            names, truth = gold_labels(record)
            rows.append(clusters.scores(truth, clusters.label_vector(names, labels)))
        except (KeyError, TypeError) as err:
            raise InputError(f"{predictions_path}: line {line_no}: not a clustering of a released group "
                             f"({type(err).__name__}: {err}); {shape}") from None
    return {key: round(value, 4) for key, value in clusters.mean_scores(rows).items()} | {"groups": len(rows)}
