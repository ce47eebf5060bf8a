"""McPhraSy's table in the annotation ledger: the labels of the returned cluster sheets.

Declared as the dataset's `ledger_tables` (companions/mcphrasy/__init__.py), so every ledger the installed datasets
open holds it beside the core tables, whatever the process imported first (an older ledger that has it keeps its
rows).
"""
import sqlalchemy as sa

TABLES = sa.MetaData()  # McPhraSy's ledger tables; the ledger adds them to its own when it opens

# One row per phrase of a group as one annotator labelled it (a corrected sheet replaces that annotator's labels
# for the group).
cluster_labels = sa.Table(
    "cluster_labels", TABLES,
    sa.Column("group_id", sa.String(250), primary_key=True),
    sa.Column("annotator", sa.String(200), primary_key=True),
    sa.Column("phrase", sa.String(250), primary_key=True),
    sa.Column("batch_id", sa.String(200), sa.ForeignKey("batches.batch_id"), nullable=False),
    sa.Column("cluster", sa.String(100), nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),   # equivalent | same-kind | singleton
)


def record_labels(session, group_id, annotator, batch_id, labels):
    """Store one annotator's clustering of a group, {phrase: (cluster, kind)}, in a ledger transaction's `session`,
    replacing an earlier sheet's labels for it; returns the number of rows inserted, changed or removed."""
    changed = 0
    for phrase, (cluster, kind) in sorted(labels.items()):
        changed += session.upsert(cluster_labels, {"group_id": group_id, "annotator": annotator, "phrase": phrase},
                                  {"batch_id": batch_id, "cluster": cluster, "kind": kind})
    stale = sa.delete(cluster_labels).where(cluster_labels.c.group_id == group_id,
                                            cluster_labels.c.annotator == annotator,
                                            cluster_labels.c.phrase.not_in(list(labels)))
    return changed + session.conn.execute(stale).rowcount


def read_labels(session, group_id=None):
    """{group_id: {annotator: {phrase: (cluster, kind)}}} of the ingested cluster sheets (optionally of one group)."""
    query = sa.select(cluster_labels).order_by(cluster_labels.c.group_id, cluster_labels.c.annotator,
                                               cluster_labels.c.phrase)
    if group_id is not None:
        query = query.where(cluster_labels.c.group_id == group_id)
    found = {}
    for row in session.conn.execute(query).mappings():
        found.setdefault(row["group_id"], {}).setdefault(row["annotator"], {})[row["phrase"]] = (
            row["cluster"], row["kind"])
    return found
