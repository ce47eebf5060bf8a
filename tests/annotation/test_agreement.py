"""Agreement through the CLI: Krippendorff's α per round and question type, and crowd-kit's Dawid–Skene label beside
PiC's keep rule, in `annotate report`, the final stage's summary (croissant.json) and the release card."""
import collections
import itertools
import json

import pytest

from annotation.agreement import alpha
from picforge.ledger import ROUND_MTURK
from annotation.mturk.round1 import decide
from picforge.rundir import RunDir
from release.card import agreement_section
from release.provenance import annotation_rai, run_agreement

# Round-1 votes (True = endorses the expert's annotation) of two careful workers and one who answers "no" to
# everything: the 8 first items are endorsed by both careful workers, the next 6 by neither, and the last 4 were
# seen by one careful worker (yes) and the naysayer only, a tie PiC's keep rule rejects.
PATTERNS = [{"G1": True, "G2": True, "S": False}] * 8 + [{"G1": False, "G2": False, "S": False}] * 6 \
    + [{"G1": True, "S": False}] * 4


def reference_alpha(units):
    """Krippendorff's nominal α from its coincidence matrix (Krippendorff 2011), for lists of values per item."""
    units = [values for values in units if len(values) > 1]
    coincidences = collections.Counter()
    for values in units:
        for a, b in itertools.permutations(range(len(values)), 2):
            coincidences[(values[a], values[b])] += 1 / (len(values) - 1)
    totals = collections.Counter()
    for (c, _), n in coincidences.items():
        totals[c] += n
    n = sum(totals.values())
    observed = sum(v for (c, k), v in coincidences.items() if c != k)
    expected = sum(totals[c] * totals[k] for c in totals for k in totals if c != k) / (n - 1)
    return 1 - observed / expected


@pytest.fixture
def voted(run_dir, ledger):
    """Round-1 decisions of PiC's keep rule over the PATTERNS votes, on the 18 items of six triplets."""
    items = [(f"{t:05d}", kind) for t in range(1, 7) for kind in ("q1", "q2", "q3")]
    with ledger.transaction() as tx:
        tx.add_batch("mturk-test", "mturk", round=ROUND_MTURK)
        ids = tx.add_items("mturk-test", items)
        for iid, votes in zip(sorted(ids), PATTERNS):
            detail = [{"worker": w, "assignment": f"{w}-{iid}", "answer": "yes" if v else "no", "agrees": v}
                      for w, v in votes.items()]
            decision, reason = decide(list(votes.values()))
            tx.record_decision(iid, ROUND_MTURK, decision, reason=reason, decided_by="review",
                               detail={"votes": detail})
    return sorted(ids)


def test_report_gives_alpha_per_question_type_and_dawid_skene_beside_the_keep_rule(annotate, run_dir, voted,
                                                                                    tmp_path, capsys):
    assert annotate("report", "--run", run_dir, "--json", str(tmp_path / "report.json")) == 0
    text = capsys.readouterr().out
    agreement = json.load(open(tmp_path / "report.json"))["agreement"]
    by_type = collections.defaultdict(list)
    for iid, votes in zip(voted, PATTERNS):
        by_type["same meaning (Q3)" if iid.endswith("q3") else "paraphrase (q1, q2)"].append(list(votes.values()))
    rows = {row["question"]: row for row in agreement["alpha"]}
    assert set(rows) == set(by_type) and {row["round"] for row in rows.values()} == {"round 1 (MTurk)"}
    for question, units in by_type.items():
        assert rows[question]["alpha"] == pytest.approx(reference_alpha(units), abs=1e-3)
        assert rows[question]["items"] == len(units) and rows[question]["raters"] == 3
        assert f"- Krippendorff's α, round 1 (MTurk), {question}: {rows[question]['alpha']:.3f} ({len(units)} items" \
            in text
    # the naysayer's "no" tells nothing, so Dawid-Skene sides with the careful worker where the keep rule tied
    aggregate = agreement["aggregate"]
    assert aggregate["method"] == "Dawid-Skene (crowd-kit)" and aggregate["items"] == 18
    assert [d["item"] for d in aggregate["differ"]] == voted[-4:]
    assert {(d["keep_rule"], d["aggregate"]) for d in aggregate["differ"]} == {("rejected", "endorsed")}
    assert aggregate["agree_with_keep_rule"] == 14
    assert "## Agreement" in text and "the same verdict on 14 of 18 items; they differ on " in text

    # the final stage keeps the summary; croissant.json's annotation analysis says the same lines
    assert annotate("export", "final", "--run", run_dir) == 0
    summary = RunDir(run_dir).read_manifest("final_annotations")["annotation"]
    assert summary["agreement"] == agreement
    analysis = annotation_rai({"annotation": summary})["dataAnnotationAnalysis"]
    assert any(line.startswith("Krippendorff's α, round 1 (MTurk), paraphrase (q1, q2): ") for line in analysis)
    assert any("the same verdict on 14 of 18 items" in line for line in analysis)
    # and `picforge build` puts the same lines in the card's Agreement section
    lines = run_agreement(run_dir)
    assert lines and set(lines) <= set(analysis)
    assert all(f"- {line}" in agreement_section(lines) for line in lines)


def test_alpha_is_undefined_without_two_ratings_of_an_item_or_with_one_value():
    assert alpha([("a", "w1", True), ("b", "w1", False)]) is None  # one verifier per item, as in PiC
    assert alpha([("a", "w1", True), ("a", "w2", True), ("b", "w1", True)]) is None  # one value throughout
    assert alpha([("a", "w1", True), ("a", "w2", True), ("b", "w1", False), ("b", "w2", False)]) == 1.0
