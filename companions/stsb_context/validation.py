"""Two-annotator validation: export one sheet per annotator (CSV + XLSX), ingest both, drop items either flags."""
import time

from apache_beam.io.filesystems import FileSystems

from companions.stsb_context.declarations import Validation
from companions.stsb_context.settings import GENERATIONS
from picforge import sheets, stages
from picforge.errors import InputError

STAGE = Validation.name
ANNOTATORS = ("annotator-1", "annotator-2")
COLUMNS = ("item_id", "annotator", "origin_phrase", "target_phrase", "context", "score",
           "changes_similarity", "comment")
ANSWER_COLUMN = "changes_similarity"
ANSWERS = {"Y": "Y", "YES": "Y", "N": "N", "NO": "N"}
GUIDELINES = """# STS-B-Context validation guidelines

Each row pairs an origin phrase with a target phrase that now sits inside a generated context, and the
gold STS-B similarity (0 = unrelated, 5 = same meaning) that annotators gave the two phrases on their own.

Read the context and decide whether the generated text changes how similar the target phrase is to the
origin phrase, so that the gold score no longer holds (for example it negates the phrase, quotes it as
someone's false claim, or changes who or what the phrase is about).

- `changes_similarity`: `Y` if the context changes the gold similarity, `N` if the gold score still holds.
- `comment`: optional, a few words on why you answered `Y`.

Answer every row on your own sheet without looking at the other annotator's. Do not edit other columns.
An item is dropped from the dataset when either annotator answers `Y`.
"""


def sheet_rows(kept, annotator):
    """The rows of one annotator's sheet: every kept generation, answer columns empty."""
    return [{"item_id": r["pair_id"], "annotator": annotator, "origin_phrase": r["origin_phrase"],
             "target_phrase": r["target_phrase"], "context": r["context"], "score": r["score"],
             ANSWER_COLUMN: "", "comment": ""} for r in kept]


def export_validation(run, *, force=False, partial=False):
    """Write stage `validation`: a CSV and an XLSX sheet per annotator plus guidelines; returns its manifest."""
    started = time.time()
    generations = run.require(GENERATIONS)
    if not generations.get("complete", False) and not partial:
        raise InputError(
            f"{run.stage_dir(GENERATIONS)}: {generations.get('pending')} pairs have no answer yet (budget, offline "
            "or errors); re-run generation first, or pass --partial to validate what there is")
    inputs = Validation.inputs(run, None)
    existing = run.read_manifest(STAGE)
    if existing is not None and not force:
        if existing.get("fingerprint") == stages.stage_print(Validation, None, inputs):
            return dict(existing, skipped=True)
        raise InputError(
            f"{run.stage_dir(STAGE)}: holds sheets exported from an earlier generation run, which exporting again "
            "would overwrite; ingest or move them first, or pass --force")
    kept = [r for r in run.iter_records(GENERATIONS) if r["status"] == "kept"]
    files = {}
    for annotator in ANNOTATORS:
        rows = sheet_rows(kept, annotator)
        sheets.check_cells_fit(f"{run.stage_dir(STAGE)}/{annotator}", COLUMNS, rows)
        xlsx = sheets.xlsx_bytes(COLUMNS, rows, title="validation", yes_no=[ANSWER_COLUMN])
        files.update({f"{annotator}.csv": sheets.csv_bytes(COLUMNS, rows), f"{annotator}.xlsx": xlsx})
    return stages.write(run, Validation, None, None, inputs=inputs, started=started,
                        files={**files, "GUIDELINES.md": GUIDELINES}, records=len(kept),
                        counters={f"{STAGE}/items": len(kept)}, sheets=list(files))


def sheet_answers(path, rows, item_ids):
    """(annotator, {item_id: "Y"|"N"}) of one filled sheet, checked against the exported items."""
    answers, annotator = {}, None
    for number, row in rows:
        where = f"{path} row {number}"
        item_id, name = row.get("item_id", "").strip(), row.get("annotator", "").strip()
        if item_id not in item_ids:
            raise InputError(f"{where}: item_id {item_id!r} is not a kept item of this run; "
                             "use the sheet exported from this run directory")
        if item_id in answers:
            raise InputError(f"{where}: item {item_id} is answered twice in this sheet; delete one row")
        if not name or (annotator is not None and name != annotator):
            raise InputError(f"{where}: annotator {name!r} differs from {annotator!r} above; "
                             "one sheet holds one annotator's answers")
        annotator = name
        answer = ANSWERS.get(row.get(ANSWER_COLUMN, "").strip().upper())
        if answer is None:
            raise InputError(f"{where}: {ANSWER_COLUMN} is {row.get(ANSWER_COLUMN, '')!r}; write Y (the context "
                             "changes the gold similarity) or N (it does not)")
        answers[item_id] = answer
    unanswered = [i for i in item_ids if i not in answers]
    if unanswered:
        raise InputError(f"{path}: no row for {len(unanswered)} item(s), first {unanswered[0]}; "
                         "the sheet must answer every exported item")
    return annotator, answers


def agreement(first, second):
    """(share of items both answered alike, Cohen's kappa or None when undefined) of two {item: "Y"|"N"} sets."""
    items = list(first)
    if not items:
        return None, None
    observed = sum(first[i] == second[i] for i in items) / len(items)
    expected = sum((sum(first[i] == label for i in items) / len(items))
                   * (sum(second[i] == label for i in items) / len(items)) for label in ("Y", "N"))
    return observed, None if expected == 1 else (observed - expected) / (1 - expected)


def validated_items(kept, answers_by_annotator):
    """The kept generations that no annotator flagged as changing the gold similarity, in order."""
    return [r for r in kept if all(a[r["pair_id"]] == "N" for a in answers_by_annotator.values())]


def check_sheet_paths(sheet_paths):
    """InputError unless there is one existing sheet per annotator."""
    if len(sheet_paths) != len(ANNOTATORS):
        raise InputError(f"{', '.join(sheet_paths) or 'no sheet'}: give exactly {len(ANNOTATORS)} filled sheets, "
                         "one per annotator")
    for path in sheet_paths:
        if not FileSystems.exists(path):
            raise InputError(f"{path}: no such sheet; give the paths of the two filled sheets")


def read_validation(run, sheet_paths):
    """{annotator: answers} from exactly two filled sheets of this run's exported items."""
    check_sheet_paths(sheet_paths)
    run.require(STAGE)
    kept_ids = [r["pair_id"] for r in run.iter_records(GENERATIONS, columns=["pair_id", "status"])
                if r["status"] == "kept"]
    by_annotator = {}
    for path in sheet_paths:
        rows = sheets.read_sheet(path, ("item_id", "annotator", ANSWER_COLUMN)).rows
        annotator, answers = sheet_answers(path, rows, dict.fromkeys(kept_ids))
        if annotator in by_annotator:
            raise InputError(f"{path}: annotator {annotator!r} already answered in the other sheet; "
                             "give one sheet from each annotator")
        by_annotator[annotator] = answers
    return by_annotator


def validation_counters(kept, by_annotator):
    """How many items each annotator flagged, how many were dropped, and the annotators' agreement."""
    first, second = by_annotator.values()
    observed, kappa = agreement(first, second)
    counters = {f"{STAGE}/items": len(kept),
                **{f"{STAGE}/flagged_by_{name}": sum(v == "Y" for v in a.values()) for name, a in by_annotator.items()},
                f"{STAGE}/dropped": sum(1 for r in kept if "Y" in (first[r["pair_id"]], second[r["pair_id"]]))}
    return counters, {"agreement": observed, "cohen_kappa": kappa}


def export_sheets(job):
    """The hook of the core's `picforge stsb-context export validation`: stage `validation`, one line."""
    manifest = export_validation(job.run, force=job.options.force, partial=job.options.partial)
    state = " (up to date, skipped)" if manifest.get("skipped") else ""
    return [f"{STAGE}: {manifest['records']} items{state} -> "
            + ", ".join(job.run.join(STAGE, sheet) for sheet in manifest["sheets"])]

