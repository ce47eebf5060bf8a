"""CoSimLex's evaluation, the hook of the core's `picforge cosimlex evaluate`: subtask 1 and 2 scores of a
predictions file against the gold rows of a release, a run's cosimlex-final stage or a gold table."""
import os

from picforge.errors import InputError

GOLD_COLUMNS = ("word1", "word2", "sim1", "sim2")

def _number(row, column, where):
    try:
        return float(row[column])
    except (TypeError, ValueError):
        raise InputError(f"{where} column {column}: {row[column]!r} is not a number; write a decimal number") \
            from None


def read_gold(inputs):
    """Gold rows from the release, the run's cosimlex-final stage, or a gold table, whichever `inputs` names."""
    from picforge.release_writer import read_jsonl
    from picforge.sheets import read_rows
    from companions.cosimlex.stage_names import FINAL
    from companions.cosimlex.release import DATA_FILE
    from picforge.rundir import RunDir
    if inputs["release"]:
        return read_jsonl(os.path.join(inputs["release"], DATA_FILE))
    if inputs["run"]:
        return RunDir(inputs["run"]).require_records(FINAL)
    path = inputs["gold_table"]
    return [dict(row, sim1=_number(row, "sim1", f"{path} row {n}"), sim2=_number(row, "sim2", f"{path} row {n}"))
            for n, row in read_rows(path, GOLD_COLUMNS)]


def read_predictions(path):
    """{(word1, word2): {sim1, sim2} or {change}} of a predictions file."""
    from picforge.sheets import read_rows
    predictions = {}
    for number, row in read_rows(path, ("word1", "word2")):
        where = f"{path} row {number}"
        columns = ("sim1", "sim2") if "sim1" in row and "sim2" in row else ("change",)
        if columns == ("change",) and "change" not in row:
            raise InputError(f"{where}: needs columns sim1 and sim2, or change; add them")
        key = (row["word1"], row["word2"])
        if key in predictions:
            raise InputError(f"{where}: a second prediction for {key[0]} {key[1]}; keep one")
        predictions[key] = {c: _number(row, c, where) for c in columns}
    return predictions


def score(inputs, options):
    """Subtask 1 and 2 scores of `inputs["predictions"]` against the gold `inputs` names; the user's file is
    checked before the gold is read."""
    from companions.cosimlex.metrics import score_predictions
    predictions = read_predictions(inputs["predictions"])
    return score_predictions(read_gold(inputs), predictions, inputs["predictions"])
