"""Round 2 (PiC Appendix J.2): annotations rejected by MTurk verifiers go to expert verifiers; a pilot sends a few
triplets' annotations to every expert verifier before round 1, settling them (and the run's gold bank) by experts."""
import itertools

from annotation.guidelines import write_guidelines
from picforge.ledger import REJECTED, ROUND_MTURK, ROUND_VERIFY2
from annotation.mturk.round1 import VERIFY2_KIND, unverified_annotations
from annotation.roundtrip import raise_errors, record_sheet, resolve_rows, write_batches
from annotation.rules import ANNOTATION_KINDS, verify2_decision
from annotation.text import highlight, locate_phrase, yes_no
from annotation.triplets import load_triplets
from picforge.errors import InputError, NothingToDo

KIND = VERIFY2_KIND
SHEET_COLUMNS = ["batch_id", "item_id", "question", "phrase", "paraphrase", "passage", "other_passage", "answer"]
ANSWER_COLUMNS = ("answer",)
REQUIRED_COLUMNS = ["batch_id", "item_id", *ANSWER_COLUMNS]
TYPE1 = "Type 1: can the paraphrase replace the marked phrase in this passage without changing its meaning?"
TYPE2 = "Type 2: does the marked phrase mean the same in both passages?"


def marked(page, phrase):
    return highlight(page["passage"], locate_phrase(page, phrase))


def verify2_row(kind, annotation, triplet):
    """The sheet row asking an expert the round-1 question again (the expert's own Q3 answer is not shown)."""
    phrase = triplet["phrase"]
    row = {"item_id": f"{triplet['triplet_id']}/{kind}", "phrase": phrase, "answer": ""}
    if kind == "q3":
        return {**row, "question": TYPE2, "paraphrase": "", "passage": marked(triplet["page1"], phrase),
                "other_passage": marked(triplet["page2"], phrase)}
    page = triplet["page1" if kind == "q1" else "page2"]
    return {**row, "question": TYPE1, "paraphrase": annotation[kind], "passage": marked(page, phrase),
            "other_passage": ""}


def export_verify2(ledger, run_dir, out_dir, verifiers, per_verifier=None, pilot=None):
    """Deal the round-1 rejections not yet sent to round 2 to `verifiers` in turn (at most `per_verifier`
    each); with `pilot`, send every item (q1, q2, q3) of the first `pilot` triplets no round-1 batch holds to every
    verifier instead. Returns [(verifier, batch_id, n_items, csv_path, xlsx_path)]."""
    if pilot is not None and len(verifiers) < 2:
        raise InputError(f"--pilot needs two verifiers or more (got {', '.join(verifiers)}): a pilot item is gold only "
                         "where its author and every verifier agree; pass --verifiers V1,V2")
    with ledger.read() as q:
        annotations = {a["triplet_id"]: a for a in q.expert_annotations()}
        sent = q.memberships(KIND)
        stale = q.stale()
        if pilot is not None:
            todo = [(a["triplet_id"], kind) for a, kinds in unverified_annotations(q, pilot) for kind in kinds]
        else:
            todo = [(d["triplet_id"], d["kind"]) for d in q.decisions(round=ROUND_MTURK, decision=REJECTED)
                    if d["kind"] in ANNOTATION_KINDS and d["item_id"] not in sent and d["triplet_id"] in annotations
                    and d["triplet_id"] not in stale]
    if per_verifier is not None and pilot is None:
        todo = todo[:per_verifier * len(verifiers)]
    if not todo:
        raise NothingToDo("no expert annotation waits for round 1 to pilot: ingest expert sheets first "
                          "(`picforge annotate ingest expert`)" if pilot is not None else
                          "no round-1 rejections left to verify: record MTurk decisions first "
                          "(`picforge annotate mturk review`) or all were already exported")
    triplets = load_triplets(run_dir, {tid for tid, _ in todo})
    rows = [((tid, kind), verify2_row(kind, annotations[tid], triplets[tid])) for tid, kind in todo]
    shares = {name: [] for name in verifiers}
    if pilot is not None:   # every verifier judges every pilot item: the gold bank needs experts who agree
        shares = {name: list(rows) for name in verifiers}
    else:
        for name, entry in zip(itertools.cycle(verifiers), rows):
            shares[name].append(entry)
    write_guidelines("verify2_guidelines", out_dir)
    return write_batches(ledger, KIND, ROUND_VERIFY2, out_dir, SHEET_COLUMNS,
                         [(name, {"verifier": name}, entries) for name, entries in shares.items() if entries])


def ingest_verify2(ledger, paths):
    """Record expert verifiers' Y/N answers and (re)decide round 2 for every item they answered.

    Returns {"answered": n, "accepted": n, "rejected": n, "blank": n}.
    """
    resolved = resolve_rows(ledger, paths, KIND, "item_id", REQUIRED_COLUMNS, ANSWER_COLUMNS)
    errors, answered, blank = [], [], 0
    for path, row_no, batch, iid, row in resolved:
        if not row["answer"]:
            blank += 1
        elif yes_no(row["answer"]) is None:
            errors.append(f"{path}: row {row_no}, column answer: '{row['answer']}' is not Y or N; "
                          "answer Y or N, or leave it empty")
        else:
            answered.append((path, batch, iid, yes_no(row["answer"])))
    raise_errors(errors)
    counts = {"answered": len(answered), "accepted": 0, "rejected": 0, "blank": blank}
    with ledger.transaction() as tx:
        annotations = {a["triplet_id"]: a for a in tx.expert_annotations()}
        for path, batch, iid, answer in answered:
            assignment_id = record_sheet(tx, batch["batch_id"], batch["meta"]["verifier"], path)
            tx.record_answers(assignment_id, {iid: (iid, answer)}, replace=True, row=f"{path}: item {iid}",
                              locked_by=(ROUND_VERIFY2,))
        for iid in sorted({iid for _, _, iid, _ in answered}):
            triplet_id, kind = iid.rsplit("/", 1)
            votes = [(a["worker_id"], a["value"]) for a in tx.answers(item_id_=iid, batch_kind=KIND)]
            decision, reason = verify2_decision(kind, annotations[triplet_id]["same_meaning"], votes)
            tx.record_decision(iid, ROUND_VERIFY2, decision, reason=reason, decided_by="ingest verify2",
                               detail={"votes": votes})
            counts[decision] += 1
    return counts
