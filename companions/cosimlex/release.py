"""`picforge cosimlex release`: the CoSimLex rows as a Hugging Face dataset (JSON Lines + Parquet, card, plot)."""
import os
import statistics
from collections import Counter

from companions.cosimlex.encoders import MINILM, TOK2VEC
from companions.cosimlex.stage_names import CANDIDATES, FINAL, RATINGS, SELECTION
from picforge import __version__, release_writer, rundir, schemas
from picforge.croissant import dump_used
from picforge.encoders import BUNDLED_MODEL
from picforge.errors import InputError
from picforge.release_writer import markdown_table, schema_features

SCHEMA = "cosimlex_final"
DATA_FILE = "data/test.jsonl"
PARQUET_FILE = "data/test.parquet"
PLOT_FILE = "plots/similarities.png"
SIMLEX = release_writer.Input(
    "other", "the word pairs are SimLex-999's, which its authors distribute for research with no stated licence: "
             "cite Hill, Reichart and Korhonen (2015) and ask them before other use", "SimLex-999",
    "https://fh295.github.io/simlex.html")
WIKIPEDIA_ATTRIBUTION = ("the rows do not carry page addresses: credit Wikipedia and name the dump this release "
                         "names in croissant.json (wasDerivedFrom) when reusing the contexts")
WIKIPEDIA = release_writer.wikipedia(WIKIPEDIA_ATTRIBUTION)
INPUT_TERMS = (WIKIPEDIA, SIMLEX)
CITATION = ("Carlos S. Armendariz, Matthew Purver, Matej Ulčar, Senja Pollak, Nikola Ljubešić, Marko Robnik-Šikonja, "
            "Mark Granroth-Wilding and Kristiina Vaik. CoSimLex: A Resource for Evaluating Graded Word Similarity in "
            "Context. LREC 2020.")
LICENSE = release_writer.default_license(INPUT_TERMS)[0]

INTRO = """Graded word similarity in context, after CoSimLex (paper 004): SimLex-999 word pairs, each in two Wikipedia
contexts chosen by an expert, rated by annotators in each context. `sim1` and `sim2` are the mean calibrated ratings
in `context1` and `context2`, `sd1` and `sd2` their standard deviations, and `p_value` the Mann-Whitney U test of
the two contexts' ratings. One `test` split, as CoSimLex is an evaluation set."""

LOADING = f"""```python
from datasets import load_dataset
cosimlex = load_dataset("json", data_files={{"test": "{DATA_FILE}"}})
```"""

FIELDS = markdown_table(["field", "meaning"], [
    ("word1, word2", "the SimLex-999 pair"),
    ("context1, context2", "the two Wikipedia contexts holding both words (as the expert kept or shortened them)"),
    ("sim1, sim2", "mean calibrated similarity in each context (0 to the --scale-max of postprocess)"),
    ("sd1, sd2", "standard deviation of the ratings in each context"),
    ("p_value", "Mann-Whitney U p-value of the difference between the two contexts' ratings"),
    ("word1_context1, word2_context1, word1_context2, word2_context2", "each word as it stands in each context"),
    ("contextC_wordW_start, contextC_wordW_end", "character offsets of word W in context C: "
     "`contextC[contextC_wordW_start:contextC_wordW_end] == wordW_contextC`")])


def release_statistics(rows, report):
    """Size, similarity and change statistics of the released rows, with the post-processing report."""
    changes = [row["sim2"] - row["sim1"] for row in rows]
    return {
        "pairs": len(rows),
        "mean_sim1": round(statistics.fmean(row["sim1"] for row in rows), 3),
        "mean_sim2": round(statistics.fmean(row["sim2"] for row in rows), 3),
        "mean_abs_change": round(statistics.fmean(abs(c) for c in changes), 3),
        "mean_sd": round(statistics.fmean(sd for row in rows for sd in (row["sd1"], row["sd2"])), 3),
        "significant_p_below_0.05": sum(row["p_value"] < 0.05 for row in rows),
        "postprocess": report,
    }


def release_configs(stats, num_bytes):
    """The one config and its test split, as the card header and croissant.json list it."""
    return {"default": (schema_features(SCHEMA), {"test": (DATA_FILE, stats["pairs"], num_bytes)})}


def encoder_names(candidates):
    """The encoders that scored the candidate contexts, as the candidates stage ran them, in words."""
    options = candidates.get("options", {})
    named = {MINILM: f"`{BUNDLED_MODEL}` token vectors", TOK2VEC: f"the tok2vec layer of `{options.get('spacy_model')}`"}
    return ", ".join(named.get(spec, f"`{spec}`") for spec in options.get("scorer", [])) or "not recorded in the run"


def candidates_text(candidates):
    """The card's sentence on how the candidate contexts were found and which encoders picked them."""
    options = candidates.get("options", {})
    if not options:
        return "The candidates stage's manifest is missing, so the encoders that picked the contexts are not known."
    return (f"Candidate contexts (three consecutive sentences of one paragraph holding each word once, none of them "
            f"flagged broken by mining) were scored by "
            f"{encoder_names(candidates)}; the {options['per_encoder']} most and {options['per_encoder']} least "
            f"similar per encoder went to the expert (spaCy `{options['spacy_model']}` for lemmas, at most "
            f"{options['max_contexts']} contexts scored per pair; {dump_used(candidates)}).")


def input_terms(candidates):
    """The inputs of a CoSimLex release: Wikipedia contexts from the dump the candidates stage read, and the
    SimLex-999 pairs, both redistributed."""
    wikipedia = release_writer.wikipedia(WIKIPEDIA_ATTRIBUTION, dump_manifest=candidates)
    return wikipedia._replace(used=dump_used(candidates)), SIMLEX


def render_card(stats, num_bytes, *, options, fingerprints, license_id, candidates=None, license_override=None):
    """The README.md of a CoSimLex release: header, fields, statistics, construction, provenance and licence."""
    header = release_writer.card_header(
        license_id=license_id, pretty_name="CoSimLex (picforge build)", task_categories=["sentence-similarity"],
        configs=release_configs(stats, num_bytes))
    report = stats["postprocess"]
    agreement = report["inter_rater_agreement"]
    numbers = markdown_table(["statistic", "value"], [
        ("pairs", stats["pairs"]),
        ("mean sim1 / sim2", f"{stats['mean_sim1']} / {stats['mean_sim2']}"),
        ("mean absolute change (sim2 - sim1)", stats["mean_abs_change"]),
        ("mean standard deviation", stats["mean_sd"]),
        ("pairs whose contexts differ at p < 0.05", stats["significant_p_below_0.05"]),
        ("annotators (of them dropped: disengaged / low correlation)",
         f"{report['annotators']} ({len(report['annotators_disengaged'])} / "
         f"{len(report['annotators_low_correlation'])})"),
        ("ratings used", report["ratings_used"]),
        ("mean inter-rater agreement (Spearman with the others' mean)",
         "n/a" if agreement is None else round(agreement, 3)),
        ("pairs left out (too few ratings)", len(report["pairs_left_out"]))])
    construction = (
        candidates_text(candidates or {}) + " Post-processing as SimLex-999 (see docs/cosimlex.md): responses failing the engagement check are dropped "
        "(annotators failing more than a share of them entirely), annotators whose Spearman with the others' mean "
        "is low are dropped, ratings are calibrated per annotator and rescaled. Options: "
        + ", ".join(f"`{name}` {value}" for name, value in sorted(options.items())) + ".")
    sections = [
        ("Loading", LOADING),
        ("Fields", FIELDS),
        ("Statistics", f"Computed from the released file.\n\n{numbers}\n\n![similarities]({PLOT_FILE})"),
        ("How the rows were built", construction),
        ("Provenance", "\n".join(f"- `{stage}`: `{fp}`" for stage, fp in fingerprints.items())),
        ("License", release_writer.license_section(license_id, input_terms(candidates or {}), license_override)),
    ]
    return release_writer.render_card(header, "CoSimLex (picforge build)", [INTRO], sections)


def description(run, final, candidates, wanted, license_id, stats, num_bytes):
    """What croissant.json says of a CoSimLex release: inputs, RAI fields from the run's stages, lineage."""
    report = final["report"]
    ratings = [r for r in run.iter_records(RATINGS) if r["status"] == "ok"]
    per_context = sorted(Counter((r["pair_id"], r["context_no"]) for r in ratings).values())
    sources = Counter(r["source"] for r in ratings)
    selected = run.read_manifest(SELECTION) or {}
    agreement = report["inter_rater_agreement"]
    rai = {
        "dataCollection": candidates_text(candidates) + f" An expert chose two contexts for "
                          f"{selected.get('records', 'an unrecorded number of')} pairs (selection sheets).",
        "dataCollectionType": ["Document Analysis", "Manual Human Curation", "Surveys"],
        "dataAnnotationProtocol": [
            "expert selection survey: two contexts per SimLex-999 pair, shortened where the expert chose",
            f"two-page rating task (0-6 scale, each annotator rates a pair in one context only): {len(ratings)} usable "
            f"ratings from {report['annotators']} annotators",
            "post-processing as SimLex-999: " + ", ".join(f"{k} {v}" for k, v in sorted(final["options"].items()))],
        "dataAnnotationPlatform": [f"{source}: {n} ratings" for source, n in sorted(sources.items())]
                                  + ["expert selection sheets exported and ingested by picforge"],
        "annotationsPerItem": (f"{per_context[0]} to {per_context[-1]} ratings per context (median "
                               f"{per_context[len(per_context) // 2]})" if per_context else "no ratings recorded"),
        "dataAnnotationAnalysis": [
            f"mean inter-rater agreement (Spearman with the others' mean): "
            f"{'n/a' if agreement is None else round(agreement, 3)}",
            f"dropped: {len(report['annotators_disengaged'])} disengaged annotators, "
            f"{len(report['annotators_low_correlation'])} of low correlation, "
            f"{report['responses_failing_engagement']} responses failing the engagement check, "
            f"{len(report['pairs_left_out'])} pairs with too few ratings",
            f"{stats['significant_p_below_0.05']} of {stats['pairs']} pairs differ between contexts at p < 0.05"],
        "annotatorDemographics": ["not collected: the ratings carry worker ids and their source only"],
        "machineAnnotationTools": [encoder_names(candidates)],
        "dataLimitations": ["contexts are English Wikipedia sentences only, chosen among those the encoders ranked "
                            "most and least similar, so they over-represent contexts where the encoders disagree",
                            "one test split: an evaluation set, not training data"],
        "dataBiases": ["the word pairs are SimLex-999's (mostly frequent English nouns, verbs and adjectives)",
                       "one expert chose the contexts"],
        "dataUseCases": ["evaluating graded word similarity in context (CoSimLex subtasks 1 and 2)"],
        "personalSensitiveInformation": ["no worker id is released; contexts are public Wikipedia text"],
    }
    return release_writer.Description(
        name="CoSimLex (picforge build)", description=" ".join(INTRO.split()), cite_as=CITATION,
        inputs=input_terms(candidates), rai=rai,
        generated_by={"identifier": wanted, "runner": candidates.get("runner", "not recorded in the run")},
        license_id=license_id,
        configs=release_configs(stats, num_bytes))


def release_fingerprint(fingerprints, license_id, license_override=None):
    """What a CoSimLex release depends on: the final stage, the licence and an override's reason."""
    return rundir.fingerprint("cosimlex-release", fingerprints, release_writer.license_fields(license_id,
                                                                                               license_override))


def write_release(run_dir, out, *, license_id=None, force=False, license_override=None):
    """Write the release of a run's `cosimlex-final` stage into `out` (replaced whole) unless it is up to date;
    returns its MANIFEST (with `skipped` when up to date). `license_id` None is the inputs' default licence; one
    that conflicts with a redistributed input's terms is refused unless `license_override` says why."""
    run = rundir.RunDir(run_dir)
    final = run.require(FINAL)
    license_id = release_writer.check_license(license_id, input_terms(run.read_manifest(CANDIDATES) or {}),
                                              license_override)
    fingerprints = {FINAL: final["fingerprint"]}
    wanted = release_fingerprint(fingerprints, license_id, license_override)
    existing = release_writer.current_release(out, wanted, force=force, kind="CoSimLex", run=run_dir)
    if existing:
        return dict(existing, skipped=True)
    candidates = run.read_manifest(CANDIDATES) or {}
    rows = list(run.iter_records(FINAL))
    if not rows:
        raise InputError(f"{run.stage_dir(FINAL)}: no pair kept enough ratings; ingest more rating answers and run "
                         "`picforge cosimlex postprocess` again")

    def fill(root):
        release_writer.write_jsonl(os.path.join(root, DATA_FILE), rows)
        num_bytes = release_writer.write_parquet(os.path.join(root, PARQUET_FILE), rows, schemas.arrow_schema(SCHEMA))
        written = release_writer.read_jsonl(os.path.join(root, DATA_FILE))
        stats = release_statistics(written, final["report"])
        os.makedirs(os.path.join(root, "plots"))
        release_writer.plot_histograms(
            {"sim1": [r["sim1"] for r in written], "sim2": [r["sim2"] for r in written],
             "change (sim2 - sim1)": [round(r["sim2"] - r["sim1"], 3) for r in written]},
            "CoSimLex: similarity in each context", os.path.join(root, PLOT_FILE))
        card = render_card(stats, num_bytes, options=final["options"], fingerprints=fingerprints,
                           license_id=license_id, candidates=candidates, license_override=license_override)
        return card, stats, {"fingerprint": wanted, "package_version": __version__,
                             **release_writer.license_fields(license_id, license_override),
                             "inputs": fingerprints, "counts": {"test": len(written)}}, \
            description(run, final, candidates, wanted, license_id, stats, num_bytes)

    return release_writer.write_release(out, fill)
