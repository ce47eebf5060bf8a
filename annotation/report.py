"""`annotate report`: the funnel through every round (PiC Table A1, lower half), PS verification, workers."""
import collections
import dataclasses

from annotation import expert, ps_verify
from annotation.mturk import copying, round1
from annotation.agreement import agreement_lines, agreement_summary
from annotation.final import annotation_outcomes, grammar_coverage, left_out, pilot_items
from annotation.record import annotation_record
from picforge.ledger import ACCEPTED, REJECTED, ROUND_EXPERT, ROUND_PS, item_id
from annotation.next_step import pending_steps
from annotation.rules import DROPPED, KEPT, PENDING, ROUND1, ROUND2, UNVERIFIED
from annotation.triplets import SELECT_STAGE, iter_triplets
from picforge.rundir import RunDir

GROUPS = {"paraphrases": ("q1", "q2"), "labels": ("q3",)}


def _rate(part, whole):
    return round(100.0 * part / whole, 2) if whole else None


def funnel(outcomes, pilot=frozenset()):
    """Counts per group (paraphrases, Y/N labels) through the expert pilot (item ids `pilot`) and rounds 1 and 2,
    from per-kind outcomes."""
    rows = {}
    for group, kinds in GROUPS.items():
        states = collections.Counter((per_kind[k], item_id(a["triplet_id"], k) in pilot)
                                     for a, per_kind in outcomes for k in kinds)
        annotated = sum(states.values())
        piloted, pilot_kept = sum(n for (_, p), n in states.items() if p), states[(ROUND2, True)]
        verified1 = annotated - piloted - states[(UNVERIFIED, False)]
        rejected1 = verified1 - states[(ROUND1, False)]
        endorsed2, dropped2 = states[(ROUND2, False)], states[(DROPPED, False)]
        rows[group] = {
            "annotated": annotated, "pilot_verified": piloted, "pilot_kept": pilot_kept,
            "round1_verified": verified1, "round1_accepted": states[(ROUND1, False)],
            "round1_accept_rate": _rate(states[(ROUND1, False)], verified1), "round1_rejected": rejected1,
            "round2_verified": endorsed2 + dropped2, "round2_endorsed": endorsed2,
            "round2_endorse_rate": _rate(endorsed2, endorsed2 + dropped2), "awaiting_round2": states[(PENDING, False)],
            "kept": states[(ROUND1, False)] + endorsed2 + pilot_kept, "dropped": dropped2 + states[(DROPPED, True)],
            "awaiting_round1": states[(UNVERIFIED, False)],
        }
    return rows


def kept_per_triplet(outcomes):
    """How many triplets keep 3, 2, 1 or 0 of their annotations (q1, q2, q3), each kept on its own."""
    kept = collections.Counter(sum(o in KEPT for o in per_kind.values()) for _, per_kind in outcomes)
    return {f"{n} of 3 kept": kept[n] for n in (3, 2, 1, 0)}


def worker_stats(q):
    """Per worker: source, assignments by review verdict (or status before review), answers, expert-sheet rows
    accepted/rejected (rows handed back to another expert left out), and whether they were blocked."""
    stats = {}
    for assignment in q.assignments():
        entry = stats.setdefault(assignment["worker_id"], collections.Counter())
        entry["assignments"] += 1
        entry[(assignment["meta"].get("decided") or assignment["status"]).lower()] += 1
    for answer in q.answers():
        stats[answer["worker_id"]]["answers"] += 1
    round0 = q.decision_map(ROUND_EXPERT)
    for batch in q.batches(kind="expert"):
        entry = stats.get(batch["meta"]["annotator"])
        if entry is None:
            continue
        handed_back = {r["item_id"] for r in q.releases(batch["batch_id"])}
        for item in q.items(batch_id=batch["batch_id"]):
            decision = None if item["item_id"] in handed_back else round0.get(item["item_id"])
            if decision is not None:
                entry["rows_" + decision["decision"]] += 1
    sources = {a["worker_id"]: a["source"] for a in q.workers()}
    blocked = {b["worker_id"] for b in q.worker_blocks()}
    return {w: {"source": sources.get(w, ""), **dict(c), "blocked": w in blocked} for w, c in sorted(stats.items())}


def ps_summary(q):
    """PS verification per pair kind: decided (original/corrected), rejected, awaiting tie-break; kappa A1–A2."""
    decisions = q.decisions(round=ROUND_PS)
    summary = {}
    for kind, (label, _, _) in ps_verify.PAIRS.items():
        mine = [d for d in decisions if d["kind"] == kind]
        summary[label] = {
            "exported": sum(1 for iid in q.memberships(ps_verify.KIND) if iid.endswith("/" + kind)),
            "accepted": sum(d["decision"] == ACCEPTED and not d["detail"].get("corrected") for d in mine),
            "accepted_corrected": sum(d["decision"] == ACCEPTED and bool(d["detail"].get("corrected")) for d in mine),
            "rejected": sum(d["decision"] == REJECTED for d in mine),
        }
    summary["agreement_A1_A2"] = ps_verify.agreement(q)
    return summary


def gold_accuracy(q):
    """(right, scored) of the MTurk workers' first answers to the gold check questions, over every round-1 batch."""
    right = scored = 0
    for worker_right, worker_scored in round1.worker_gold_scores(round1.run_gold_records(q)).values():
        right, scored = right + worker_right, scored + worker_scored
    return {"right": right, "scored": scored, "accuracy": _rate(right, scored)}


def annotation_summary(q):
    """What a release's croissant.json says of its annotation, read off the ledger: who annotated (experts by sheet,
    MTurk workers), assignments per HIT, the funnel through the rounds, gold accuracy and PS agreement."""
    mturk = [b for kind in (round1.API_BATCH, round1.MANUAL_BATCH) for b in q.batches(kind=kind)]
    return {
        "experts": sorted({b["meta"]["annotator"] for b in q.batches(kind="expert")}),
        "record": annotation_record(q),
        "workers_by_source": dict(collections.Counter(w["source"] for w in q.workers())),
        "mturk_batches": len(mturk),
        "assignments_per_hit": sorted({b["meta"]["settings"]["assignments"] for b in mturk
                                       if "settings" in b["meta"]}),
        "funnel": funnel(annotation_outcomes(q), pilot_items(q)),
        "gold": gold_accuracy(q),
        "ps_verification": ps_summary(q),
        "left_out": left_out(q),
        "agreement": agreement_summary(q),
    }


def build_report(ledger, run_dir):
    """The whole report as a dict (what `annotate report --json` writes)."""
    manifest = RunDir(run_dir).read_manifest(SELECT_STAGE)
    with ledger.read() as q:
        outcomes = annotation_outcomes(q)
        round0 = collections.Counter(d["decision"] for d in q.decisions(round=ROUND_EXPERT))
        return {
            "run": run_dir,
            "selected_triplets": manifest.get("records") if manifest else None,
            "expert": {"batches": len(q.batches(kind="expert")), "triplets_sent": len(q.items(kind="triplet")),
                       "rows_accepted": round0[ACCEPTED], "rows_to_fix": round0[REJECTED],
                       "annotations": len(outcomes)},
            "funnel": funnel(outcomes, pilot_items(q)),
            "final_rule": kept_per_triplet(outcomes),
            "final_triplets": sum(any(o in KEPT for o in per_kind.values()) for _, per_kind in outcomes),
            "ps_verification": ps_summary(q),
            "agreement": agreement_summary(q),
            "workers": worker_stats(q),
            "copying": [dataclasses.asdict(s) for s in copying.run_copy_suspects(q)],
            "grammar": dict(zip(("paraphrases", "not_checked"), grammar_coverage(q))),
            "stale": q.stale(),
            "unseen": unseen_triplets(q, run_dir),
            "next": pending_steps(q, run_dir),
        }


def unseen_triplets(q, run_dir):
    """Ids of the run's selected triplets in no expert batch yet (none seen by an expert), best first; none for a
    run with no finished `select` stage (a ledger on its own is reported too)."""
    if RunDir(run_dir).read_manifest(SELECT_STAGE) is None:
        return []
    assigned = {iid.rsplit("/", 1)[0] for iid in q.memberships(expert.KIND)}
    return [t["triplet_id"] for t in iter_triplets(run_dir) if t["triplet_id"] not in assigned]


def unseen_lines(unseen, run_dir):
    """What the report says of the selected triplets no expert has seen (nothing when none)."""
    if not unseen:
        return []
    listed = ", ".join(unseen[:10]) + (", …" if len(unseen) > 10 else "")
    return [f"Not yet seen by any expert: {len(unseen):,} selected triplet(s) ({listed}); `picforge annotate export "
            f"expert --run {run_dir} --annotators A,B --per-annotator N` sends them.", ""]


def _cell(value, rate=None):
    text = "–" if value is None else f"{value:,}"
    return f"{text} ({rate:.2f}%)" if rate is not None else text


def grammar_line(grammar):
    """What the report says of the LanguageTool check of the accepted paraphrases."""
    if grammar["not_checked"]:
        return (f"Grammar check not run for {grammar['not_checked']:,} of {grammar['paraphrases']:,} paraphrases "
                "(their sheets were ingested with --no-grammar).")
    return f"Grammar check (LanguageTool) run on all {grammar['paraphrases']:,} paraphrases."


def stale_lines(stale):
    """What the report says of the triplets a re-mine made stale (nothing when none)."""
    if not stale:
        return []
    return [f"Stale after a re-mine: {len(stale):,} annotated triplet(s), left out of every count below, of later "
            "rounds and of the release:", "", *(f"- {tid}: {why}" for tid, why in stale.items()), ""]


def copying_lines(suspects):
    """What the report says of workers suspected of copying (annotation.mturk.copying's rule)."""
    if not suspects:
        return [f"Copying: no two workers agree beyond what their accuracy explains (rule: docs/annotation.md, "
                "\"Copying\")."]
    return ["Copying reported for review (rule: docs/annotation.md, \"Copying\"):", "",
            *(f"- {copying.CopySuspicion(**{**s, 'workers': tuple(s['workers'])}).line()}" for s in suspects)]


def render_markdown(report):
    """The report as Markdown tables."""
    expert, funnel_rows = report["expert"], report["funnel"]
    para, label = funnel_rows["paraphrases"], funnel_rows["labels"]
    lines = ["# Annotation report", "",
             f"Triplets selected for annotation: {_cell(report['selected_triplets'])}; sent to experts: "
             f"{expert['triplets_sent']:,} in {expert['batches']} batches; sheet rows accepted: "
             f"{expert['rows_accepted']:,}, waiting for fixes: {expert['rows_to_fix']:,}.", "",
             grammar_line(report["grammar"]), "", *unseen_lines(report["unseen"], report["run"]),
             *stale_lines(report["stale"]),
             "## Funnel (PiC Table A1, lower half)", "",
             "| step | paraphrases (p, d, q) | Y/N labels (p, d1, d2, l) |", "| --- | --- | --- |"]
    steps = [("Expert annotation", "annotated", None),
             ("Pilot: verified by experts before round 1", "pilot_verified", None),
             ("Pilot: endorsed", "pilot_kept", None), ("Round 1: verified by MTurk", "round1_verified", None),
             ("Round 1: accepted", "round1_accepted", "round1_accept_rate"),
             ("Round 2: verified by experts", "round2_verified", None),
             ("Round 2: endorsed", "round2_endorsed", "round2_endorse_rate"),
             ("Awaiting round 2", "awaiting_round2", None), ("Dropped (round 2 agrees with round 1, or the pilot)", "dropped", None),
             ("Kept (round 1 or round 2, or the pilot)", "kept", None),
             ("Waiting for round 1 (not yet asked, or asked again)", "awaiting_round1", None)]
    for title, key, rate in steps:
        lines.append(f"| {title} | {_cell(para[key], para[rate] if rate else None)} | "
                     f"{_cell(label[key], label[rate] if rate else None)} |")
    lines += ["", "## Final rule (each paraphrase and label kept on its own)", "", "| annotations | triplets |",
              "| --- | --- |"]
    lines += [f"| {rule} | {count:,} |" for rule, count in report["final_rule"].items()]
    lines += [f"| **exported (1 or more kept)** | **{report['final_triplets']:,}** |", "", "## PS verification", "",
              "| pairs | exported | accepted | accepted after correction | rejected |", "| --- | --- | --- | --- | --- |"]
    ps = report["ps_verification"]
    for label_name in ("positive", "negative"):
        row = ps[label_name]
        lines.append(f"| {label_name} | {row['exported']:,} | {row['accepted']:,} | {row['accepted_corrected']:,} | "
                     f"{row['rejected']:,} |")
    agreement = ps["agreement_A1_A2"]
    lines += ["", f"A1–A2 agreement: {agreement['agree']:,} of {agreement['pairs']:,} pairs; {ps_verify.kappa_text(agreement)}.",
              "", "## Agreement", "", *(f"- {line}" for line in agreement_lines(report["agreement"])),
              "", "## Workers", "",
              "| worker | source | assignments | approved | rejected | answers | sheet rows accepted | rows to fix | "
              "blocked |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for worker, s in report["workers"].items():
        lines.append(f"| {worker} | {s['source']} | {s.get('assignments', 0)} | {s.get('approved', 0)} | "
                     f"{s.get('rejected', 0)} | {s.get('answers', 0)} | {s.get('rows_' + ACCEPTED, 0)} | "
                     f"{s.get('rows_' + REJECTED, 0)} | {'yes' if s['blocked'] else ''} |")
    lines += ["", *copying_lines(report["copying"])]
    lines += ["", "## Next", "", *(f"- `{step}`" for step in report["next"] or ["nothing waits in the ledger"])]
    return "\n".join(lines) + "\n"
