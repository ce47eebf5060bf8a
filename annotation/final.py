"""The final rule over the ledger and the `final_annotations` stage that `picforge build` reads."""
import collections
import hashlib
import json
import time

import sqlalchemy as sa

import schemas
from annotation.ledger import ACCEPTED, ROUND_MTURK, ROUND_PS, ROUND_VERIFY2, item_id
from annotation.rules import ANNOTATION_KINDS, KEPT, item_outcome, triplet_outcome
from annotation.triplets import SELECT_STAGE, require_select
from picforge import __version__
from picforge.rundir import fingerprint

STAGE = "final_annotations"
SCHEMA = "final_annotation"
# PS pair kinds, the FinalAnnotation flag each sets, and the paraphrase a correction replaces.
PS_PAIRS = (("ps_pos", "ps_q1", "q1"), ("ps_neg", "ps_q2", "q2"))


def annotation_outcomes(q):
    """[(ExpertAnnotation row, {kind: outcome}, triplet outcome)] for every accepted expert annotation."""
    round1, round2 = q.decision_map(ROUND_MTURK), q.decision_map(ROUND_VERIFY2)

    def decision(decisions, triplet_id, kind):
        found = decisions.get(item_id(triplet_id, kind))
        return found["decision"] if found else None

    out = []
    for annotation in q.expert_annotations():
        tid = annotation["triplet_id"]
        per_kind = {kind: item_outcome(decision(round1, tid, kind), decision(round2, tid, kind))
                    for kind in ANNOTATION_KINDS}
        out.append((annotation, per_kind, triplet_outcome(per_kind)))
    return out


def kept_annotations(q):
    """[(ExpertAnnotation row, rule)] of the triplets the final rule keeps."""
    return [(a, outcome) for a, _, outcome in annotation_outcomes(q) if outcome in KEPT]


def final_records(q):
    """FinalAnnotation records of the kept triplets, with PS verification flags and accepted corrections."""
    ps = q.decision_map(ROUND_PS)
    records = []
    for annotation, rule in kept_annotations(q):
        record = {"triplet_id": annotation["triplet_id"], "phrase": annotation["phrase"],
                  "annotator": annotation["annotator"], "q1": annotation["q1"], "q2": annotation["q2"],
                  "same_meaning": bool(annotation["same_meaning"]), "rule": rule, "ps_q1": None, "ps_q2": None}
        for kind, flag, paraphrase in PS_PAIRS:
            found = ps.get(item_id(annotation["triplet_id"], kind))
            if found is not None:
                record[flag] = found["decision"] == ACCEPTED
                if record[flag] and found["detail"].get("corrected"):
                    record[paraphrase] = found["detail"]["text"]
        records.append(record)
    return records


def export_final(ledger, run_dir, force=False):
    """Write the kept triplets as stage `final_annotations` (Parquet + manifest); skip when unchanged.

    Returns the stage manifest (with `skipped: True` when the output was already up to date).
    """
    run = require_select(run_dir)
    with ledger.read() as q:
        records = final_records(q)
    for record in records:
        problems = schemas.errors(SCHEMA, record)
        if problems:
            raise ValueError(f"FinalAnnotation {record['triplet_id']} breaks {SCHEMA}.schema.json: {problems}")
    digest = hashlib.sha256(json.dumps(records, sort_keys=True).encode("utf-8")).hexdigest()
    inputs = {SELECT_STAGE: run.require(SELECT_STAGE)["fingerprint"], "ledger_records_sha256": digest}
    options = {"ledger": sa.make_url(ledger.url).render_as_string(hide_password=True)}
    print_ = fingerprint(STAGE, inputs, options)
    if not force and run.is_complete(STAGE, print_):
        return dict(run.read_manifest(STAGE), skipped=True)
    started = time.time()
    run.clear(STAGE)
    run.write_records(STAGE, records, SCHEMA)
    rules = collections.Counter(r["rule"] for r in records)
    counters = {f"{STAGE}/rule_{rule}": n for rule, n in sorted(rules.items())}
    for _, flag, _ in PS_PAIRS:
        counters[f"{STAGE}/{flag}_endorsed"] = sum(r[flag] is True for r in records)
        counters[f"{STAGE}/{flag}_rejected"] = sum(r[flag] is False for r in records)
    manifest = {"stage": STAGE, "fingerprint": print_, "inputs": inputs, "options": options,
                "package_version": __version__, "records": len(records), "counters": counters,
                "seconds": round(time.time() - started, 3),
                "files": [p.rsplit("/", 1)[-1] for p in run.output_files(STAGE)]}
    run.write_manifest(STAGE, manifest)
    return manifest
