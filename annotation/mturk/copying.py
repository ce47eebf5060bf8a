"""Copying between MTurk workers, reported for review: two workers whose answers to the same questions agree far beyond
what their own accuracy explains, errors included.

The rule (docs/annotation.md, "Copying"): over every round-1 assignment of the run, each worker's first answer to each
question (a real item, or a gold check by its gold id) is compared with a reference answer (a gold check's known
answer; an item's expert answer) and with every other worker's answer to the same question. A pair is reported when
they share at least MIN_SHARED questions, at least MIN_SAME_ERRORS of them got the same answer from both that
differs from the reference, and they disagree at most half as often as two independent workers of their accuracies
would (1 - (p1 p2 + (1 - p1)(1 - p2)), p = each worker's share of answers matching the reference). Careful workers
agreeing on the truth are not reported (their accuracy explains it); two careful workers who both rightly contradict
the same wrong expert answers can be, which is why this is a flag for a person to look at, not a rejection.
"""
import dataclasses
import itertools

from annotation import rules, text
from annotation.mturk import hit_pages
from annotation.mturk.round1 import API_BATCH, GOLD_PREFIX, MANUAL_BATCH

MIN_SHARED = 10
MIN_SAME_ERRORS = 2


@dataclasses.dataclass(frozen=True)
class CopySuspicion:
    """Two workers reported for review, with the figures of the rule."""
    workers: tuple
    shared: int
    agreed: int
    same_errors: int
    expected_agreement: float

    def line(self):
        return (f"copying? workers {self.workers[0]} and {self.workers[1]} agree on {self.agreed} of {self.shared} "
                f"shared questions ({self.agreed / self.shared:.0%}; {self.expected_agreement:.0%} expected from "
                f"their accuracy), {self.same_errors} of them the same answer against the known or expert answer: "
                "review their assignments before paying")


def run_answers(q, kinds):
    """({worker: {question: yes?}}, {question: reference yes?}) of every assignment of the round-1 batches of `kinds`:
    each worker's first answer (by submission time) to each item or gold check."""
    by_worker, reference = {}, {}
    for batch in (b for kind in kinds for b in q.batches(kind=kind)):
        plan = batch["meta"]
        slots = {hit["hit_id"]: hit["meta"].get("slots", ()) for hit in q.hits(batch["batch_id"])}
        given = {}
        for answer in q.answers(batch_id=batch["batch_id"]):
            given.setdefault(answer["assignment_id"], {})[answer["field"]] = answer["value"]
        assignments = sorted(q.assignments(batch_id=batch["batch_id"]),
                             key=lambda a: (a["submitted_at"] or "", a["assignment_id"]))
        for assignment in assignments:
            answers = by_worker.setdefault(assignment["worker_id"], {})
            for n, slot in enumerate(slots.get(assignment["hit_id"], ()), start=1):
                value = given.get(assignment["assignment_id"], {}).get(hit_pages.ANSWER_FIELD.format(slot=n))
                if value is None:
                    continue
                answers.setdefault(slot, value == hit_pages.YES)
                reference.setdefault(slot, slot_reference(slot, plan))
    return by_worker, reference


def slot_reference(slot, plan):
    """The reference answer of a HIT slot: a gold check's known answer, an item's expert answer (yes for a
    paraphrase, the expert's same-meaning answer for q3)."""
    if slot.startswith(GOLD_PREFIX):
        return plan["gold"][slot[len(GOLD_PREFIX):]]["answer"]
    triplet_id, kind = slot.rsplit("/", 1)
    return rules.endorses(kind, text.YES, plan["annotations"][triplet_id]["same_meaning"])


def copy_suspects(by_worker, reference):
    """[CopySuspicion] of every pair of workers the rule reports (see the module docstring), pairs in name order."""
    accuracy = {worker: sum(answers[k] == reference[k] for k in answers) / len(answers)
                for worker, answers in by_worker.items() if answers}
    found = []
    for first, second in itertools.combinations(sorted(accuracy), 2):
        shared = by_worker[first].keys() & by_worker[second].keys()
        if len(shared) < MIN_SHARED:
            continue
        agreed = sum(by_worker[first][k] == by_worker[second][k] for k in shared)
        same_errors = sum(by_worker[first][k] == by_worker[second][k] != reference[k] for k in shared)
        p1, p2 = accuracy[first], accuracy[second]
        expected = p1 * p2 + (1 - p1) * (1 - p2)
        if same_errors >= MIN_SAME_ERRORS and 1 - agreed / len(shared) <= (1 - expected) / 2:
            found.append(CopySuspicion((first, second), len(shared), agreed, same_errors, expected))
    return found


def run_copy_suspects(q):
    """The copy suspicions of every round-1 batch of the run in ledger query `q`."""
    return copy_suspects(*run_answers(q, (API_BATCH, MANUAL_BATCH)))
