"""The dataset card README.md: Hugging Face YAML header (configs, features, splits, license) and statistics."""
from datasets import DatasetInfo, SplitInfo
from datasets.info import DatasetInfosDict
from datasets.splits import SplitDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCardData

from release.configs import CONFIGS, LICENSE, SPLITS, data_file, features

PS_ROWS = (("unique phrases", "unique_phrases"), ("lexical overlap (%)", "lexical_overlap_pct"))
SPAN_ROWS = (("unique queries", "unique_queries"), ("unique answers", "unique_answers"))


def card_data(split_sizes):
    """The YAML header: one config per task with its JSON Lines files, features and split sizes.

    `split_sizes` is {config: {split: (num_examples, num_bytes)}} of the written (non-empty) splits.
    """
    data = DatasetCardData(license=LICENSE, language=["en"], pretty_name="PiC: Phrase-in-Context",
                           task_categories=["text-classification", "question-answering"])
    infos, configs = {}, {}
    for config, sizes in split_sizes.items():
        present = [split for split in SPLITS if split in sizes]
        configs[config] = {"data_files": [{"split": s, "path": data_file(config, s)} for s in present]}
        infos[config] = DatasetInfo(features=features(config), splits=SplitDict(
            {s: SplitInfo(name=s, num_examples=sizes[s][0], num_bytes=sizes[s][1]) for s in present}))
    DatasetInfosDict(infos).to_dataset_card_data(data)
    for info in data["dataset_info"]:
        info["features"] = [_as_sequence(feature) for feature in info["features"]]
    MetadataConfigs(configs).to_dataset_card_data(data)
    return data


def _as_sequence(feature):
    """Write a struct of plain lists (PR `answers`) in the older `sequence` form, as the public PiC cards do.

    Both forms load as the same Arrow type; `sequence` is also understood by `datasets` releases before 4.0.
    """
    children = feature.get("struct", [])
    if children and all(isinstance(child.get("list"), str) for child in children):
        return {"name": feature["name"],
                "sequence": [{"name": child["name"], "dtype": child["list"]} for child in children]}
    return feature


def markdown_table(header, rows):
    """A Markdown table of a header and rows of cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _statistics_tables(stats):
    ps = [c for c in stats if CONFIGS[c].schema == "ps"]
    spans = [c for c in stats if CONFIGS[c].schema != "ps"]
    sections = []
    for group, rows in ((ps, PS_ROWS), (spans, SPAN_ROWS)):
        if not group:
            continue
        body = [[split] + [stats[c]["instances"][split] for c in group] for split in SPLITS + ("all",)]
        body += [[label] + [stats[c][key] for c in group] for label, key in rows]
        lengths = list(dict.fromkeys(name for c in group for name in stats[c]["mean_length"]))
        body += [[f"mean {name}"] + [stats[c]["mean_length"].get(name, "") for c in group] for name in lengths]
        sections.append(markdown_table(["", *group], body))
    for config in ps:
        labels = stats[config]["labels"]
        sections.append(f"Label balance in {config}: {labels['negative']} negative, {labels['positive']} positive.")
    return "\n\n".join(sections)


FIELDS = {
    "ps": "`phrase1`, `phrase2` (string): the original phrase and a paraphrase; `sentence1` (string): the page-1 "
          "sentence holding `phrase1`; `sentence2` (string): the same sentence with `phrase2` in its place; `label` "
          "(class label: 0 negative, 1 positive); `idx` (int32): position in the split.",
    "pr": "`id` (string): `<triplet>-<1|2>`, naming the paraphrase (q1 or q2) used as query; `title` (string): "
          "`https://en.wikipedia.org/wiki?curid=<page_id>` of the context's page (PSD: both pages, space-separated); "
          "`context` (string); `query` (string): the paraphrase; `answers` (`text`: list of string, "
          "`answer_start`: list of int32): the phrase as written in the context and its character offset.",
}


def omitted_note(omitted):
    """What the card says about splits (or whole configs) that were not written because they had no example."""
    if not omitted:
        return "Every config has all three splits."
    lines = ["Empty splits are not written (`load_dataset` refuses an empty file). Splits are drawn per triplet for "
             "all configs at once, so a config whose few examples all come from triplets of other splits has none "
             "in a split:", ""]
    for config, splits in omitted.items():
        if len(splits) == len(SPLITS):
            lines.append(f"- **{config}**: not written at all; no example of it survived the construction rules "
                         "(see the table below).")
        else:
            lines.append(f"- **{config}**: no {' and no '.join(splits)} split.")
    return "\n".join(lines)


def provenance_section(provenance):
    """The card's Provenance section from ([(what, value)], [departure from PiC])."""
    rows, departures = provenance
    if not rows:
        return ""
    listed = "\n".join(f"- {text}" for text in departures)
    return (f"## Provenance\n\n{markdown_table(['what', 'value'], [list(r) for r in rows])}\n\n"
            f"Departures from the PiC procedure (Appendix C):\n\n{listed}\n")


def render_card(stats, split_sizes, *, seed, fingerprints, skipped, rejected, plots, omitted, provenance=((), ())):
    """The full README.md text of a release."""
    header = card_data(split_sizes).to_yaml()
    configs = markdown_table(["config", "task", *SPLITS],
                             [[c, CONFIGS[c].summary, *(split_sizes[c].get(s, (0,))[0] or "–" for s in SPLITS)]
                              for c in stats])
    example = next(iter(stats), "PS")
    loading = "\n".join(
        ["```python", "from datasets import load_dataset", "",
         *(f'{c.lower().replace("-", "_")} = load_dataset("path/or/org/name", "{c}")' for c in stats),
         "# or any config's JSON Lines directly:",
         f'{example.lower().replace("-", "_")} = load_dataset("json", data_files=' + "{"
         + ", ".join(f'"{s}": "{data_file(example, s)}"' for s in split_sizes.get(example, {})) + "})",
         "```"])
    by_schema = {}
    for config in stats:
        by_schema.setdefault(CONFIGS[config].schema, []).append(config)
    fields = "\n".join(f"- **{', '.join(group)}**: {FIELDS[schema]}" for schema, group in by_schema.items())
    left_out = [[c, reason, n] for c, reasons in skipped.items() for reason, n in reasons.items()]
    left_out += [[c, "failed the release checks (ids and reasons in MANIFEST.json)", n]
                 for c, n in rejected.items() if n]
    images = "\n".join(f"![{name}]({path})" for name, path in plots.items())
    inputs = "\n".join(f"- `{stage}`: `{fp}`" for stage, fp in fingerprints.items())
    return f"""---
{header.rstrip()}
---

# PiC: Phrase-in-Context (picforge build)

Four phrase-understanding tasks built from Wikipedia pages and expert paraphrase annotations, in the layout of the
public PiC release: a binary phrase-similarity task and three SQuAD-style span tasks. Each config holds JSON Lines
files (`<config>/<split>.json`) and the same rows as Parquet (`<config>/<split>.parquet`).

{configs}

{omitted_note(omitted)}

## Loading

{loading}

## Fields

{fields}

## Statistics

Computed from the released files. Tokens are NLTK Treebank words; sentences are Punkt sentences. Lexical overlap is
the share of PS pairs whose two phrases have a word in common.

{_statistics_tables(stats)}

{images}

## How the examples were built

- Each expert paraphrase (q1, q2) and Y/N label (Q3) is kept on its own when an MTurk verifier (round 1) or an
  expert verifier (round 2) endorsed it, as in PiC; a triplet may contribute one paraphrase and not the other.
- **PS**: the pairs the three PS-verification experts endorsed (at least two of three), in the page-1 sentence:
  the phrase p against the kept q1 (positive) and, where a Q3 = No label is kept, against the kept q2 (negative),
  with an expert correction in place of the paraphrase where the experts endorsed one; unverified and rejected pairs
  are left out; the larger class is sampled down to the smaller one.
- **PR-pass**: each kept paraphrase against a random window of 11 consecutive sentences of its page containing p.
- **PR-page**: each kept paraphrase against its whole cleaned page; left out when the page holds the query verbatim.
- No sentence that mining flagged broken (words lost in cleaning, markup debris, a cut sentence) is in any context:
  PR-pass and PSD windows avoid them (narrower where no full window does), and PR-page contexts are the page with
  those sentences left out.
- **PSD**: for triplets with a kept Q3 = No label, a window of up to 11 sentences from each page holding p exactly
  once, page 1 first and a blank line between; the query is a kept q1 or q2 whose PS pair was not rejected (seeded
  choice) and the answer is p in its paragraph.
- Splits are drawn once per triplet and shared by every config (no triplet is in two splits, in any config), in a
  seeded order, 70/10/20; with three or more triplets each split gets at least one. Seed: {seed}.

Left out while building:

{markdown_table(["config", "reason", "examples"], left_out) if left_out else "nothing."}

{provenance_section(provenance)}
Inputs (stage fingerprints of the run directory):

{inputs}

## License

{LICENSE.upper()}. The contexts are Wikipedia text (CC BY-SA); the annotations are released for non-commercial use.
"""
