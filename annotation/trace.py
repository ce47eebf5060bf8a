"""`annotate trace`: for one released id, which rounds verified it, who answered, and from which files."""
import re

from picforge.ledger import ROUND_EXPERT, ROUND_MTURK, ROUND_PS, ROUND_VERIFY2, item_id
from annotation.rules import ANNOTATION_KINDS
from picforge.errors import InputError

ROUND_NAMES = {ROUND_EXPERT: "expert sheet", ROUND_MTURK: "round 1 (MTurk)", ROUND_VERIFY2: "round 2 (experts)",
               ROUND_PS: "PS verification"}
PS_KINDS = ("ps_pos", "ps_neg")
# A release id: "<triplet_id>-<1|2>" (PR-pass, PR-page, PSD) or the triplet id itself.
RELEASE_ID = re.compile(r"^(?P<triplet>.+?)(?:-(?P<side>[12]))?$")


def _answers(q, iid):
    """[(worker, batch, assignment, status, answer, file or HIT)] of everyone who answered the item."""
    metas, rows = {}, []
    for answer in q.answers(item_id_=iid):
        if answer["batch_id"] not in metas:
            metas[answer["batch_id"]] = {a["assignment_id"]: a for a in q.assignments(batch_id=answer["batch_id"])}
        assignment = metas[answer["batch_id"]].get(answer["assignment_id"], {"meta": {}})
        source = assignment["meta"].get("file") or (f"HIT {assignment['hit_id']}" if assignment.get("hit_id") else "")
        rows.append((answer["worker_id"], answer["batch_id"], answer["assignment_id"], answer["status"],
                     answer["value"], source))
    return rows


def trace(q, release_id):
    """{triplet_id, annotation, items: {kind: {decisions, answers}}} of a released id; InputError when the ledger
    holds no expert annotation of it."""
    triplet_id = RELEASE_ID.match(release_id).group("triplet")
    annotations = {a["triplet_id"]: a for a in q.expert_annotations(accepted_only=False)}
    if triplet_id not in annotations and release_id in annotations:
        triplet_id = release_id
    if triplet_id not in annotations:
        raise InputError(f"{release_id}: no expert annotation of triplet {triplet_id} in this ledger; pass an id "
                         "from the release (PR/PSD `id`, or a triplet id) and the ledger of the run it was built from")
    items = {}
    for kind in ("triplet", *ANNOTATION_KINDS, *PS_KINDS):
        iid = item_id(triplet_id, kind)
        decisions = [{"round": ROUND_NAMES.get(d["round"], d["round"]), "decision": d["decision"],
                      "by": d["decided_by"], "reason": d["reason"], "at": d["decided_at"]}
                     for d in q.decisions(item_id_=iid)]
        answered = _answers(q, iid)
        if decisions or answered:
            items[kind] = {"decisions": decisions, "answers": answered}
    return {"triplet_id": triplet_id, "annotation": annotations[triplet_id], "items": items}


def render_trace(found):
    """The trace as lines a person reads."""
    a = found["annotation"]
    lines = [f"triplet {found['triplet_id']}: phrase {a['phrase']!r}, annotated by {a['annotator']} "
             f"(batch {a['batch_id']}): q1 {a['q1']!r}, q2 {a['q2']!r}, same meaning {'Y' if a['same_meaning'] else 'N'}"]
    for kind, item in found["items"].items():
        lines.append(f"  {kind}:")
        lines += [f"    {d['round']}: {d['decision']} by {d['by'] or '?'} at {d['at']}"
                  + (f" ({d['reason']})" if d["reason"] else "") for d in item["decisions"]]
        lines += [f"    answer {value!r} from {worker} (assignment {assignment}, {status}, batch {batch}"
                  + (f", {source}" if source else "") + ")"
                  for worker, batch, assignment, status, value, source in item["answers"]]
    return "\n".join(lines)
