"""Agreement of the verification rounds, from well-kept libraries: Krippendorff's α per round and question type
(`krippendorff`), and a Dawid–Skene label per round-1 item (`crowd-kit`) beside PiC's own keep rule, which decides."""
import collections

from annotation import ps_verify
from picforge.ledger import ACCEPTED, ROUND_MTURK, ROUND_VERIFY2
from annotation.rules import endorses
from annotation.text import YES, yes_no

ROUNDS = ("round 1 (MTurk)", "round 2 (expert verifiers)", "PS verification (experts)")
QUESTION_TYPES = {"q1": "paraphrase (q1, q2)", "q2": "paraphrase (q1, q2)", "q3": "same meaning (Q3)",
                  "ps_pos": "PS pair", "ps_neg": "PS pair"}
AGGREGATE = "Dawid-Skene (crowd-kit)"


def ledger_ratings(q):
    """[(round, question type, item, rater, endorses)] of every verifier answer a round's decision counted: round-1
    votes of valid assignments, round-2 expert answers, and the PS verifiers' (A1, A2, tie-break A3) endorsements of
    the original pair."""
    same_meaning = {a["triplet_id"]: a["same_meaning"] for a in q.expert_annotations(accepted_only=False)}
    found = []
    for decision in q.decisions(round=ROUND_MTURK):
        kind = decision["item_id"].rsplit("/", 1)[1]
        found += [(ROUNDS[0], QUESTION_TYPES[kind], decision["item_id"], vote["worker"], bool(vote["agrees"]))
                  for vote in decision["detail"].get("votes", ())]
    for decision in q.decisions(round=ROUND_VERIFY2):
        triplet_id, kind = decision["item_id"].rsplit("/", 1)
        found += [(ROUNDS[1], QUESTION_TYPES[kind], decision["item_id"], verifier,
                   endorses(kind, yes_no(answer), same_meaning[triplet_id]))
                  for verifier, answer in decision["detail"].get("votes", ())]
    for item, roles in ps_verify.votes_by_item(q).items():
        kind = item.rsplit("/", 1)[1]
        for role, columns in sorted(roles.items()):
            given = columns.get("endorse", columns.get("endorse_original"))
            if given:
                found.append((ROUNDS[2], QUESTION_TYPES[kind], item, role, given == YES))
    return found


def alpha(ratings):
    """Krippendorff's α (nominal) of [(item, rater, value)], or None where it is undefined: no item rated twice, or
    one value throughout."""
    import krippendorff
    import numpy as np

    per_item = collections.Counter(item for item, _, _ in ratings)
    if not any(n > 1 for n in per_item.values()) or len({value for _, _, value in ratings}) < 2:
        return None
    items, raters = sorted(per_item), sorted({rater for _, rater, _ in ratings})
    matrix = np.full((len(raters), len(items)), np.nan)
    for item, rater, value in ratings:
        matrix[raters.index(rater), items.index(item)] = float(value)
    return round(float(krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")), 3)


def alpha_table(ratings):
    """Per round and question type: items, ratings, raters, items rated twice or more, and α (None: undefined)."""
    groups = collections.defaultdict(list)
    for round_name, question, item, rater, value in ratings:
        groups[(round_name, question)].append((item, rater, value))
    rows = []
    for (round_name, question), group in sorted(groups.items(), key=lambda g: (ROUNDS.index(g[0][0]), g[0][1])):
        per_item = collections.Counter(item for item, _, _ in group)
        rows.append({"round": round_name, "question": question, "items": len(per_item), "ratings": len(group),
                     "raters": len({rater for _, rater, _ in group}),
                     "items_rated_twice": sum(n > 1 for n in per_item.values()), "alpha": alpha(group)})
    return rows


def dawid_skene(ratings):
    """{item: endorsed} by crowd-kit's Dawid–Skene over [(item, rater, endorses)] (each rater's confusion learnt
    from all their answers); {} when there are none."""
    if not ratings:
        return {}
    import pandas as pd
    from crowdkit.aggregation import DawidSkene

    frame = pd.DataFrame([{"task": item, "worker": rater, "label": int(value)} for item, rater, value in ratings])
    return {task: bool(label) for task, label in DawidSkene(n_iter=100).fit_predict(frame).items()}


def aggregate_beside_keep_rule(q, ratings):
    """Round 1's Dawid–Skene label per item beside PiC's keep rule (the round-1 decision, which stays the one that
    counts): items, how many agree, and the items where they differ with both verdicts."""
    round1 = [(item, rater, value) for round_name, _, item, rater, value in ratings if round_name == ROUNDS[0]]
    labels = dawid_skene(round1)
    decided = {d["item_id"]: d["decision"] == ACCEPTED for d in q.decisions(round=ROUND_MTURK)}
    differ = sorted(item for item, endorsed in labels.items() if decided.get(item) != endorsed)
    return {"method": AGGREGATE, "items": len(labels), "agree_with_keep_rule": len(labels) - len(differ),
            "differ": [{"item": item, "keep_rule": "accepted" if decided.get(item) else "rejected",
                        "aggregate": "endorsed" if labels[item] else "not endorsed"} for item in differ]}


def agreement_summary(q):
    """What `annotate report`, the card and croissant.json say of agreement: α per round and question type, and the
    round-1 aggregate beside the keep rule."""
    ratings = ledger_ratings(q)
    return {"alpha": alpha_table(ratings), "aggregate": aggregate_beside_keep_rule(q, ratings)}


def counted(n, noun):
    """'1 item', '2 items'."""
    return f"{n:,} {noun}{'s' * (n != 1)}"


def alpha_text(row):
    """One line of the α table: the value with what it rests on, or why it is undefined."""
    basis = (f"{counted(row['items'], 'item')}, {counted(row['ratings'], 'rating')} by "
             f"{counted(row['raters'], 'rater')}")
    if row["alpha"] is not None:
        return f"Krippendorff's α, {row['round']}, {row['question']}: {row['alpha']:.3f} ({basis})"
    why = ("no item was rated by two or more" if not row["items_rated_twice"]
           else "every rating was the same, so agreement beyond chance cannot be told")
    return f"Krippendorff's α, {row['round']}, {row['question']}: n/a, {why} ({basis})"


def aggregate_text(aggregate):
    """What the aggregate beside the keep rule says, in one line."""
    if not aggregate["items"]:
        return f"{aggregate['method']} label of round 1: no round-1 vote to aggregate"
    differ = ", ".join(f"{d['item']} (keep rule {d['keep_rule']}, aggregate {d['aggregate']})"
                       for d in aggregate["differ"][:10]) + (", …" if len(aggregate["differ"]) > 10 else "")
    return (f"{aggregate['method']} label of round 1 beside PiC's keep rule (which decides): the same verdict on "
            f"{aggregate['agree_with_keep_rule']:,} of {counted(aggregate['items'], 'item')}"
            + (f"; they differ on {differ}" if differ else ""))


def agreement_lines(summary):
    """The agreement summary as lines of text (report, card and croissant.json say the same)."""
    return [alpha_text(row) for row in summary["alpha"]] + [aggregate_text(summary["aggregate"])]
