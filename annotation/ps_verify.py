"""PS verification (PiC Appendix E): A1 and A2 judge every PS pair, A3 breaks ties, corrections allowed."""
import random

from annotation.final import kept_annotations
from annotation.guidelines import write_guidelines
from picforge.ledger import ROUND_PS
from annotation.roundtrip import raise_errors, record_sheet, resolve_rows, write_batches
from annotation.rules import PsOutcome, PsTiebreak, PsVote, cohen_kappa, ps_decide
from annotation.text import YES, highlight, locate_phrase, normalize, yes_no
from annotation.triplets import load_triplets
from picforge.errors import NothingToDo

KIND = "ps-verify"
FIRST_PASS, TIEBREAK = ("A1", "A2"), "A3"
DISPLAY_COLUMNS = ["batch_id", "item_id", "pair", "claim", "phrase", "paraphrase", "sentence", "passage2"]
VOTE_COLUMNS = ("endorse", "correction")
TIEBREAK_COLUMNS = ("endorse_original", "endorse_correction_A1", "endorse_correction_A2")
# PS pair kind → (label, expert paraphrase it pairs with p, claim the verifier endorses or not).
PAIRS = {
    "ps_pos": ("positive", "q1", "the paraphrase has the SAME meaning as the marked phrase in this sentence"),
    "ps_neg": ("negative", "q2", "the paraphrase has a DIFFERENT meaning from the marked phrase in this sentence"),
}


def ps_row(kind, annotation, triplet):
    """The sheet row for one PS pair: page-1 sentence with p marked, the paraphrase, the claim."""
    label, paraphrase, claim = PAIRS[kind]
    page1, phrase = triplet["page1"], triplet["phrase"]
    sentence = {**page1, "passage": page1["sentence"]}
    row = {"item_id": f"{triplet['triplet_id']}/{kind}", "pair": label, "claim": claim, "phrase": phrase,
           "paraphrase": annotation[paraphrase], "sentence": highlight(sentence["passage"],
                                                                      locate_phrase(sentence, phrase)),
           "passage2": ""}
    if kind == "ps_neg":
        row["passage2"] = highlight(triplet["page2"]["passage"], locate_phrase(triplet["page2"], phrase))
    return row


def ps_pairs(kept, balance=False, seed=0):
    """(PS pairs, positives left out) of the kept annotations [(row, {kind: rule})]: a positive (p, q1) where q1 is
    kept, a negative (p, q2) where q2 and a Q3 = N label are kept; with `balance`, a seeded sample of as many
    positives as negatives, and the count of the positives it leaves out."""
    negatives = [(a["triplet_id"], "ps_neg") for a, kinds in kept
                 if "q2" in kinds and "q3" in kinds and not a["same_meaning"]]
    positives = [(a["triplet_id"], "ps_pos") for a, kinds in kept if "q1" in kinds]
    left_out = 0
    if balance:
        sampled = sorted(random.Random(seed).sample(positives, min(len(negatives), len(positives))))
        positives, left_out = sampled, len(positives) - len(sampled)
    return sorted(positives + negatives), left_out


def export_first_pass(ledger, run_dir, out_dir, experts, balance=False, seed=0):
    """The same sheet of PS pairs not yet verified for experts A1 and A2 (one batch each); returns (batches
    written, positives `balance` left out)."""
    with ledger.read() as q:
        kept = kept_annotations(q)
        sent = q.memberships(KIND)
    annotations = {a["triplet_id"]: a for a, _ in kept}
    candidates, left_out = ps_pairs(kept, balance, seed)
    pairs = [p for p in candidates if f"{p[0]}/{p[1]}" not in sent]
    if not pairs:
        raise NothingToDo("no PS pairs left to verify: the final rule keeps no paraphrase yet, or all pairs were "
                         "already exported")
    triplets = load_triplets(run_dir, {tid for tid, _ in pairs})
    entries = [((tid, kind), {**ps_row(kind, annotations[tid], triplets[tid]), "endorse": "", "correction": ""})
               for tid, kind in pairs]
    write_guidelines("ps_verify_guidelines", out_dir)
    columns = DISPLAY_COLUMNS + list(VOTE_COLUMNS)
    return write_batches(ledger, KIND, ROUND_PS, out_dir, columns,
                         [(f"{role}-{name}", {"role": role, "expert": name}, entries)
                          for role, name in zip(FIRST_PASS, experts)]), left_out


def votes_by_item(q, item_ids=None):
    """{item_id: {role: {column: value}}} from the PS verifiers' recorded answers."""
    roles = {b["batch_id"]: b["meta"]["role"] for b in q.batches(kind=KIND)}
    votes = {}
    for answer in q.answers(batch_kind=KIND):
        if item_ids is None or answer["item_id"] in item_ids:
            column = answer["field"].rsplit("/", 1)[1]
            votes.setdefault(answer["item_id"], {}).setdefault(roles[answer["batch_id"]], {})[column] = answer["value"]
    return votes


def outcome(original, roles):
    """ps_decide over one item's recorded answers by role."""
    def vote(role):
        given = roles.get(role)
        return None if given is None else PsVote(given["endorse"] == YES, given.get("correction", ""))

    tiebreak = roles.get(TIEBREAK)
    a3 = None if tiebreak is None else PsTiebreak(
        tiebreak["endorse_original"] == YES,
        tuple(r for r in FIRST_PASS if tiebreak.get(f"endorse_correction_{r}") == YES))
    return ps_decide(original, vote("A1"), vote("A2"), a3)


def ties_to_send(q):
    """[(triplet_id, kind, roles)] of the pairs A1 and A2 left tied (disagreed on or corrected), not yet sent to a
    tie-breaker."""
    annotations = {a["triplet_id"]: a for a in q.expert_annotations()}
    sent = {iid for iid, batch_ids in q.memberships(KIND).items()
            if any(q.batch(b)["meta"]["role"] == TIEBREAK for b in batch_ids)}
    todo, stale = [], q.stale()
    for iid, roles in sorted(votes_by_item(q).items()):
        triplet_id, kind = iid.rsplit("/", 1)
        if triplet_id in stale:
            continue
        original = annotations[triplet_id][PAIRS[kind][1]]
        if iid not in sent and outcome(original, roles).status == "tiebreak":
            todo.append((triplet_id, kind, roles))
    return todo


def export_tiebreak(ledger, run_dir, out_dir, expert):
    """A sheet for A3 with the pairs A1 and A2 disagree on or corrected, not yet sent to a tie-breaker."""
    with ledger.read() as q:
        annotations = {a["triplet_id"]: a for a in q.expert_annotations()}
        todo = ties_to_send(q)
    if not todo:
        raise NothingToDo("no PS pair needs a tie-break: ingest both A1 and A2 sheets first, or all ties were "
                         "already exported")
    triplets = load_triplets(run_dir, {tid for tid, _, _ in todo})
    entries = []
    for triplet_id, kind, roles in todo:
        row = ps_row(kind, annotations[triplet_id], triplets[triplet_id])
        for role in FIRST_PASS:
            row[f"correction_{role}"] = roles[role].get("correction", "")
        entries.append(((triplet_id, kind), {**row, **{c: "" for c in TIEBREAK_COLUMNS}}))
    columns = DISPLAY_COLUMNS + [f"correction_{r}" for r in FIRST_PASS] + list(TIEBREAK_COLUMNS)
    return write_batches(ledger, KIND, ROUND_PS, out_dir, columns,
                         [(f"{TIEBREAK}-{expert}", {"role": TIEBREAK, "expert": expert}, entries)])


def _row_answers(where, role, row, corrections):
    """({column: value} to record, [errors]) for one returned row; no answers when it is unanswered."""
    errors = []
    if role in FIRST_PASS:
        endorse, correction = row["endorse"], row["correction"]
        if not endorse:
            return {}, []
        if yes_no(endorse) is None:
            errors.append(f"{where}, column endorse: '{endorse}' is not Y or N")
        elif yes_no(endorse) == YES and correction:
            errors.append(f"{where}, column correction: a correction needs endorse = N; clear one of them")
        elif correction and normalize(correction) == normalize(row["paraphrase_original"]):
            errors.append(f"{where}, column correction: repeats the paraphrase; write a different phrase or "
                          "leave it empty")
        return {"endorse": yes_no(endorse) or "", "correction": correction}, errors
    if not row["endorse_original"]:
        return {}, []
    answers = {"endorse_original": yes_no(row["endorse_original"])}
    if answers["endorse_original"] is None:
        errors.append(f"{where}, column endorse_original: '{row['endorse_original']}' is not Y or N")
    for role in FIRST_PASS:
        column = f"endorse_correction_{role}"
        if corrections.get(role):
            answers[column] = yes_no(row[column])
            if answers[column] is None:
                errors.append(f"{where}, column {column}: '{row[column]}' is not Y or N; judge {role}'s correction")
        elif row[column]:
            errors.append(f"{where}, column {column}: {role} made no correction; leave it empty")
    return answers, errors


def ingest_ps_verify(ledger, paths):
    """Record A1/A2/A3 answers and decide every pair that can now be decided. Returns counts."""
    resolved = resolve_rows(ledger, paths, KIND, "item_id", ["batch_id", "item_id"],
                            VOTE_COLUMNS + TIEBREAK_COLUMNS)
    errors, to_record = [], []
    with ledger.read() as q:
        annotations = {a["triplet_id"]: a for a in q.expert_annotations()}
        recorded = votes_by_item(q)
        for path, row_no, batch, iid, row in resolved:
            role = batch["meta"]["role"]
            needed = VOTE_COLUMNS if role in FIRST_PASS else TIEBREAK_COLUMNS
            missing = [c for c in needed if c not in row]
            if missing:
                errors.append(f"{path}: row 1: missing column(s) {', '.join(missing)}; restore the header of "
                              "the exported sheet")
                continue
            triplet_id, kind = iid.rsplit("/", 1)
            original = annotations[triplet_id][PAIRS[kind][1]]
            corrections = {r: v.get("correction", "") for r, v in recorded.get(iid, {}).items() if r in FIRST_PASS}
            answers, row_errors = _row_answers(f"{path}: row {row_no}", role,
                                               {**row, "paraphrase_original": original}, corrections)
            errors += row_errors
            if answers:
                to_record.append((path, batch, iid, answers))
    raise_errors(list(dict.fromkeys(errors)))
    counts = {"answered": len(to_record), "accepted": 0, "rejected": 0, "tiebreak": 0, "pending": 0}
    with ledger.transaction() as tx:
        for path, batch, iid, answers in to_record:
            assignment_id = record_sheet(tx, batch["batch_id"], batch["meta"]["expert"], path)
            tx.record_answers(assignment_id, {f"{iid}/{c}": (iid, v) for c, v in answers.items()}, replace=True,
                              row=f"{path}: item {iid}", locked_by=(ROUND_PS,))
        annotations = {a["triplet_id"]: a for a in tx.expert_annotations()}
        touched = {iid for _, _, iid, _ in to_record}
        for iid, roles in sorted(votes_by_item(tx, touched).items()):
            triplet_id, kind = iid.rsplit("/", 1)
            result = outcome(annotations[triplet_id][PAIRS[kind][1]], roles)
            counts[result.status] += 1
            if result.status in ("accepted", "rejected"):
                tx.record_decision(iid, ROUND_PS, result.status, reason=_reason(result), decided_by="ingest ps-verify",
                                   detail={"text": result.text, "corrected": result.corrected,
                                           "endorsed_by": list(result.endorsed_by)})
    return counts


def _reason(result: PsOutcome):
    if result.status == "rejected":
        return "fewer than two verifiers endorse any version"
    what = "a correction" if result.corrected else "the original"
    return f"{what} endorsed by {', '.join(result.endorsed_by)}"


def agreement(q):
    """Cohen's kappa of A1 and A2 on endorse Y/N, with the number of pairs both judged."""
    pairs = [(roles["A1"]["endorse"], roles["A2"]["endorse"]) for roles in votes_by_item(q).values()
             if "endorse" in roles.get("A1", {}) and "endorse" in roles.get("A2", {})]
    single = {role: labels.pop() for role, labels in (("A1", {a for a, _ in pairs}), ("A2", {b for _, b in pairs}))
              if len(labels) == 1}
    return {"pairs": len(pairs), "agree": sum(a == b for a, b in pairs), "kappa": cohen_kappa(pairs),
            "one_label": single}


def kappa_text(agreement):
    """Cohen's kappa of A1 and A2, or why it says nothing: it is 0 whenever a rater gave one label throughout."""
    if agreement["kappa"] is None:
        return "Cohen's kappa n/a (no pairs judged by both, or both gave one same label throughout)"
    text = f"Cohen's kappa {agreement['kappa']:.3f}"
    if agreement["one_label"]:
        raters = " and ".join(f"{role} answered {label} to every pair" for role, label in agreement["one_label"].items())
        text += f" ({raters}; kappa is 0 when a rater gives one label throughout, whatever the agreement)"
    return text
