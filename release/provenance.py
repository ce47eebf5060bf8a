"""Where a PiC release came from, read off its run's stage manifests, and how its procedure departs from PiC's."""
import os

from annotation.agreement import agreement_lines
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
    encoder = (pairs.get("encoder") or BUNDLED_MODEL) if pairs else None
    pooling, precision = pairs.get("pooling", "model"), pairs.get("precision", "fp32")
    rows = [
        ("Wikipedia dump", ", ".join(names) or "not recorded in the run"),
        ("dump date", ", ".join(dates) or "not in the file name (see the pages' revision ids)"),
        ("sentence and category encoder", f"{encoder}, pooling: {pooling}, precision: {precision}" if encoder
         else "not recorded in the run"),
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


def round_line(row):
    """What the ledger records of one round on one platform, in the card's and croissant.json's words."""
    who = "rehearsal ids" if row["rehearsed"] else "people"
    return (f"round {row['round']}, {row['task']}: {row['answers']:,} answers on {row['items']:,} items, "
            f"{row['assignments']:,} assignments by {row['people']:,} {who}, in {row['batches']:,} batches; "
            f"{row['platform']}")


def rehearsed_answers(final):
    """How many ingested answers of a run's ledger summary were rehearsed (0 when none, or no summary)."""
    return sum(row["answers"] for row in (final.get("annotation") or {}).get("record", []) if row["rehearsed"])


def rehearsal_note(final):
    """The line a release with rehearsed answers opens its card and description with ('' when it has none)."""
    rows = [row for row in (final.get("annotation") or {}).get("record", []) if row["rehearsed"]]
    if not rows:
        return ""
    rounds = ", ".join(sorted({str(row["round"]) for row in rows}))
    return (f"REHEARSAL BUILD: {sum(r['answers'] for r in rows):,} answers of round {rounds} were rehearsed "
            "(`annotate mturk rehearse`, REHEARSAL worker ids in the ledger), scripted or filled by hand, not crowd "
            "work; do not use these labels as crowd-verified.")


def per_item(record):
    """Answers per answered item in each round and platform, as the ledger counts them."""
    return "; ".join(f"round {row['round']} ({row['platform'].split(' (')[0]}): "
                     f"{row['answers'] / row['items']:.2f} answers per item over {row['items']:,} items"
                     for row in record if row["items"]) or "no answers ingested"


def annotation_rai(final):
    """The annotation RAI fields of croissant.json from the final_annotations manifest: the ledger's summary that
    `annotate export final` stores there (what was ingested, per round and platform), or what the stage's counters
    say when it holds none."""
    summary = final.get("annotation")
    if summary is None or "record" not in summary:
        kept = {name.split("/kept_", 1)[1]: n for name, n in final.get("counters", {}).items() if "/kept_" in name}
        noted = ", ".join(f"{rule} {n}" for rule, n in sorted(kept.items())) or "none recorded"
        return {
            "dataAnnotationProtocol": ["the final_annotations stage of this run was written without the ledger's "
                                       f"record of each round; annotations kept by rule: {noted}"],
            "dataAnnotationPlatform": ["not recorded in the run (export the final annotations again)"],
            "annotationsPerItem": "not recorded in the run",
            "dataAnnotationAnalysis": ["not recorded in the run (no ledger record in final_annotations)"],
        }
    record, funnel, ps, gold = summary["record"], summary["funnel"], summary["ps_verification"], summary["gold"]
    round1 = ", ".join(row["platform"].split(" (")[0] for row in record if row["round"] == 1) or "no answers ingested"
    protocol = [f"expert paraphrase sheets (PiC round 0): {len(summary['experts'])} experts were sent sheets; they "
                f"wrote q1, q2 and the Q3 label for {funnel['paraphrases']['annotated']} paraphrases and "
                f"{funnel['labels']['annotated']} labels"]
    for group, row in funnel.items():
        pilot = (f"an expert pilot before round 1 verified {row['pilot_verified']}, endorsed {row['pilot_kept']}; "
                 if row.get("pilot_verified") else "")
        protocol.append(f"{group}: {pilot}round 1 ({round1}) verified {row['round1_verified']}, accepted "
                        f"{row['round1_accepted']}; round 2 (experts) decided {row['round2_verified']}, endorsed "
                        f"{row['round2_endorsed']}; kept {row['kept']}, dropped {row['dropped']}")
    protocol += [f"PS verification ({label}): {row['accepted']} endorsed, {row['accepted_corrected']} endorsed with a "
                 f"correction, {row['rejected']} rejected of {row['exported']} exported"
                 for label, row in ps.items() if isinstance(row, dict) and "exported" in row]
    note = rehearsal_note(final)
    agreement = ps["agreement_A1_A2"]
    analysis = [f"gold check questions in round 1: {gold['right']} of {gold['scored']} answered right "
                f"({gold['accuracy']}%)" if gold["scored"] else "round 1 asked no gold check question",
                f"PS verification agreement of A1 and A2: {agreement['agree']} of {agreement['pairs']} pairs, Cohen's "
                f"kappa {agreement['kappa']}"]
    analysis += [f"review rejected {row['round1_rejected']} {group} in round 1 and dropped {row['dropped']} after "
                 "round 2" for group, row in funnel.items()]
    analysis += agreement_analysis(summary)
    return {"dataAnnotationProtocol": ([note] if note else []) + protocol,
            "dataAnnotationPlatform": [round_line(row) for row in record] or ["no answers ingested"],
            "annotationsPerItem": per_item(record), "dataAnnotationAnalysis": analysis}


def run_left_out(root):
    """{reason: [item id]} of the annotated items the run's release leaves out, as `annotate export final` stored them
    (empty when the stage holds no ledger summary)."""
    return ((RunDir(root).read_manifest("final_annotations") or {}).get("annotation") or {}).get("left_out", {})


def agreement_analysis(summary):
    """The agreement lines (Krippendorff's α per round and question type, the Dawid–Skene aggregate beside the keep
    rule) of a ledger summary; [] for a summary without them."""
    return agreement_lines(summary["agreement"]) if "agreement" in summary else []


def run_agreement(root):
    """The agreement lines of the ledger summary `annotate export final` stored in the run's final_annotations."""
    return agreement_analysis((RunDir(root).read_manifest("final_annotations") or {}).get("annotation", {}))


def machine_tools(run, final):
    """The tools that ran on this run, each with what it ran on, from the stage manifests."""
    phrases = run.read_manifest("phrases") or {}
    pairs = run.read_manifest("pairs") or {}
    domains = run.read_manifest("domains") or {}
    tools = []
    if phrases:
        model = phrases.get("options", {}).get("spacy_model") or "the bundled en_core_web_sm"
        tools.append(f"spaCy ({model}) noun chunks and PROPN tokens: parsed "
                     f"{phrases.get('counters', {}).get('phrases/sentences-parsed', 'an unrecorded number of'):,} "
                     f"sentences, {phrases.get('records', 0):,} phrase occurrences")
    for stage, manifest, what in (("pairs", pairs, "sentence pairs scored"), ("domains", domains, "page pairs")):
        if manifest:
            options = manifest.get("options", {})
            count = manifest.get("counters", {}).get(f"{stage}/pairs-scored" if stage == "pairs" else "domains/pairs")
            tools.append(f"{options.get('encoder') or BUNDLED_MODEL} ({options.get('pooling', 'model')} "
                         f"pooling, {options.get('precision', 'fp32')}), {stage} stage: {count if count is not None else 'an unrecorded number of'} "
                         f"{what}")
    counters = final.get("counters", {})
    total = counters.get("final_annotations/paraphrases")
    checked = (total or 0) - counters.get("final_annotations/paraphrases-grammar-not-checked", 0)
    if checked > 0:
        tools.append(f"LanguageTool (grammar check): {checked:,} of {total:,} kept paraphrases")
    return tools or ["none recorded in the run"]


def run_description(root, sources=None):
    """The facts croissant.json states about a PiC run: its inputs (dump files and dates, the revisions of the pages
    `sources` the release holds text of, WiC), RAI fields and the runner, from the stage manifests (and the ledger
    summary kept in final_annotations)."""
    from release.configs import input_terms

    run = RunDir(root)
    dump = run.read_manifest("read-dump") or {"inputs": {}}
    group = run.read_manifest("group") or {"inputs": {}}
    final = run.read_manifest("final_annotations") or {}
    select = run.read_manifest("select") or {}
    rows, departures = run_provenance(root)
    wic_files = [os.path.basename(entry["path"]) for entry in group["inputs"].get("wic_words", [])]
    wikipedia, wic = input_terms(sources)
    inputs = (wikipedia._replace(used=dump_used(dump) + f"; text of {len(sources or {}):,} page revisions"),
              wic._replace(used=f"target words of {', '.join(wic_files) or 'the WiC package'}"))
    rai = {
        "dataCollection": "Mined by `picforge mine`: " + "; ".join(
            f"{what}: {value}" for what, value in rows) + f"; {select.get('records', 'an unrecorded number of')} "
            "triplets selected for annotation",
        "dataCollectionType": ["Document Analysis", "Manual Human Curation"],
        **annotation_rai(final),
        "annotatorDemographics": [DEMOGRAPHICS],
        "machineAnnotationTools": machine_tools(run, final),
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
