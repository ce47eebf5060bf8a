"""What is left to do on a run, read from its ledger's state (not from a fixed sequence): the hints `mine` and every
`annotate` verb print."""
import os
import shlex

from annotation import expert, final, ps_verify, verify2
from annotation.mturk import round1
from annotation.languagetool import URL_ENV
from picforge.ledger import ACCEPTED, REJECTED, ROUND_EXPERT, ROUND_MTURK, ROUND_PS, ROUND_VERIFY2

MTURK_KINDS = (round1.API_BATCH, round1.MANUAL_BATCH)


def _open_items(q, kind, round_):
    """{batch_id: item ids} of the batches of `kind` whose items have no decision of `round_` and were not handed
    back."""
    decided = q.decision_map(round_)
    found = {}
    for batch in q.batches(kind=kind):
        if batch["status"] == "cancelled":
            continue
        released = {r["item_id"] for r in q.releases(batch["batch_id"])}
        waiting = [i["item_id"] for i in q.items(batch_id=batch["batch_id"])
                   if i["item_id"] not in released and (i["item_id"] not in decided
                                                        or decided[i["item_id"]]["decision"] != ACCEPTED
                                                        and round_ == ROUND_EXPERT)]
        if waiting:
            found[batch["batch_id"]] = waiting
    return found


def run_options(run, ledger_url=None):
    """`--run RUN` and the user's `--ledger URL`, as every annotate hint carries them."""
    return f"--run {run}" + (f" --ledger {shlex.quote(ledger_url)}" if ledger_url else "")


def pending_steps(q, run, ledger_url=None):
    """The commands of every step with work waiting, in the order of the rounds (empty when none is left); annotate
    commands carry the user's --ledger."""
    at = run_options(run, ledger_url)
    steps = []
    experts = _open_items(q, expert.KIND, ROUND_EXPERT)
    if not q.batches(kind=expert.KIND):
        return [f"picforge annotate export expert {at} --annotators A,B,C --per-annotator N"]
    if experts:
        grammar = ("", "") if os.environ.get(URL_ENV) else (
            " --no-grammar", f"; no LanguageTool server in ${URL_ENV}: start one, or pass --languagetool URL")
        steps.append(f"picforge annotate ingest expert {at} --sheets SHEET…{grammar[0]}   "
                     f"(rows open in {', '.join(experts)}{grammar[1]})")
    ingest_verify2 = f"picforge annotate ingest verify2 {at} --sheets SHEET…"
    verify2_open = bool(_open_items(q, verify2.KIND, ROUND_VERIFY2))
    if round1.unverified_annotations(q):
        settled = bool(q.decisions(round=ROUND_VERIFY2))
        if verify2_open and not settled:   # an open pilot: its answers are the gold bank round 1 needs, read them first
            steps.append(ingest_verify2)
            verify2_open = False
        source = ("from the items experts settled" if settled else
                  "from the pilot once its sheets are read in" if ingest_verify2 in steps else
                  f"once experts settled a pilot (`picforge annotate export verify2 {at} --verifiers V1,V2 --pilot N`)"
                  " or from a previous run's release (`--from-release RELEASE`)")
        steps.append(f"picforge annotate mturk create {at} --batch NAME --gold GOLD.jsonl   (or `mturk export` "
                     f"for the requester site; `picforge annotate mturk gold {at} --out GOLD.jsonl` builds the bank "
                     f"{source})")
    for batch in (b for kind in MTURK_KINDS for b in q.batches(kind=kind)):
        if batch["status"] == "cancelled" or batch["batch_id"] not in _open_items(q, batch["kind"], ROUND_MTURK):
            continue
        name, plan = batch["batch_id"], batch["meta"]
        stranded = round1.stranded_hits(q, name, plan)
        if stranded and batch["kind"] == round1.API_BATCH:
            steps.append(f"picforge annotate mturk create {at} --batch {name} --max-spend USD   (asks "
                         f"{len(stranded)} HIT(s) again: no assignment of theirs could count)")
            continue
        review = f"picforge annotate mturk review {at} --batch {name}" + (
            "" if batch["kind"] == round1.API_BATCH else " --out FILE.csv")
        waiting = [v for v in round1.verdicts_in(q, name, plan)
                   if v["status"] == "Submitted" and "decided" not in v["meta"]]
        held = [v for v in waiting if v.get("held")]
        if waiting and len(held) == len(waiting):
            when = min((v["decide_by"] for v in held if "decide_by" in v), default="their auto-approval date")
            steps.append(f"{review}   (from {when}, when its {len(held)} held assignment(s) are decided on their "
                         "workers' record; sooner once those workers answer enough checks in another batch)")
        elif len(q.assignments(batch_id=name)) >= len(plan["hits"]) * plan["settings"]["assignments"] + sum(
                hit["meta"].get("additional_assignments", 0) for hit in q.hits(name)):   # asked again: save first
            steps.append(review)
        elif batch["kind"] == round1.API_BATCH:
            steps.append(f"picforge annotate mturk save {at} --batch {name}   (then `{review}`)")
        else:
            steps.append(f"picforge annotate mturk ingest {at} --results Batch_…_batch_results.csv   "
                         f"(then `{review}`; "
                         f"`mturk rehearse {at} --batch {name}` writes one to fill offline)")
    sent2 = q.memberships(verify2.KIND)
    stale = q.stale()
    if any(d["item_id"] not in sent2 and d["triplet_id"] not in stale
           for d in q.decisions(round=ROUND_MTURK, decision=REJECTED)):
        steps.append(f"picforge annotate export verify2 {at} --verifiers V1,V2")
    if verify2_open:
        steps.append(ingest_verify2)
    kept = final.kept_annotations(q)
    sent_ps = q.memberships(ps_verify.KIND)
    pairs, _ = ps_verify.ps_pairs(kept)
    if pairs and not q.batches(kind=ps_verify.KIND):  # once exported, a --balance export's choice stands
        steps.append(f"picforge annotate export ps-verify {at} --experts A1,A2")
    ps_decided = q.decision_map(ROUND_PS)
    ties = {f"{triplet_id}/{kind}" for triplet_id, kind, _ in ps_verify.ties_to_send(q)}
    if ties:
        steps.append(f"picforge annotate export ps-verify {at} --tiebreak A3   ({len(ties)} pair(s) A1 and A2 "
                     "disagree on or corrected)")
    if any(iid not in ps_decided and iid not in ties for iid in sent_ps):
        steps.append(f"picforge annotate ingest ps-verify {at} --sheets SHEET…")
    ps_pending = any(step.startswith(("picforge annotate export ps-verify", "picforge annotate ingest ps-verify"))
                     for step in steps)
    if kept and (not steps or q.batches(kind=ps_verify.KIND) and not ps_pending):
        steps.append(f"picforge build --run {run} --out RELEASE" if final.is_current(q, run) else
                     f"picforge annotate export final {at}   (then `picforge build --run {run} --out RELEASE`)")
    return steps


def hint(ledger, run, ledger_url=None):
    """The 'next:' lines for a run (one per pending step), carrying the user's --ledger."""
    with ledger.read() as q:
        steps = pending_steps(q, run, ledger_url)
    return "\n".join(f"next: {step}" for step in steps) or "next: nothing waits in the ledger"


def ledger_hint(run):
    """`hint` for a run with a ledger file (`mine` imports this module only for such a run)."""
    from picforge.ledger import Ledger
    ledger = Ledger.for_run(run)
    try:
        return hint(ledger, run)
    finally:
        ledger.dispose()
