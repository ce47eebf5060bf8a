"""Sheet round-trips shared by every expert round: write batches of sheets, resolve returned rows."""
import os

from picforge.ledger import CANCELLED
from picforge import sheets
from picforge.errors import InputError

MAX_ERRORS_SHOWN = 20


def write_batches(ledger, kind, round_, out_dir, columns, shares):
    """One batch and sheet (CSV + XLSX) per person; `shares` is [(name, batch meta, [((triplet_id,
    item kind), row)])]. Batch ids are chosen and recorded in one transaction (two exports at once take
    turns, so they never pick the same id); sheets are written inside it, so a crash before the commit is
    repaired by re-running. Returns [(name, batch_id, n_rows, csv, xlsx)]."""
    written = []
    with ledger.transaction() as tx:
        for name, meta, entries in shares:
            batch_id = tx.next_batch_id(kind, name)
            paths = sheets.write_sheet(os.path.join(out_dir, batch_id), columns,
                                       [{"batch_id": batch_id, **row} for _, row in entries], highlight=True)
            tx.add_batch(batch_id, kind, round=round_, meta={**meta, "files": [
                os.path.basename(os.path.join(out_dir, batch_id)) + ext for ext in (".csv", ".xlsx")]})
            tx.add_items(batch_id, [key for key, _ in entries])
            written.append((name, batch_id, len(entries), *paths))
    return written


def record_sheet(tx, batch_id, person, path):
    """The assignment standing for one person's returned sheet of a batch; returns its id."""
    assignment_id = f"{batch_id}/sheet"
    tx.record_assignment(assignment_id, batch_id, person, "Ingested", meta={"file": os.path.basename(path)},
                         source="expert")
    return assignment_id


def raise_errors(errors):
    """Raise the collected input errors as one InputError (the first MAX_ERRORS_SHOWN, then a count)."""
    if errors:
        more = f"\n… and {len(errors) - MAX_ERRORS_SHOWN} more" if len(errors) > MAX_ERRORS_SHOWN else ""
        raise InputError("\n".join(errors[:MAX_ERRORS_SHOWN]) + more)


def resolve_rows(ledger, paths, kind, id_column, required, answer_columns, item_kind=None):
    """Read returned sheets and resolve each row's batch and id (`triplet_id` or `item_id`) in the ledger.

    Unknown batches or ids, rows of another kind of batch and duplicated rows are collected and raised
    as one InputError naming file, row and column. A row with the same `answer_columns` in two files
    (a sheet returned as CSV and XLSX) counts once. Returns [(path, row_no, batch, id, row)].
    """
    errors, resolved, seen, batches, members = [], [], {}, {}, {}
    with ledger.read() as q:
        for path in paths:
            for row_no, row in sheets.read_sheet(path, required, answer_columns).rows:
                where = f"{path}: row {row_no}"
                batch = batches.get(row["batch_id"]) or q.batch(row["batch_id"])
                if batch is None or batch["kind"] != kind:
                    errors.append(f"{where}, column batch_id: '{row['batch_id']}' is not a {kind} batch in the "
                                  "ledger; keep the batch_id the sheet was exported with")
                    continue
                batch_id = batch["batch_id"]
                if batch["status"] == CANCELLED:
                    errors.append(f"{where}, column batch_id: batch {batch_id} was cancelled and its rows went "
                                  "back to waiting; ingest the sheet of the batch they were exported in since")
                    continue
                batches[batch_id] = batch
                if batch_id not in members:
                    members[batch_id] = {i[id_column] for i in q.items(batch_id=batch_id, kind=item_kind)}
                key = sheets.resolve_id(row[id_column], members[batch_id])
                if key is None:
                    errors.append(f"{where}, column {id_column}: '{row[id_column]}' was not exported in batch "
                                  f"{batch_id}; restore the id from the exported sheet")
                    continue
                content = tuple(row.get(c, "") for c in answer_columns)
                first = seen.get((batch_id, key))
                if first is None:
                    seen[(batch_id, key)] = (path, row_no, content)
                    resolved.append((path, row_no, batch, key, row))
                elif first[0] == path or first[2] != content:
                    errors.append(f"{where}, column {id_column}: duplicate of {first[0]} row {first[1]} for "
                                  f"'{row[id_column]}'; keep one row per {id_column}")
    raise_errors(errors)
    return resolved
