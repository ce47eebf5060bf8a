"""Cluster annotation of phrase groups: who gets which group, sheet validation, agreement, reconciliation."""
import itertools
import re

from sklearn.metrics import adjusted_mutual_info_score, adjusted_rand_score, v_measure_score

from picforge.errors import InputError

SHEET_COLUMNS = ["group_id", "category", "phrase", "cluster", "kind"]
MINUTES = "minutes"  # the time the annotator spent on the group (optional column: older sheets lack it)
PAPER_MINUTES_PER_GROUP = 4.5
EQUIVALENT, SAME_KIND, SINGLETON = "equivalent", "same-kind", "singleton"
KIND_SPELLINGS = {"equivalent": EQUIVALENT, "e": EQUIVALENT, "eq": EQUIVALENT, "equivalent meaning": EQUIVALENT,
                  "same-kind": SAME_KIND, "same kind": SAME_KIND, "s": SAME_KIND, "same of a kind": SAME_KIND,
                  "same-of-a-kind": SAME_KIND}
LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,29}$")
GUIDELINES = """# Clustering a group of 25 phrases

Each sheet holds one group: 25 related noun phrases of one category, one per row.
1. First put phrases that are EQUIVALENT IN MEANING in one cluster (e.g. "assorted colors", "variety of colors"):
   give them the same label in column `cluster` and write `equivalent` in column `kind`.
2. Then, from the phrases left, cluster those that are THE SAME OF A KIND (e.g. "business cards", "place cards",
   "time cards"): same label, `kind` = `same-kind`.
3. Every other phrase is a cluster of its own: give it a label no other row uses; leave `kind` empty.
4. In column `minutes`, on any one row, write how many minutes the group took you (e.g. 4.5).
Labels are short (letters, digits, - or _, e.g. A, B, 1). Every phrase gets exactly one label; do not add,
remove or edit phrases. Return the sheet as CSV or XLSX under its own file name.
"""


def assign_groups(group_ids, annotators, shared):
    """{group_id: [annotators]}: the first `shared` groups go to every annotator, the rest round-robin to one."""
    plan = {}
    for n, group_id in enumerate(group_ids):
        plan[group_id] = list(annotators) if n < shared else [annotators[(n - shared) % len(annotators)]]
    return plan


def sheet_rows(group):
    """The rows of a group's sheet: its phrases in alphabetical order, labels and minutes empty."""
    return [{"group_id": group["group_id"], "category": group["category"], "phrase": p, "cluster": "", "kind": "",
             MINUTES: ""} for p in sorted(group["phrases"])]


def sheet_minutes(sheet):
    """The minutes an annotator wrote on a sheet (one positive number, on one row or repeated), None when none
    was written. Anything else is an InputError naming file and row."""
    written = [(row_no, row.get(MINUTES, "").strip()) for row_no, row in sheet.rows if row.get(MINUTES, "").strip()]
    values = set()
    for row_no, text in written:
        try:
            value = float(text.replace(",", "."))
        except ValueError:
            value = float("nan")
        if not 0 < value < 24 * 60:
            raise InputError(f"{sheet.path}: row {row_no}: minutes {text!r} is not a number of minutes; write how "
                             "long the group took you, e.g. 4.5, on one row")
        values.add(value)
    if len(values) > 1:
        raise InputError(f"{sheet.path}: row {written[0][0]}: column minutes holds {len(values)} different times "
                         f"({', '.join(t for _, t in written)}); write one time for the group, on one row")
    return values.pop() if values else None


def annotation_time(minutes):
    """Time per group from {group_id: {annotator: minutes or None}}: how many sheets give a time, the mean over
    them, and the mean per annotator (the paper: about 4.5 minutes a group, Appendix B.3)."""
    timed = [(annotator, m) for by_annotator in minutes.values() for annotator, m in by_annotator.items()
             if m is not None]
    per_annotator = {}
    for annotator, m in timed:
        per_annotator.setdefault(annotator, []).append(m)
    return {"sheets": sum(len(v) for v in minutes.values()), "timed_sheets": len(timed),
            "mean_minutes_per_group": round(sum(m for _, m in timed) / len(timed), 2) if timed else None,
            "per_annotator": {a: round(sum(v) / len(v), 2) for a, v in sorted(per_annotator.items())},
            "paper_minutes_per_group": PAPER_MINUTES_PER_GROUP}


def sheet_labels(sheet, groups):
    """(group_id, {phrase: (cluster, kind)}) of a returned sheet, checked: one group, every phrase labelled once,
    labels well formed, one kind per cluster of 2 or more. Any problem is an InputError naming file, row and fix."""
    if not sheet.rows:
        raise InputError(f"{sheet.path}: no rows; return the sheet with its 25 phrase rows")
    group_ids = {row["group_id"] for _, row in sheet.rows}
    if len(group_ids) != 1 or next(iter(group_ids)) not in groups:
        raise InputError(f"{sheet.path}: column group_id must hold one exported group id (found "
                         f"{', '.join(sorted(group_ids))[:200]}); restore it from the exported sheet")
    group_id = group_ids.pop()
    expected = set(groups[group_id])
    labels, rows_of = {}, {}
    for row_no, row in sheet.rows:
        phrase, cluster = row["phrase"], row["cluster"]
        where = f"{sheet.path}: row {row_no}"
        if phrase not in expected:
            raise InputError(f"{where}: phrase {phrase!r} is not in group {group_id}; restore the exported phrase")
        if phrase in labels:
            raise InputError(f"{where}: phrase {phrase!r} is labelled twice (also row {rows_of[phrase]}); "
                             "keep one row per phrase")
        if not LABEL.match(cluster):
            raise InputError(f"{where}: cluster label {cluster!r} is not a short label; use letters, digits, - or _ "
                             "(e.g. A, B, 1) and give every phrase one")
        kind = row["kind"].strip().lower()
        if kind and kind not in KIND_SPELLINGS:
            raise InputError(f"{where}: kind {row['kind']!r} is neither 'equivalent' nor 'same-kind'; write one of "
                             "them (or leave it empty for a phrase alone in its cluster)")
        labels[phrase], rows_of[phrase] = (cluster, KIND_SPELLINGS.get(kind, "")), row_no
    missing = sorted(expected - set(labels))
    if missing:
        raise InputError(f"{sheet.path}: phrase(s) {', '.join(missing)} have no row; every phrase of the group "
                         "needs one cluster label")
    return group_id, _cluster_kinds(labels, rows_of, sheet.path)


def _cluster_kinds(labels, rows_of, path):
    """Labels with each cluster's one kind: 'singleton' for a phrase alone, the marked kind otherwise."""
    members = {}
    for phrase, (cluster, kind) in labels.items():
        members.setdefault(cluster, []).append(phrase)
    checked = {}
    for cluster, phrases in members.items():
        kinds = {labels[p][1] for p in phrases}
        if len(phrases) == 1:
            kind = SINGLETON
        elif len(kinds) != 1 or "" in kinds:
            first = min(rows_of[p] for p in phrases)
            raise InputError(f"{path}: row {first}: cluster {cluster!r} has kinds {sorted(k or '(empty)' for k in kinds)};"
                             " mark every row of a cluster of two or more 'equivalent' or 'same-kind', the same for all")
        else:
            kind = kinds.pop()
        for phrase in phrases:
            checked[phrase] = (cluster, kind)
    return checked


def clusters_of(labels):
    """[{phrases, kind}] of one clustering {phrase: (cluster, kind)}, phrases sorted, clusters by first phrase."""
    members = {}
    for phrase, (cluster, kind) in labels.items():
        members.setdefault(cluster, ([], kind))[0].append(phrase)
    return sorted(({"phrases": sorted(phrases), "kind": kind} for phrases, kind in members.values()),
                  key=lambda c: c["phrases"][0])


def label_vector(phrases, labels):
    """Integer cluster ids of `phrases` under one clustering (for scikit-learn's metrics)."""
    ids = {}
    return [ids.setdefault(labels[p][0], len(ids)) for p in phrases]


def scores(truth, predicted):
    """V-measure, adjusted Rand and adjusted mutual information of two label vectors."""
    return {"v_measure": float(v_measure_score(truth, predicted)),
            "ari": float(adjusted_rand_score(truth, predicted)),
            "ami": float(adjusted_mutual_info_score(truth, predicted))}


def mean_scores(rows):
    """The mean of each metric over score dicts (empty when there are none)."""
    if not rows:
        return {}
    return {k: sum(r[k] for r in rows) / len(rows) for k in ("v_measure", "ari", "ami")}


def pairwise_agreement(by_annotator):
    """Per pair of annotators of one group ({annotator: {phrase: (cluster, kind)}}): their scores."""
    phrases = sorted(next(iter(by_annotator.values())))
    return [dict(scores(label_vector(phrases, by_annotator[a]), label_vector(phrases, by_annotator[b])),
                 annotators=[a, b])
            for a, b in itertools.combinations(sorted(by_annotator), 2)]


def reconcile(by_annotator):
    """The agreed clustering of one group: two phrases are together when a strict majority of annotators put
    them together (clusters = connected pieces); a cluster's kind is its members' most common kind."""
    annotators = sorted(by_annotator)
    phrases = sorted(by_annotator[annotators[0]])
    parent = {p: p for p in phrases}

    def root(p):
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for a, b in itertools.combinations(phrases, 2):
        together = sum(by_annotator[x][a][0] == by_annotator[x][b][0] for x in annotators)
        if 2 * together > len(annotators):
            parent[root(a)] = root(b)
    members = {}
    for phrase in phrases:
        members.setdefault(root(phrase), []).append(phrase)
    agreed = {}
    for n, cluster in enumerate(sorted(members.values())):
        if len(cluster) == 1:
            kind = SINGLETON
        else:
            votes = [by_annotator[x][p][1] for x in annotators for p in cluster
                     if by_annotator[x][p][1] != SINGLETON]
            kind = max((EQUIVALENT, SAME_KIND), key=votes.count)
        for phrase in cluster:
            agreed[phrase] = (f"c{n + 1}", kind)
    return agreed
