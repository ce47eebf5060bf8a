"""The phrase-clustering release: Hugging Face-format files, a card with Table 1 and the clustering baseline."""
import json
import os

import numpy as np

import schemas
from companions.mcphrasy import clusters
from companions.mcphrasy.annotate import CLUSTERS
from picforge import __version__, release_writer
from picforge.encoders import BUNDLED_MODEL, encode, load_sentence_model
from picforge.errors import InputError
from picforge.release_writer import markdown_table
from release.configs import schema_features
from picforge.resources import stopwords

SCHEMA = "mcphrasy_clustering"
DATA_FILE = "data/test.json"
PARQUET_FILE = "data/test.parquet"
DEFAULT_KS = ("10", "15", "20", "gold")
INPUT_TERMS = (release_writer.WIKIPEDIA,)
DEFAULT_LICENSE = release_writer.default_license(INPUT_TERMS)[0]


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


def agglomerative(vectors, k):
    """Cluster ids of unit vectors by complete-linkage agglomerative clustering on cosine distance into k clusters."""
    from sklearn.cluster import AgglomerativeClustering

    k = max(1, min(k, len(vectors)))
    distance = np.clip(1.0 - vectors @ vectors.T, 0.0, 2.0)
    return AgglomerativeClustering(n_clusters=k, metric="precomputed", linkage="complete").fit_predict(distance).tolist()


def baseline_scores(records, model_name=BUNDLED_MODEL, ks=DEFAULT_KS):
    """Mean V-measure, ARI and AMI of the encoder + agglomerative baseline per k ('gold' = the true count)."""
    if not records:
        return {}
    model = load_sentence_model(model_name)
    phrases = sorted({p for r in records for p in r["phrases"]})
    vector_of = dict(zip(phrases, encode(model, phrases)))
    results = {}
    for k in ks:
        rows = []
        for record in records:
            names, truth = gold_labels(record)
            count = len(record["clusters"]) if k == "gold" else int(k)
            rows.append(clusters.scores(truth, agglomerative(np.stack([vector_of[p] for p in names]), count)))
        results[k] = {key: round(value, 4) for key, value in clusters.mean_scores(rows).items()}
    return results


def read_release(release_dir):
    """The rows of a release directory's data file."""
    path = os.path.join(release_dir, DATA_FILE)
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file; is {release_dir} a release made by `picforge mcphrasy release`?")
    return release_writer.read_jsonl(path)


def card(records, num_bytes, table, baseline, model_name, license_id, agreement):
    """The dataset card: YAML header (config, features, split size) and Table 1, agreement and the baseline."""
    header = release_writer.card_header(
        license_id=license_id, pretty_name="McPhraSy phrase clustering", task_categories=["text-classification"],
        configs={"default": (schema_features(SCHEMA), {"test": (DATA_FILE, len(records), num_bytes)})})
    stats_rows = [(label, table["with_singletons"][key], table["without_singletons"][key]) for label, key in (
        ("# groups", "groups"), ("phrases per group", "phrases_per_group"),
        ("avg. # clusters per group", "clusters_per_group"), ("avg. cluster size", "cluster_size"),
        ("avg. # overlapping clusters", "overlapping_clusters"))]
    agreement_rows = [(pair, *(round(s[m], 2) for m in ("v_measure", "ari", "ami")))
                      for pair, s in agreement.get("per_pair", {}).items()]
    if agreement.get("average"):
        agreement_rows.append(("average", *(round(agreement["average"][m], 2) for m in ("v_measure", "ari", "ami"))))
    baseline_rows = [(k, s["v_measure"], s["ari"], s["ami"]) for k, s in baseline.items()]
    intro = [f"""Groups of related noun phrases of one category (a seed phrase and its nearest phrases by averaged word vectors),
clustered by experts into clusters of phrases that are equivalent in meaning (`equivalent`) or the same of a kind
(`same-kind`); a phrase left alone is a `singleton` cluster. Built with picforge {__version__} after McPhraSy
(§4, Appendix B). Load with `datasets.load_dataset("json", data_files="{DATA_FILE}")`.""",
             "Row: `{group_id, category, seed, phrases, clusters[{phrases, kind}]}`."]
    sections = [
        ("Statistics (Table 1)", "Overlapping clusters: the other clusters of the group sharing a non-stop word with a "
                                 "cluster.\n\n" + markdown_table(["", "with singletons", "without singletons"], stats_rows)),
        ("Annotator agreement", f"{agreement.get('groups', 0)} groups clustered by several annotators (V-measure, "
                                "adjusted Rand, adjusted mutual information):\n\n"
                                + (markdown_table(["annotators", "V", "ARI", "AMI"], agreement_rows)
                                   if agreement_rows else "none.")),
        ("Clustering baseline", f"""`{model_name}` phrase embeddings, agglomerative clustering with complete linkage on cosine distance into k clusters
(`gold` = the group's own number of clusters), mean over groups:\n\n"""
         + (markdown_table(["k", "V", "ARI", "AMI"], baseline_rows) if baseline_rows else "no groups.")),
        ("License", release_writer.license_section(license_id, INPUT_TERMS)),
    ]
    return release_writer.render_card(header, "McPhraSy phrase clustering", intro, sections)


def write_release(run, out, model_name=BUNDLED_MODEL, ks=DEFAULT_KS, license_id=DEFAULT_LICENSE):
    """Write the release of the run's `mcphrasy-clusters` stage into `out` (atomically); its manifest."""
    manifest = run.require(CLUSTERS)
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
        stats = {"table1": table1(written), "baseline": baseline_scores(written, model_name, ks),
                 "agreement": manifest.get("report", {}).get("agreement", {})}
        made["stats"] = stats
        text = card(written, num_bytes, stats["table1"], stats["baseline"], model_name, license_id,
                    stats["agreement"])
        fields = {"package_version": __version__, "inputs": {CLUSTERS: manifest["fingerprint"]},
                  "options": {"model": model_name, "ks": list(ks), "license": license_id}, "records": len(written)}
        return text, stats, fields

    return dict(release_writer.write_release(out, fill), stats=made["stats"])


def evaluate_predictions(records, predictions_path):
    """Mean V/ARI/AMI of predicted clusterings (JSON lines {group_id, clusters: [[phrase, …], …]}) against gold."""
    gold = {r["group_id"]: r for r in records}
    rows = []
    with open(predictions_path, encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                predicted = json.loads(line)
                record = gold[predicted["group_id"]]
                labels = {p: (str(n), "") for n, c in enumerate(predicted["clusters"]) for p in c}
                names, truth = gold_labels(record)
                rows.append(clusters.scores(truth, clusters.label_vector(names, labels)))
            except (json.JSONDecodeError, KeyError, TypeError) as err:
                raise InputError(f"{predictions_path}: line {line_no}: not a clustering of a released group "
                                 f"({type(err).__name__}: {err}); write {{\"group_id\": …, \"clusters\": [[phrase, …], …]}} "
                                 "covering every phrase of the group") from None
    return {key: round(value, 4) for key, value in clusters.mean_scores(rows).items()} | {"groups": len(rows)}
