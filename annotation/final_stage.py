"""Writing stage `final_annotations`: the kept annotations (annotation.final's rule) with the annotation summary
(annotation.report) that a release's croissant.json carries."""
import collections

from annotation import FinalAnnotations
from annotation.final import PS_PAIRS, STAGE, final_records, grammar_coverage, stage_inputs
from annotation.report import annotation_summary
from annotation.rules import ANNOTATION_KINDS
from annotation.triplets import require_select
from picforge import stages


def export_final(ledger, run_dir, force=False):
    """Write the kept annotations as stage `final_annotations` (Parquet + manifest); skip when unchanged.

    Returns the stage manifest (with `skipped: True` when the output was already up to date).
    """
    run = require_select(run_dir)
    with ledger.read() as q:
        records = final_records(q)
        paraphrases, unchecked = grammar_coverage(q, {r["triplet_id"] for r in records})
        summary = annotation_summary(q)
    inputs = stage_inputs(run, records)
    done = stages.current(run, FinalAnnotations, None, inputs, force)
    if done is not None:
        return done
    rules = collections.Counter(f"{kind}_{r[f'{kind}_rule']}" for r in records for kind in ANNOTATION_KINDS
                                if r[f"{kind}_rule"])
    counters = {f"{STAGE}/kept_{rule}": n for rule, n in sorted(rules.items())}
    for _, flag in PS_PAIRS:
        counters[f"{STAGE}/{flag}_endorsed"] = sum(r[flag] is True for r in records)
        counters[f"{STAGE}/{flag}_rejected"] = sum(r[flag] is False for r in records)
    counters[f"{STAGE}/paraphrases"] = paraphrases
    counters[f"{STAGE}/paraphrases-grammar-not-checked"] = unchecked
    return stages.write(run, FinalAnnotations, records, None, inputs=inputs, counters=counters, annotation=summary)
