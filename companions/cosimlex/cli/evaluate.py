"""`picforge cosimlex evaluate`: subtask 1 and 2 scores of a predictions file against the gold rows."""
import json

from picforge.errors import InputError
from picforge.options import add_run_option, existing_path, existing_release
from picforge import verbs

GOLD_COLUMNS = ("word1", "word2", "sim1", "sim2")


def add_options(parser):
    """The options of `picforge cosimlex evaluate`."""
    parser.add_argument("--predictions", required=True, metavar="FILE", type=existing_path("a predictions file"),
                        help="CSV/TSV/XLSX/JSONL with word1, word2 and sim1, sim2 (or change)")
    gold = parser.add_mutually_exclusive_group(required=True)
    gold.add_argument("--release", metavar="RELEASE_DIR", type=existing_release,
                                help="the gold rows of the release `picforge cosimlex release` wrote")
    add_run_option(gold, "cosimlex-final (`picforge cosimlex postprocess`): its rows are the gold", required=False)
    gold.add_argument("--gold-table", metavar="FILE", type=existing_path("a gold table (word1, word2, sim1, sim2)"),
                      help="a gold table with word1, word2, sim1, sim2 (CSV/TSV/XLSX/JSONL), e.g. a published "
                           "CoSimLex file")


def _number(row, column, where):
    try:
        return float(row[column])
    except (TypeError, ValueError):
        raise InputError(f"{where} column {column}: {row[column]!r} is not a number; write a decimal number") \
            from None


def read_gold(args):
    """Gold rows from the release, the run's cosimlex-final stage, or a gold file, whichever `args` names."""
    import os

    from picforge.release_writer import read_jsonl
    from picforge.sheets import read_rows
    from companions.cosimlex.stage_names import FINAL
    from companions.cosimlex.release import DATA_FILE
    from picforge.rundir import RunDir
    if args.release:
        return read_jsonl(os.path.join(args.release, DATA_FILE))
    if args.run:
        return RunDir(args.run).require_records(FINAL)
    path = args.gold_table
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


def run(args):
    from companions.cosimlex.metrics import score_predictions
    predictions = read_predictions(args.predictions)  # the user's file is checked before the gold is read
    print(json.dumps(score_predictions(read_gold(args), predictions, args.predictions), indent=2))
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.nothing_left("the scores above are the evaluation")


VERB = verbs.register(verbs.Verb(
    "cosimlex", "evaluate", None, run, add_options,
    help="score predictions (subtask 1 and 2)",
    description="Subtask 1: uncentered Pearson of predicted and gold changes "
                "(sim2 - sim1); subtask 2: Spearman of the ratings.",
    next_step=next_step))
