"""The final rule over the ledger, and what stage `final_annotations` (which `picforge build` reads) is made from;
annotation.final_stage writes it."""
import hashlib
import json

from picforge.ledger import ACCEPTED, ROUND_EXPERT, ROUND_MTURK, ROUND_PS, ROUND_VERIFY2, item_id
from annotation.rules import (ANNOTATION_KINDS, DROPPED, KEPT, PENDING, UNVERIFIED, item_outcome,
                              kept_outcomes)
from annotation.triplets import require_select
from annotation import FinalAnnotations
from picforge import stages

STAGE = FinalAnnotations.name
# PS pair kinds and the FinalAnnotation verdict each sets.
PS_PAIRS = (("ps_pos", "ps_q1"), ("ps_neg", "ps_q2"))


def annotation_outcomes(q):
    """[(ExpertAnnotation row, {kind: outcome})] for every accepted expert annotation of a triplet not marked stale."""
    round1, round2, stale = q.decision_map(ROUND_MTURK), q.decision_map(ROUND_VERIFY2), q.stale()

    def decision(decisions, triplet_id, kind):
        found = decisions.get(item_id(triplet_id, kind))
        return found["decision"] if found else None

    return [(annotation, {kind: item_outcome(decision(round1, annotation["triplet_id"], kind),
                                             decision(round2, annotation["triplet_id"], kind))
                          for kind in ANNOTATION_KINDS})
            for annotation in q.expert_annotations() if annotation["triplet_id"] not in stale]


def kept_annotations(q):
    """[(ExpertAnnotation row, {kind: rule})] of the annotations with at least one kept q1, q2 or q3."""
    return [(a, kept) for a, per_kind in annotation_outcomes(q) if (kept := kept_outcomes(per_kind))]


def pilot_items(q):
    """Item ids the expert pilot settled (`export verify2 --pilot`): a round-2 decision and none of round 1."""
    round1 = q.decision_map(ROUND_MTURK)
    return {iid for iid in q.decision_map(ROUND_VERIFY2) if iid not in round1}


# Why an annotated item is not in the release, by its outcome (annotation.rules) or the triplet's state.
LEFT_OUT_REASONS = {UNVERIFIED: "waiting for round 1 (MTurk), or asked again", PENDING: "rejected in round 1, "
                    "waiting for round 2", DROPPED: "rejected in round 1 and in round 2"}
PILOT_DROPPED = "not endorsed by any expert of the pilot"
STALE_REASON = "stale: a later `picforge mine` dropped or changed its triplet"


def left_out(q):
    """{reason: [item id]} of every item of an accepted expert annotation that the release leaves out (q1, q2, q3
    not kept, and every item of a triplet marked stale); each item under exactly one reason."""
    found, pilot = {}, pilot_items(q)
    for annotation, per_kind in annotation_outcomes(q):
        for kind, outcome in per_kind.items():
            if outcome not in KEPT:
                iid = item_id(annotation["triplet_id"], kind)
                found.setdefault(PILOT_DROPPED if iid in pilot else LEFT_OUT_REASONS[outcome], []).append(iid)
    stale = q.stale()
    found[STALE_REASON] = [item_id(a["triplet_id"], kind) for a in q.expert_annotations()
                           if a["triplet_id"] in stale for kind in ANNOTATION_KINDS]
    return {reason: sorted(ids) for reason, ids in found.items() if ids}


def final_record(annotation, kept, ps):
    """One FinalAnnotation: the kept paraphrases and label (None where not kept), each with its rule, and the
    PS verdicts with the second phrase the PS experts endorsed (their correction, if any)."""
    record = {"triplet_id": annotation["triplet_id"], "phrase": annotation["phrase"],
              "annotator": annotation["annotator"],
              "q1": annotation["q1"] if "q1" in kept else None, "q2": annotation["q2"] if "q2" in kept else None,
              "same_meaning": bool(annotation["same_meaning"]) if "q3" in kept else None,
              **{f"{kind}_rule": kept.get(kind) for kind in ANNOTATION_KINDS}}
    for kind, flag in PS_PAIRS:
        found = ps.get(item_id(annotation["triplet_id"], kind))
        record[flag] = None if found is None else found["decision"] == ACCEPTED
        record[f"{flag}_phrase"] = found["detail"]["text"] if record[flag] else None
    return record


def final_records(q):
    """FinalAnnotation records of every triplet with a kept annotation."""
    ps = q.decision_map(ROUND_PS)
    return [final_record(annotation, kept, ps) for annotation, kept in kept_annotations(q)]


def grammar_coverage(q, triplet_ids=None):
    """(paraphrases, paraphrases whose sheet row was ingested without the LanguageTool check) of the accepted
    expert annotations (of `triplet_ids` only, when given)."""
    checked = {d["triplet_id"]: d["detail"].get("grammar_checked", False)
               for d in q.decisions(round=ROUND_EXPERT, decision=ACCEPTED)}
    total = not_run = 0
    for annotation in q.expert_annotations():
        if triplet_ids is not None and annotation["triplet_id"] not in triplet_ids:
            continue
        n = sum(bool(annotation[column]) for column in ("q1", "q2"))
        total += n
        not_run += 0 if checked.get(annotation["triplet_id"]) else n
    return total, not_run


def stage_inputs(run, records):
    """The inputs of stage final_annotations: the select stage and the digest of the records (never the ledger's
    URL: a copied run directory or a second ledger with the same records is up to date)."""
    digest = hashlib.sha256(json.dumps(records, sort_keys=True).encode("utf-8")).hexdigest()
    return FinalAnnotations.inputs(run, None, {"ledger_records_sha256": digest})


def is_current(q, run_dir):
    """Whether stage final_annotations holds what the ledger keeps now."""
    run = require_select(run_dir)
    return stages.current(run, FinalAnnotations, None, stage_inputs(run, final_records(q))) is not None
