"""The released STS-B-Context rows (JSON Lines + Parquet) and their dataset card."""
import json
import re
import statistics
import time

from companions.stsb_context import validation
from companions.stsb_context.generate import STAGE as GENERATIONS
from companions.stsb_context.prompts import PROMPT_TEMPLATE
from companions.stsb_context.settings import DATASET
from picforge import release_writer
from picforge.release_writer import markdown_table
from picforge.rundir import fingerprint, input_identity
from release.configs import schema_features

STAGE = DATASET
SCHEMA = "stsb_context"
JSONL = "stsb_context.jsonl"
FIELDS = ("origin_phrase", "target_phrase", "context", "target_start", "score", "genre")
WORD = re.compile(r"\w+")
# The pairs and scores are STS Benchmark's; the contexts are generated text.
SOURCES = ("stsb",)
LICENSE = release_writer.default_license(SOURCES)[0]


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


def _percent(value):
    return "n/a" if value is None else f"{100 * value:.1f}%"


def dataset_card(stats, provenance, num_bytes, license_id=LICENSE):
    """The README.md of the release: YAML header, how it was built, fields and statistics."""
    header = release_writer.card_header(
        license_id=license_id, pretty_name="STS-B-Context", task_categories=["sentence-similarity"],
        configs={"default": (schema_features(SCHEMA), {"train": (JSONL, stats["rows"], num_bytes)})})
    construction = f"""- Prompt (one per pair, `<letter>` drawn uniformly from A-Z with seed {provenance['seed']}):
  "{PROMPT_TEMPLATE.format(letter='<letter>', phrase='<phrase>')}"
- Model: `{provenance['model']}`, temperature {provenance['temperature']}, at most {provenance['max_tokens']} tokens.
- Kept only generations containing the target phrase verbatim{provenance['match_note']}:
  {provenance['answered']} answered, {_percent(provenance['verbatim_drop_rate'])} dropped.
- Two annotators flagged contexts that change the gold similarity; an item flagged by either was dropped:
  {provenance['validated']} judged, {provenance['dropped']} dropped ({_percent(provenance['validation_drop_rate'])}),
  agreement {_percent(provenance['agreement'])}, Cohen's kappa {provenance['cohen_kappa_text']}."""
    fields = markdown_table(["field", "meaning"], [
        ("origin_phrase", "STS-B sentence 1"),
        ("target_phrase", "STS-B sentence 2 exactly as it stands in the context"),
        ("context", "the generated text containing the target phrase"),
        ("target_start", "character offset of target_phrase in context"),
        ("score", "gold STS-B similarity of the two sentences (0-5)"),
        ("genre", "STS-B genre")])
    numbers = markdown_table(["statistic", "value"], [
        ("rows", stats["rows"]),
        ("mean score (sd)", f"{stats.get('score_mean')} ({stats.get('score_stdev')})"),
        ("mean words: origin / target / context", f"{stats.get('mean_words_origin_phrase')} / "
         f"{stats.get('mean_words_target_phrase')} / {stats.get('mean_words_context')}"),
        ("target words also in origin", f"{stats.get('target_word_overlap_pct')}%")])
    genres = markdown_table(["genre", "rows"], list(stats.get("genres", {}).items()))
    intro = ["""STS Benchmark test pairs whose second sentence (the target phrase) is embedded in a longer generated
context, after the SLICE paper (Section 4.2). A model must find the span of the context that best matches
the origin phrase; its similarity is compared with the gold STS-B score (0-5).""",
             f'Load with `datasets.load_dataset("json", data_files="{JSONL}")`.']
    sections = [("Construction", construction), ("Fields", fields), ("Statistics", f"{numbers}\n\n{genres}"),
                ("License", release_writer.license_section(license_id, SOURCES))]
    return release_writer.render_card(header, "STS-B-Context", intro, sections)


def ingest_validation(run, sheet_paths, *, license_id=LICENSE, force=False):
    """Run stage `dataset` from two filled validation sheets; returns its manifest."""
    started = time.time()
    validation.check_sheet_paths(sheet_paths)
    inputs = {GENERATIONS: run.stage_identity(GENERATIONS), validation.STAGE: run.stage_identity(validation.STAGE),
              "sheets": [input_identity(p)[0] for p in sheet_paths]}
    stage_print = fingerprint(STAGE, inputs, {"license": license_id})
    done = None if force else run.up_to_date(STAGE, stage_print)
    if done is not None:
        return dict(done, skipped=True)
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
        **{k: options[k] for k in ("model", "temperature", "max_tokens", "seed")},
        "match_note": "" if options["exact_match"] else
        " (allowing a lower-case first letter and no final full stop inside the longer sentence)",
        "answered": answered, "verbatim_drop_rate": generations.get("verbatim_drop_rate"),
        "validated": len(kept), "dropped": dropped,
        "validation_drop_rate": dropped / len(kept) if kept else None,
        "agreement": agreement["agreement"],
        "cohen_kappa_text": "n/a" if agreement["cohen_kappa"] is None else f"{agreement['cohen_kappa']:.3f}",
    }
    stats = dataset_statistics(rows)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    files = {JSONL: data, "README.md": dataset_card(stats, provenance, len(data.encode("utf-8")), license_id)}
    return run.write_stage(STAGE, rows, SCHEMA, inputs=inputs, options={"license": license_id}, counters=counters, started=started,
                           files=files, statistics=stats, agreement=agreement,
                        verbatim_drop_rate=provenance["verbatim_drop_rate"],
                        validation_drop_rate=provenance["validation_drop_rate"])
