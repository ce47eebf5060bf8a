"""Taking work back: cancel a batch nobody worked on, or release an expert's rows left blank or never
fixed, so the next export hands the items to someone else. Both are recorded in the ledger (table
`releases`) and idempotent."""
from annotation.expert import KIND as EXPERT_KIND
from picforge.ledger import ACCEPTED, CANCELLED, ROUND_EXPERT, ROUND_VERIFY2, item_id, now
from annotation.mturk.round1 import MANUAL_BATCH
from annotation.verify2 import KIND as VERIFY2_KIND
from picforge.errors import InputError

DELETED_HIT = "Disposed"


def _batch(q, batch_id):
    found = q.batch(batch_id)
    if found is None:
        raise InputError(f"no batch {batch_id!r} in the ledger; check --batch and --run/--ledger "
                         "(`picforge annotate report` lists the batches)")
    return found


def cancel_batch(ledger, batch_id):
    """Cancel a batch with no recorded work and no HIT left on MTurk: its items wait for the next export.

    Returns (batch, items newly released); cancelling a cancelled batch changes nothing.
    """
    with ledger.transaction() as tx:
        batch = _batch(tx, batch_id)
        if batch["status"] == CANCELLED:
            return batch, 0
        worked = tx.assignments(batch_id=batch_id)
        if worked:
            raise InputError(f"batch {batch_id!r} has {len(worked)} assignment(s) or returned sheet(s) recorded, "
                             "so it cannot be cancelled; to hand an expert's blank or unfixed rows to someone "
                             "else use `picforge annotate reassign`")
        live = [hit["hit_id"] for hit in tx.hits(batch_id) if hit["status"] != DELETED_HIT]
        if live:
            raise InputError(f"batch {batch_id!r} has {len(live)} HIT(s) on MTurk ({', '.join(live[:3])}"
                             f"{', …' if len(live) > 3 else ''}); run `picforge annotate mturk expire` and "
                             "`mturk delete` for it first")
        released = tx.release_items(batch_id, [i["item_id"] for i in tx.items(batch_id=batch_id)],
                                    "batch cancelled")
        tx.update_batch(batch_id, status=CANCELLED, meta={"cancelled_at": now()})
    return batch, released


def cancel_note(batch):
    """What the user must still do by hand after cancelling `batch` (empty when nothing)."""
    if batch["kind"] == MANUAL_BATCH:
        return (f"if {batch['batch_id']}_input.csv was uploaded on the MTurk requester site, cancel that "
                "batch there too")
    return ""


def reassignable_rows(q, batch_id, kind=EXPERT_KIND):
    """{row id: why} of a batch's rows that are still open, rows already released left out. An expert batch's
    rows (triplet ids) left blank (or never returned) or rejected by the checks and never fixed; a second-round
    batch's rows (item ids) left blank."""
    released = {r["item_id"] for r in q.releases(batch_id)}
    if kind == VERIFY2_KIND:
        decided = q.decision_map(ROUND_VERIFY2)
        return {item["item_id"]: "left blank" for item in q.items(batch_id=batch_id)
                if item["item_id"] not in released and item["item_id"] not in decided}
    decisions = q.decision_map(ROUND_EXPERT)
    rows = {}
    for item in q.items(batch_id=batch_id):
        if item["item_id"] in released:
            continue
        found = decisions.get(item["item_id"])
        if found is None:
            rows[item["triplet_id"]] = "left blank"
        elif found["decision"] != ACCEPTED:
            rows[item["triplet_id"]] = f"not fixed: {found['reason']}"
    return rows


# Rows a batch kind can hand back: (sheet column naming a row, what a closed row was, row id -> item id).
ROWS_OF = {EXPERT_KIND: ("triplet_id", "accepted", lambda row: item_id(row, "triplet")),
           VERIFY2_KIND: ("item_id", "answered", lambda row: row)}


def reassign_rows(ledger, batch_id, row_ids=None):
    """Release the open rows of an expert or second-round batch (all, or those of `row_ids`: triplet ids, or item
    ids for a second-round batch) so the next export gives them to someone else. Returns the ids newly released."""
    with ledger.transaction() as tx:
        batch = _batch(tx, batch_id)
        if batch["kind"] not in ROWS_OF:
            raise InputError(f"batch {batch_id!r} is a {batch['kind']} batch; reassign takes rows of expert and "
                             "second-round batches (use `picforge annotate cancel-batch` for a batch nobody worked on)")
        column, done, item_of = ROWS_OF[batch["kind"]]
        open_rows = reassignable_rows(tx, batch_id, batch["kind"])
        if row_ids is None:
            chosen = sorted(open_rows)
        else:
            members = {i["item_id"] for i in tx.items(batch_id=batch_id)}
            released = {r["item_id"] for r in tx.releases(batch_id)}
            for row in row_ids:
                if item_of(row) not in members:
                    raise InputError(f"--rows {row}: not a row of batch {batch_id!r}; give the {column} column of "
                                     "its sheet")
                if row not in open_rows and item_of(row) not in released:
                    raise InputError(f"--rows {row}: its row in batch {batch_id!r} was {done}; only blank or "
                                     "unfixed rows can be reassigned")
            chosen = [row for row in row_ids if row in open_rows]
        for row in chosen:
            tx.release_items(batch_id, [item_of(row)], f"reassigned ({open_rows[row]})")
    return chosen

