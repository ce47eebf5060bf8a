"""Cluster-annotation round over a run: export sheets, ingest them into the ledger, agreement, reconciled clusters."""
import contextlib
import hashlib
import json
import os
import re

from picforge.ledger import Ledger
from picforge.sheets import read_sheet, write_sheet
from companions.mcphrasy import cluster_ledger, clusters
from companions.mcphrasy.declarations import DEFAULT_SHARED, GROUPS, Clusters
from picforge.errors import InputError
from picforge.files import write_atomically
from picforge import stages

BATCH_KIND = "mcphrasy-clusters"
SHEET_COLUMNS = ["annotator"] + clusters.SHEET_COLUMNS
EXPORTED_COLUMNS = SHEET_COLUMNS + [clusters.MINUTES]


def sheet_name(group_id):
    """A file name for a group's sheet: its id made safe, plus a short hash so two ids never share a name."""
    safe = re.sub(r"[^A-Za-z0-9]+", "-", group_id).strip("-")[:60]
    return f"{safe}-{hashlib.sha1(group_id.encode('utf-8')).hexdigest()[:8]}"


def batch_id(annotator, group_id):
    """The natural id of one annotator's sheet of one group."""
    return f"{BATCH_KIND}/{annotator}/{group_id}"


def read_groups(run):
    """The group records of the run, in stage order ({} when the stage wrote none)."""
    run.require(GROUPS)
    return {g["group_id"]: g for g in run.iter_records(GROUPS)}


def export_clusters(run, annotators, out_dir, shared=DEFAULT_SHARED, ledger_url=None):
    """Write one sheet per group per annotator (CSV + XLSX) and the guidelines; record each sheet as a batch.
    A sheet file already there is left as it is. Returns {annotator: [sheet base paths]}."""
    annotators = [name.strip() for given in annotators for name in given.split(",")]
    if not annotators or not all(annotators) or len(set(annotators)) != len(annotators):
        raise InputError("--annotators: name each annotator once, e.g. --annotators ann alex sam (or ann,alex,sam)")
    groups = read_groups(run)
    plan = clusters.assign_groups(list(groups), annotators, shared)
    os.makedirs(out_dir, exist_ok=True)
    write_atomically(os.path.join(out_dir, "guidelines.md"), clusters.GUIDELINES)
    written = {a: [] for a in annotators}
    ledger = Ledger.for_run(run.root, ledger_url)
    with ledger.transaction() as session:
        for group_id, assigned in plan.items():
            for annotator in assigned:
                base = os.path.join(out_dir, annotator, sheet_name(group_id))
                if not os.path.exists(base + ".csv"):
                    rows = [dict(row, annotator=annotator) for row in clusters.sheet_rows(groups[group_id])]
                    write_sheet(base, EXPORTED_COLUMNS, rows)
                session.add_batch(batch_id(annotator, group_id), BATCH_KIND, meta={
                    "annotator": annotator, "group_id": group_id, "shared": len(assigned) > 1})
                written[annotator].append(base)
    ledger.dispose()
    return written


def sheet_files(paths):
    """The sheet files named or found in folders (.csv, .xlsx); a folder holding both forms of one sheet is an
    InputError (which one is the answer?)."""
    files = []
    for path in paths:
        if not os.path.isdir(path):
            files.append(path)
            continue
        found = sorted(os.path.join(folder, name) for folder, _, names in os.walk(path) for name in names
                       if name.lower().endswith((".csv", ".xlsx")))
        stems = [os.path.splitext(f)[0] for f in found]
        twice = sorted({s for s in stems if stems.count(s) > 1})
        if twice:
            raise InputError(f"{twice[0]}: both .csv and .xlsx are there; keep only the returned one")
        files += found
    return files


def ingest_clusters(run, paths, ledger_url=None):
    """Validate returned sheets and store their labels, and the minutes written on them in their batch's meta, in
    the ledger (all or none); {sheets, changed}."""
    groups = {g: record["phrases"] for g, record in read_groups(run).items()}
    ledger = Ledger.for_run(run.root, ledger_url)
    parsed = []
    with ledger.read() as session:
        for path in sheet_files(paths):
            sheet = read_sheet(path, SHEET_COLUMNS, optional=(clusters.MINUTES,))
            annotators = {row["annotator"] for _, row in sheet.rows}
            group_id, labels = clusters.sheet_labels(sheet, groups)
            if len(annotators) != 1 or session.batch(batch_id(next(iter(annotators)), group_id)) is None:
                raise InputError(f"{path}: column annotator ({', '.join(sorted(annotators))}) does not name the "
                                 f"annotator this group's sheet was exported to; restore it from the exported sheet")
            parsed.append((group_id, annotators.pop(), labels, clusters.sheet_minutes(sheet)))
    changed = 0
    with ledger.transaction() as session:
        for group_id, annotator, labels, minutes in parsed:
            changed += cluster_ledger.record_labels(session, group_id, annotator, batch_id(annotator, group_id), labels)
            session.update_batch(batch_id(annotator, group_id), meta={clusters.MINUTES: minutes})
    ledger.dispose()
    return {"sheets": len(parsed), "changed": changed}


@contextlib.contextmanager
def reading_ledger(run, ledger_url=None):
    """A read session of the run's ledger (or the one at `ledger_url`), the ledger disposed after it; a ledger that
    is not there is refused, never created."""
    ledger = Ledger.for_run(run.root, ledger_url, create=False)
    try:
        with ledger.read() as session:
            yield session
    finally:
        ledger.dispose()


def ledger_labels(run, ledger_url=None):
    """{group_id: {annotator: {phrase: (cluster, kind)}}} as ingested."""
    with reading_ledger(run, ledger_url) as session:
        return cluster_ledger.read_labels(session)


def labelled_minutes(session, labels):
    """{group_id: {annotator: minutes or None}} of every ingested sheet of `labels` (ledger_labels' shape)."""
    return {group_id: {annotator: session.batch(batch_id(annotator, group_id))["meta"].get(clusters.MINUTES)
                       for annotator in by_annotator} for group_id, by_annotator in labels.items()}


def agreement_report(labels):
    """Agreement on the groups labelled by several annotators: per group and pair, per pair, and on average."""
    per_group, per_pair = {}, {}
    for group_id, by_annotator in sorted(labels.items()):
        if len(by_annotator) < 2:
            continue
        per_group[group_id] = clusters.pairwise_agreement(by_annotator)
        for row in per_group[group_id]:
            per_pair.setdefault(" / ".join(row["annotators"]), []).append(row)
    return {"groups": len(per_group), "per_group": per_group,
            "per_pair": {pair: clusters.mean_scores(rows) for pair, rows in sorted(per_pair.items())},
            "average": clusters.mean_scores([r for rows in per_group.values() for r in rows])}


def reconciled_records(groups, labels):
    """(records, counts): each labelled group with its final clusters (one annotator's, or the majority's)."""
    records, counts = [], {"groups": len(groups), "single-annotator": 0, "reconciled": 0, "unannotated": 0}
    for group_id, group in groups.items():
        by_annotator = labels.get(group_id, {})
        if not by_annotator:
            counts["unannotated"] += 1
            continue
        if len(by_annotator) == 1:
            counts["single-annotator"] += 1
            final = next(iter(by_annotator.values()))
        else:
            counts["reconciled"] += 1
            final = clusters.reconcile(by_annotator)
        records.append({"group_id": group_id, "category": group["category"], "seed": group["seed"],
                        "phrases": list(group["phrases"]), "clusters": clusters.clusters_of(final)})
    return records, counts


def write_clusters(run, ledger_url=None):
    """The `mcphrasy-clusters` stage from the ledger's labels, with the agreement and the annotation time per group
    in its manifest."""
    groups = read_groups(run)
    with reading_ledger(run, ledger_url) as session:
        labels = cluster_ledger.read_labels(session)
        minutes = labelled_minutes(session, labels)
    records, counts = reconciled_records(groups, labels)
    labels_digest = hashlib.sha256(json.dumps([labels, minutes], sort_keys=True).encode("utf-8")).hexdigest()
    return stages.write(run, Clusters, records, Clusters.Options(),
                        inputs=Clusters.inputs(run, None, {"labels": labels_digest}),
                        report={"counts": counts, "agreement": agreement_report(labels),
                                "time": clusters.annotation_time(minutes)})


def export_sheets(job):
    """The hook of the core's `picforge mcphrasy export clusters`: export_clusters into `job.out`, one line per
    annotator."""
    written = export_clusters(job.run, job.options.annotators, job.out, job.options.shared, job.ledger)
    return [f"{annotator}: {len(sheets)} sheets in {job.out}/{annotator}" for annotator, sheets in written.items()]


def ingest_sheets(job):
    """The hook of the core's `picforge mcphrasy ingest clusters`: ingest_clusters of `job.sheets`, one line."""
    done = ingest_clusters(job.run, job.sheets, job.ledger)
    return [f"{done['sheets']} sheets valid; {done['changed']} ledger rows added or changed"]
