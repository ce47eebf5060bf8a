"""Triplet records of a mining run (stage `select`), read for annotation exports, and the triplets a later re-mine
made stale under a ledger in progress."""
import hashlib
import json

from picforge.errors import InputError
from picforge.rundir import RunDir
from annotation import SELECT_STAGE


def require_select(run_dir):
    """The run's RunDir, or a clear error when `picforge mine` has not finished its select stage."""
    run = RunDir(run_dir)
    run.require(SELECT_STAGE)
    return run


def iter_triplets(run_dir):
    """Every Triplet of the run, in the select stage's order (best candidates first)."""
    yield from require_select(run_dir).iter_records(SELECT_STAGE)


def load_triplets(run_dir, triplet_ids):
    """{triplet_id: Triplet} for the given ids; an error names any id the run does not have."""
    wanted = set(triplet_ids)
    found = {t["triplet_id"]: t for t in iter_triplets(run_dir) if t["triplet_id"] in wanted}
    missing = sorted(wanted - found.keys())
    if missing:
        raise InputError(f"{run_dir}: triplet id(s) {', '.join(missing[:10])} are in the ledger but not in "
                         f"stage {SELECT_STAGE}; was the ledger made for another run? pass --run of that run")
    return found


def text_digest(triplet):
    """sha256 of what annotators read of a triplet: its phrase and each page's title, sentence and passage."""
    shown = [triplet["phrase"]] + [[triplet[side][k] for k in ("title", "sentence", "passage")]
                                   for side in ("page1", "page2")]
    return hashlib.sha256(json.dumps(shown, ensure_ascii=False).encode("utf-8")).hexdigest()


def mark_stale(ledger, run_dir, expert_kind="expert"):
    """Mark stale the annotated triplets whose text (as recorded when their expert batch was exported) the run's
    select stage no longer holds; returns {triplet_id: reason} of those newly marked."""
    with ledger.read() as q:
        recorded = {}
        for batch in q.batches(kind=expert_kind):  # in export order: a re-exported triplet's latest text counts
            recorded.update(batch["meta"].get("texts", {}))
    if not recorded:
        return {}
    current = {t["triplet_id"]: text_digest(t) for t in iter_triplets(run_dir) if t["triplet_id"] in recorded}
    reasons = {tid: ("no longer selected by the run" if tid not in current else "its text changed in the run")
               for tid, digest in recorded.items() if current.get(tid) != digest}
    with ledger.transaction() as tx:
        new = tx.mark_stale(reasons)
    return {tid: reasons[tid] for tid in new}
