"""PiC's keep rule, from round decisions to released examples: every kept paraphrase and label on its own,
against the old all-or-nothing rule (a triplet kept only when q1, q2 and q3 all survive), with hand-computed counts."""
from annotation.final import final_record
from picforge.ledger import ACCEPTED, REJECTED
from annotation.rules import ANNOTATION_KINDS, item_outcome, kept_outcomes
from release.build import build_release
from release.inputs import load_run
from tests.release.fixture_run import ANNOTATIONS, make_run

# (round 1, round 2) per annotation that did not simply pass round 1; every other one round 1 accepted.
DECISIONS = {
    ("t02", "q1"): (REJECTED, REJECTED),     # dropped: t02 keeps q2 and its label
    ("t03", "q2"): (REJECTED, REJECTED),     # dropped: t03 keeps q1 and its label
    ("t04", "q3"): (REJECTED, REJECTED),     # label dropped: t04 keeps both paraphrases, no PS negative, no PSD
    ("t05", "q1"): (REJECTED, ACCEPTED),     # endorsed in round 2: kept
    ("t06", "q1"): (REJECTED, REJECTED),     # both paraphrases dropped: t06 keeps only its label
    ("t06", "q2"): (REJECTED, REJECTED),
}


def records(rule):
    """FinalAnnotation records of the fixture triplets under `rule` ("each" = PiC's, "all" = the old one),
    with every PS pair endorsed as annotated."""
    out = []
    for tid, phrase, _, _, q1, q2, same, _, _ in ANNOTATIONS:
        outcomes = {kind: item_outcome(*DECISIONS.get((tid, kind), (ACCEPTED, None))) for kind in ANNOTATION_KINDS}
        kept = kept_outcomes(outcomes)
        if not kept or (rule == "all" and len(kept) < len(ANNOTATION_KINDS)):
            continue
        ps = {f"{tid}/ps_pos": {"decision": ACCEPTED, "detail": {"text": q1}},
              f"{tid}/ps_neg": {"decision": ACCEPTED, "detail": {"text": q2}}}
        annotation = {"triplet_id": tid, "phrase": phrase, "annotator": "A1", "q1": q1, "q2": q2,
                      "same_meaning": same}
        out.append(final_record(annotation, kept, ps))
    return out


def released_counts(tmp_path, rule):
    run = make_run(tmp_path / rule, final_annotations=records(rule))
    release = build_release(load_run(run).triplets, seed=42)
    return {config: sum(len(rows) for rows in splits.values()) for config, splits in release.splits.items()}


def test_each_paraphrase_and_label_is_kept_on_its_own(tmp_path):
    # 12 triplets, 24 paraphrases, 12 labels (t01–t10 judged different senses, t11–t12 the same).
    # Old rule: t02, t03, t04, t06 lose every annotation -> 8 triplets, 16 paraphrases, 8 labels.
    #   PR-pass/PR-page: 16 (t02-1, the one query its page holds verbatim, is gone with t02).
    #   PSD: kept Q3 = No among t01 t05 t07 t08 t09 t10 -> 6.
    #   PS: 8 positives, 6 negatives -> balanced 6 + 6 = 12.
    # PiC's rule: 24 - 4 dropped = 20 paraphrases, 12 - 1 = 11 labels.
    #   PR-pass: 20; PR-page: 20 (t02-1 was dropped, so no page holds its query).
    #   PSD: No labels kept for t01–t10 but t04 = 9; t06 has no kept paraphrase to query with -> 8.
    #   PS: positives = kept q1 = 12 - t02 - t06 = 10; negatives = kept q2 with a kept No label
    #   = t01 t02 t05 t07 t08 t09 t10 = 7 -> balanced 7 + 7 = 14.
    assert released_counts(tmp_path, "all") == {"PS": 12, "PR-pass": 16, "PR-page": 16, "PSD": 6}
    assert released_counts(tmp_path, "each") == {"PS": 14, "PR-pass": 20, "PR-page": 20, "PSD": 8}


def test_a_dropped_annotation_is_null_in_the_final_record():
    by_tid = {r["triplet_id"]: r for r in records("each")}
    assert (by_tid["t02"]["q1"], by_tid["t02"]["q2"], by_tid["t02"]["same_meaning"]) == (None, "abrupt descent", False)
    assert (by_tid["t04"]["same_meaning"], by_tid["t04"]["q3_rule"]) == (None, None)
    assert (by_tid["t05"]["q1_rule"], by_tid["t05"]["q2_rule"]) == ("round2", "round1")
    assert (by_tid["t06"]["q1"], by_tid["t06"]["q2"], by_tid["t06"]["same_meaning"]) == (None, None, False)
