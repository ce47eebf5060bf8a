"""Where a PiC release came from, read off its run's stage manifests, and how its procedure departs from PiC's."""
import os

from picforge.croissant import dump_names, dump_used
from picforge.encoders import BUNDLED_MODEL
from picforge.rundir import RunDir

PAPER_ENCODER = "princeton-nlp/sup-simcse-roberta-large"


def run_provenance(root):
    """(rows [(what, value)], departures from PiC [text]) of the mined run `root`."""
    run = RunDir(root)
    manifests = {stage: run.read_manifest(stage) or {"inputs": {}, "options": {}, "counters": {}}
                 for stage in ("read-dump", "pairs", "domains", "final_annotations")}
    names, dates = dump_names(manifests["read-dump"])
    pairs = manifests["pairs"]["options"]
    domains = manifests["domains"]["options"]
    encoder = (pairs.get("embedding_model") or BUNDLED_MODEL) if pairs else None
    pooling = pairs.get("pooling", "model")
    rows = [
        ("Wikipedia dump", ", ".join(names) or "not recorded in the run"),
        ("dump date", ", ".join(dates) or "not in the file name (see the pages' revision ids)"),
        ("sentence and category encoder", f"{encoder}, pooling: {pooling}" if encoder else "not recorded in the run"),
        ("page categories", "MediaWiki API (" + domains["categories_api_url"] + ")" if domains.get("categories_from_api")
         else "the visible [[Category:…]] links of each page's wikitext in the dump"),
    ]
    if pairs:
        rows += [
            ("semantic window, length difference", f"cosine in [{pairs['min_similarity']}, "
             f"{pairs['max_similarity']}] ({pairs['threshold_mode']}), at most {pairs['max_length_diff']} words"),
            ("contexts per phrase", f"at most {pairs['max_contexts']} of {pairs['min_words']}–{pairs['max_words']} "
             f"words (seeded sample, seed {pairs['seed']})"),
        ]
    final = manifests["final_annotations"]["counters"]
    total = final.get("final_annotations/paraphrases")
    unchecked = final.get("final_annotations/paraphrases-grammar-not-checked", 0)
    if total is not None:
        rows.append(("grammar check (LanguageTool)", f"not run for {unchecked:,} of {total:,} paraphrases (ingested "
                     "with --no-grammar)" if unchecked else f"run on all {total:,} paraphrases"))
    departures = []
    if encoder and (encoder, pooling) != (PAPER_ENCODER, "cls"):
        departures.append(f"Sentences and category lists are embedded with {encoder} ({pooling} pooling); PiC used "
                          f"SimCSE ({PAPER_ENCODER}, CLS pooling). Pass `--encoder {PAPER_ENCODER} "
                          "--pooling cls` to `picforge mine` for the paper's encoder.")
    if not domains.get("categories_from_api"):
        departures.append("Page categories are read from the dump's wikitext (maintenance categories removed); PiC "
                          "fetched them from the Wikipedia API (`picforge mine --categories-from-api`).")
    departures += [
        "Each phrase keeps its most dissimilar sentence pair among the pairs that pass the Step-6 filters; PiC took "
        "the most dissimilar pair first and dropped the phrase when that pair failed, so this keeps more triplets.",
        "Sentences where cleaning lost words, that show markup debris or that were cut are flagged; PiC dropped "
        "phrases whose page had missing words, picforge keeps the page and leaves every flagged sentence out of "
        "every context (PR-pass and PSD windows avoid them, PR-page contexts are the page without them).",
    ]
    if pairs:
        departures.append(f"Pairs are formed among at most {pairs['max_contexts']} sampled contexts per phrase.")
    return rows, departures


PIC_CITATION = ("Thang M. Pham, Seunghyun Yoon, Trung Bui and Anh Nguyen. PiC: A Phrase-in-Context Dataset for Phrase "
                "Understanding and Semantic Search. EACL 2023.")
DEMOGRAPHICS = "not collected: the ledger holds annotator and worker ids and where they came from, nothing else"


def annotation_rai(final):
    """The annotation RAI fields of croissant.json from the final_annotations manifest: the ledger's summary that
    `annotate export final` stores there, or what the stage's counters say when it holds none."""
    summary = final.get("annotation")
    if summary is None:
        kept = {name.split("/kept_", 1)[1]: n for name, n in final.get("counters", {}).items() if "/kept_" in name}
        noted = ", ".join(f"{rule} {n}" for rule, n in sorted(kept.items())) or "none recorded"
        return {
            "dataAnnotationProtocol": ["the final_annotations stage of this run was written without the ledger's "
                                       f"summary; annotations kept by rule: {noted}"],
            "dataAnnotationPlatform": ["not recorded in the run"],
            "annotationsPerItem": "not recorded in the run",
            "dataAnnotationAnalysis": ["not recorded in the run (no ledger summary in final_annotations)"],
        }
    funnel, ps, gold = summary["funnel"], summary["ps_verification"], summary["gold"]
    protocol = [f"expert paraphrase sheets (PiC round 0): {len(summary['experts'])} experts wrote q1, q2 and the "
                f"Q3 label for {funnel['paraphrases']['annotated']} paraphrases and {funnel['labels']['annotated']} "
                "labels"]
    for group, row in funnel.items():
        protocol.append(f"{group}: round 1 (MTurk) verified {row['round1_verified']}, accepted {row['round1_accepted']}; "
                        f"round 2 (experts) decided {row['round2_verified']}, endorsed {row['round2_endorsed']}; "
                        f"kept {row['kept']}, dropped {row['dropped']}")
    protocol += [f"PS verification ({label}): {row['accepted']} endorsed, {row['accepted_corrected']} endorsed with a "
                 f"correction, {row['rejected']} rejected of {row['exported']} exported"
                 for label, row in ps.items() if isinstance(row, dict) and "exported" in row]
    platforms = [f"expert sheets (CSV/XLSX) exported and ingested by picforge: {', '.join(summary['experts'])}"]
    if summary["mturk_batches"]:
        platforms.append(f"Amazon Mechanical Turk: {summary['mturk_batches']} round-1 batches, workers by source "
                         + ", ".join(f"{source} {n}" for source, n in summary["workers_by_source"].items()))
    agreement = ps["agreement_A1_A2"]
    analysis = [f"gold check questions in round 1: {gold['right']} of {gold['scored']} answered right "
                f"({gold['accuracy']}%)" if gold["scored"] else "round 1 asked no gold check question",
                f"PS verification agreement of A1 and A2: {agreement['agree']} of {agreement['pairs']} pairs, Cohen's "
                f"kappa {agreement['kappa']}"]
    analysis += [f"review rejected {row['round1_rejected']} {group} in round 1 and dropped {row['dropped']} after "
                 "round 2" for group, row in funnel.items()]
    per_hit = ", ".join(str(n) for n in summary["assignments_per_hit"]) or "none (no MTurk batch)"
    return {"dataAnnotationProtocol": protocol, "dataAnnotationPlatform": platforms,
            "annotationsPerItem": f"one expert annotation per triplet; MTurk assignments per round-1 item: {per_hit}; "
                                  "round 2: one expert verifier; PS verification: two experts and a third on ties",
            "dataAnnotationAnalysis": analysis}


def run_left_out(root):
    """{reason: [item id]} of the annotated items the run's release leaves out, as `annotate export final` stored them
    (empty when the stage holds no ledger summary)."""
    return ((RunDir(root).read_manifest("final_annotations") or {}).get("annotation") or {}).get("left_out", {})


def run_description(root):
    """The facts croissant.json states about a PiC run: its inputs (dump files and dates, WiC), RAI fields and the
    runner, from the stage manifests (and the ledger summary kept in final_annotations)."""
    from release.configs import WIC, WIKIPEDIA

    run = RunDir(root)
    dump = run.read_manifest("read-dump") or {"inputs": {}}
    group = run.read_manifest("group") or {"inputs": {}}
    final = run.read_manifest("final_annotations") or {}
    select = run.read_manifest("select") or {}
    names, _ = dump_names(dump)
    rows, departures = run_provenance(root)
    wic_files = [os.path.basename(entry["path"]) for entry in group["inputs"].get("wic_words", [])]
    inputs = (WIKIPEDIA._replace(used=dump_used(dump)),
              WIC._replace(used=f"target words of {', '.join(wic_files) or 'the WiC package'}"))
    rai = {
        "dataCollection": "Mined by `picforge mine`: " + "; ".join(
            f"{what}: {value}" for what, value in rows) + f"; {select.get('records', 'an unrecorded number of')} "
            "triplets selected for annotation",
        "dataCollectionType": ["Document Analysis", "Manual Human Curation"],
        **annotation_rai(final),
        "annotatorDemographics": [DEMOGRAPHICS],
        "machineAnnotationTools": [value for what, value in rows if "encoder" in what]
                                  + ["spaCy noun chunks and PROPN tokens (phrases)", "LanguageTool (grammar check)"],
        "dataLimitations": departures,
        "dataBiases": ["English Wikipedia only: its topics, registers and editors' choices",
                       "only phrases holding a WiC target word, on page pairs ranked by how dissimilar their "
                       "categories are, so ambiguous words and cross-domain pages are over-represented"],
        "dataUseCases": ["phrase similarity in context (PS)", "phrase retrieval in a passage or a page (PR-pass, "
                         "PR-page)", "phrase sense disambiguation (PSD)", "evaluating phrase and span encoders"],
        "personalSensitiveInformation": ["no annotator or worker id is released; the texts are public Wikipedia "
                                         "articles, which can name living people"],
    }
    return inputs, rai, (select.get("runner") or dump.get("runner") or "not recorded in the run")
