"""Where a PiC release came from, read off its run's stage manifests, and how its procedure departs from PiC's."""
import os
import re

from picforge.encoders import BUNDLED_MODEL
from picforge.rundir import RunDir

PAPER_ENCODER = "princeton-nlp/sup-simcse-roberta-large"
DUMP_DATE = re.compile(r"(?:^|-)(\d{8})(?:-|$)")


def dump_names(manifest):
    """(file names, dates in them) of the dump files a read-dump manifest lists."""
    names = [os.path.basename(entry["path"]) for entry in manifest["inputs"].get("dump", [])]
    dates = sorted({m.group(1) for name in names for m in [DUMP_DATE.search(name)] if m})
    return names, dates


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
                          f"SimCSE ({PAPER_ENCODER}, CLS pooling). Pass `--embedding-model {PAPER_ENCODER} "
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
