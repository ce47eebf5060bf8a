"""Decision rules of PiC's verification rounds (Sec. 3.3, Appendices E and J), as pure functions."""
import dataclasses

from picforge.ledger import ACCEPTED, REJECTED
from annotation.text import NO, YES, normalize

# What happened to one annotation (q1, q2 or q3) across rounds 1 and 2.
ROUND1, ROUND2, DROPPED, PENDING, UNVERIFIED = "round1", "round2", "rejected", "pending", "unverified"
KEPT = (ROUND1, ROUND2)
ANNOTATION_KINDS = ("q1", "q2", "q3")


def endorses(kind, answer, same_meaning):
    """Whether a verifier's Y/N answer endorses the expert's annotation.

    Type-1 questions (q1, q2: can the paraphrase replace p here?) are endorsed by Y; the type-2
    question (q3: does p mean the same in both passages?) by the answer the expert gave.
    """
    if kind == "q3":
        return answer == (YES if same_meaning else NO)
    return answer == YES


def verify2_decision(kind, same_meaning, answers):
    """Round-2 decision from expert verifiers' [(verifier, Y/N)]: accepted if any endorses."""
    endorsers = sorted(v for v, a in answers if endorses(kind, a, same_meaning))
    if endorsers:
        return ACCEPTED, f"endorsed by {', '.join(endorsers)}"
    return REJECTED, f"not endorsed by {', '.join(sorted(v for v, _ in answers))}"


def item_outcome(round1, round2):
    """PiC's final rule for one annotation: kept if round 1 accepted it or a round-2 expert endorsed it (an item of
    the expert pilot has a round-2 decision and none of round 1)."""
    if round1 == ACCEPTED:
        return ROUND1
    if round1 is None and round2 is None:
        return UNVERIFIED
    if round2 == ACCEPTED:
        return ROUND2
    return DROPPED if round2 == REJECTED else PENDING


def kept_outcomes(outcomes):
    """PiC's keep rule (Sec. 3.3): each annotation (q1, q2, q3) is kept on its own when round 1 or 2 kept it;
    {kind: round1|round2} of the kept ones."""
    return {kind: outcomes[kind] for kind in ANNOTATION_KINDS if outcomes.get(kind) in KEPT}


@dataclasses.dataclass(frozen=True)
class PsVote:
    """A first-pass PS verifier's answer: endorse the claim, or not (optionally with a correction)."""
    endorse: bool
    correction: str = ""


@dataclasses.dataclass(frozen=True)
class PsTiebreak:
    """The third verifier's answers on the original pair and on each first-pass correction."""
    original: bool
    corrections: tuple = ()      # roles ("A1", "A2") whose correction A3 endorses


@dataclasses.dataclass(frozen=True)
class PsOutcome:
    status: str                  # accepted | rejected | tiebreak (needs A3) | pending (A1/A2 missing)
    text: str = ""               # the endorsed second phrase (original or a correction)
    corrected: bool = False
    endorsed_by: tuple = ()


def ps_decide(original, a1, a2, a3=None):
    """Appendix E: A1 and A2 judge every pair, A3 breaks ties; a version (the original phrase or a
    correction) is kept when at least two verifiers endorse it, the original preferred."""
    if a1 is None or a2 is None:
        return PsOutcome("pending")
    versions = {normalize(original): {"text": original, "by": set(), "authors": set()}}
    for role, vote in (("A1", a1), ("A2", a2)):
        if vote.endorse:
            versions[normalize(original)]["by"].add(role)
        elif vote.correction:
            entry = versions.setdefault(normalize(vote.correction),
                                        {"text": vote.correction, "by": set(), "authors": set()})
            entry["by"].add(role)
            entry["authors"].add(role)
    if a3 is not None:
        if a3.original:
            versions[normalize(original)]["by"].add("A3")
        for entry in versions.values():
            if entry["authors"] & set(a3.corrections):
                entry["by"].add("A3")
    for key, entry in versions.items():     # the original first (insertion order)
        if len(entry["by"]) >= 2:
            return PsOutcome(ACCEPTED, entry["text"], key != normalize(original), tuple(sorted(entry["by"])))
    if a3 is None and (a1.endorse != a2.endorse or a1.correction or a2.correction):
        return PsOutcome("tiebreak")
    return PsOutcome(REJECTED)


def cohen_kappa(pairs):
    """Cohen's kappa of two raters' labels [(a, b)]; None when undefined (no pairs, or chance agreement 1)."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    labels = {a for a, _ in pairs} | {b for _, b in pairs}
    expected = sum((sum(a == label for a, _ in pairs) / n) * (sum(b == label for _, b in pairs) / n)
                   for label in labels)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)
