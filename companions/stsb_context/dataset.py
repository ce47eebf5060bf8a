"""Stage `dataset`: the STS-B-Context rows both annotators kept, from the two filled validation sheets."""
import json
import re
import statistics
import time

from companions.stsb_context import validation
from companions.stsb_context.declarations import Dataset
from companions.stsb_context.settings import GENERATIONS
from picforge import stages
from picforge.rundir import input_identity

STAGE, SCHEMA = Dataset.name, Dataset.schema
JSONL = "stsb_context.jsonl"
FIELDS = ("origin_phrase", "target_phrase", "context", "target_start", "score", "genre")
WORD = re.compile(r"\w+")


def final_row(generation):
    """The released fields of one kept generation."""
    return {field: generation[field] for field in FIELDS}


def _words(text):
    return WORD.findall(text.lower())


def dataset_statistics(rows):
    """Size, genres, score and length statistics and origin/target word overlap of the released rows."""
    if not rows:
        return {"rows": 0}
    genres = {}
    for row in rows:
        genres[row["genre"]] = genres.get(row["genre"], 0) + 1
    overlap = [len(set(_words(r["origin_phrase"])) & set(_words(r["target_phrase"])))
               / max(1, len(set(_words(r["target_phrase"])))) for r in rows]
    scores = [r["score"] for r in rows]
    return {
        "rows": len(rows),
        "genres": dict(sorted(genres.items())),
        "score_mean": round(statistics.fmean(scores), 3),
        "score_stdev": round(statistics.pstdev(scores), 3),
        **{f"mean_words_{f}": round(statistics.fmean(len(_words(r[f])) for r in rows), 2)
           for f in ("origin_phrase", "target_phrase", "context")},
        "target_word_overlap_pct": round(100 * statistics.fmean(overlap), 1),
    }


def ingest_validation(run, sheet_paths, *, force=False):
    """Run stage `dataset` from two filled validation sheets; returns its manifest."""
    started = time.time()
    validation.check_sheet_paths(sheet_paths)
    inputs = Dataset.inputs(run, None, {"sheets": [input_identity(p)[0] for p in sheet_paths]})
    done = stages.current(run, Dataset, None, inputs, force)
    if done is not None:
        return done
    by_annotator = validation.read_validation(run, sheet_paths)
    kept = [r for r in run.iter_records(GENERATIONS) if r["status"] == "kept"]
    rows = [final_row(r) for r in validation.validated_items(kept, by_annotator)]
    counters, agreement = validation.validation_counters(kept, by_annotator)
    generations = run.require(GENERATIONS)
    gen_counts = generations["counters"]
    answered = gen_counts.get(f"{GENERATIONS}/kept", 0) + gen_counts.get(f"{GENERATIONS}/no-verbatim", 0)
    options = generations["options"]
    dropped = counters[f"{validation.STAGE}/dropped"]
    provenance = {
        **options,
        "match_note": "" if options["exact_match"] else
        " (allowing a lower-case first letter and no final full stop inside the longer sentence)",
        "answered": answered, "verbatim_drop_rate": generations.get("verbatim_drop_rate"),
        "validated": len(kept), "dropped": dropped,
        "validation_drop_rate": dropped / len(kept) if kept else None,
        "agreement": agreement["agreement"],
        "cohen_kappa_text": "n/a" if agreement["cohen_kappa"] is None else f"{agreement['cohen_kappa']:.3f}",
    }
    stats = dataset_statistics(rows)
    files = {JSONL: "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)}
    return stages.write(run, Dataset, rows, None, inputs=inputs, counters=counters, started=started, files=files,
                        statistics=stats, agreement=agreement, provenance=provenance,
                        verbatim_drop_rate=provenance["verbatim_drop_rate"],
                        validation_drop_rate=provenance["validation_drop_rate"])


def ingest_sheets(job):
    """The hook of the core's `picforge stsb-context ingest validation`: stage `dataset` from both sheets, one
    line."""
    manifest = ingest_validation(job.run, list(job.sheets), force=job.options.force)
    state = " (up to date, skipped)" if manifest.get("skipped") else ""
    dropped = manifest["counters"].get("validation/dropped", 0)
    return [f"{STAGE}: {manifest['records']} rows{state}, {dropped} dropped by the annotators -> "
            f"{job.run.join(STAGE, JSONL)}"]
