"""The PiC dataset card: its YAML header (configs, features, splits, license) and sections, rendered by the core."""
from picforge import release_writer
from picforge.release_writer import markdown_table, SPLITS
from picforge.licences import license_section
from release.configs import CONFIGS, data_file, features

PS_ROWS = (("unique phrases", "unique_phrases"), ("lexical overlap (%)", "lexical_overlap_pct"))
SPAN_ROWS = (("unique queries", "unique_queries"), ("unique answers", "unique_answers"))


def release_configs(split_sizes):
    """{config: (features, {split: (JSON Lines file, num_examples, num_bytes)})} of the written (non-empty) splits,
    from `split_sizes` {config: {split: (num_examples, num_bytes)}}: what the card header and croissant.json list."""
    return {config: (features(config), {s: (data_file(config, s), *sizes[s]) for s in SPLITS if s in sizes})
            for config, sizes in split_sizes.items()}


def card_header(split_sizes, license_id):
    """The YAML header: one config per task with its JSON Lines files, features and split sizes."""
    return release_writer.card_header(license_id=license_id, pretty_name="PiC: Phrase-in-Context",
                                      task_categories=["text-classification", "question-answering"],
                                      configs=release_configs(split_sizes))


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
          "the Wikipedia title of the context's page (PSD: both pages, page 1 first, joined by ` | `); `context` "
          "(string); `query` (string): the paraphrase; `answers` (`text`: list of string, `answer_start`: list of "
          "int32): the phrase as written in the context and its character offset; `url` (string): the page's "
          "address, `https://en.wikipedia.org/wiki?curid=<page_id>` (PSD: both, joined by ` | `); `revision_id` "
          "(string): the page revision the context was taken from (PSD: both, joined by ` | `).",
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


INTRO = """Four phrase-understanding tasks built from Wikipedia pages and expert paraphrase annotations, in the layout of the
public PiC release: a binary phrase-similarity task and three SQuAD-style span tasks. Each config holds JSON Lines
files (`<config>/<split>.json`) and the same rows as Parquet (`<config>/<split>.parquet`)."""

STATISTICS_NOTE = """Computed from the released files. Tokens are NLTK Treebank words; sentences are Punkt sentences. Lexical overlap is
the share of PS pairs whose two phrases have a word in common."""

CONSTRUCTION = """- Each expert paraphrase (q1, q2) and Y/N label (Q3) is kept on its own when its round-1 verification (see
  Annotation for who gave it) or an expert verifier (round 2) endorsed it, as in PiC; a triplet may contribute one
  paraphrase and not the other.
- **PS**: the pairs the three PS-verification experts endorsed (at least two of three), in the page-1 sentence:
  the phrase p against the kept q1 (positive) and, where a Q3 = No label is kept, against the kept q2 (negative),
  with an expert correction in place of the paraphrase where the experts endorsed one; unverified and rejected pairs
  are left out; the larger class is sampled down to the smaller one.
- **PR-pass**: each kept paraphrase against a random window of 11 consecutive sentences of its page containing p.
- **PR-page**: each kept paraphrase against its whole cleaned page; left out when the page holds the query verbatim.
  A context holds the page's prose paragraphs only, as PiC's WikiExtractor keeps them: no headings, list items,
  indented or definition lines, tables, galleries, image captions, infoboxes or reference sections; templates that
  render words (units, dates, foreign-language names) are rendered, paragraphs are separated by a blank line.
- No sentence that mining flagged broken (words lost in cleaning, a template's words lost, markup debris, a cut
  sentence) is in any context:
  PR-pass and PSD windows avoid them (narrower where no full window does), and PR-page contexts are the page with
  those sentences left out.
- **PSD**: for triplets with a kept Q3 = No label, a window of up to 11 sentences from each page holding p exactly
  once, page 1 first and a blank line between; the query is a kept q1 or q2 whose PS pair was not rejected (seeded
  choice) and the answer is p in its paragraph.
- Splits are drawn once per triplet and shared by every config (no triplet is in two splits, in any config), in a
  seeded order, 70/10/20 among the triplets with PS pairs and among the others, so PS's pairs are split 70/10/20
  too; with three or more triplets in a group each split gets at least one. Seed: {seed}."""


def loading_section(stats, split_sizes):
    """The Loading section: `load_dataset` per config, and one config's JSON Lines directly."""
    example = next(iter(stats), "PS")
    return "\n".join(
        ["```python", "from datasets import load_dataset", "",
         *(f'{c.lower().replace("-", "_")} = load_dataset("path/or/org/name", "{c}")' for c in stats),
         "# or any config's JSON Lines directly:",
         f'{example.lower().replace("-", "_")} = load_dataset("json", data_files=' + "{"
         + ", ".join(f'"{s}": "{data_file(example, s)}"' for s in split_sizes.get(example, {})) + "})",
         "```"])


def fields_section(stats):
    """The Fields section: the fields of each schema, naming the configs that use it."""
    by_schema = {}
    for config in stats:
        by_schema.setdefault(CONFIGS[config].schema, []).append(config)
    return "\n".join(f"- **{', '.join(group)}**: {FIELDS[schema]}" for schema, group in by_schema.items())


def construction_section(seed, fingerprints, skipped, rejected):
    """How the examples were built: the rules, what was left out and the input stages."""
    left_out = [[c, reason, n] for c, reasons in skipped.items() for reason, n in reasons.items()]
    left_out += [[c, "failed the release checks (ids and reasons in MANIFEST.json)", n]
                 for c, n in rejected.items() if n]
    inputs = "\n".join(f"- `{stage}`: `{fp}`" for stage, fp in fingerprints.items())
    return "\n\n".join([CONSTRUCTION.format(seed=seed), "Left out while building:",
                        markdown_table(["config", "reason", "examples"], left_out) if left_out else "nothing.",
                        "Inputs (stage fingerprints of the run directory):", inputs])


def provenance_section(provenance):
    """The Provenance section from ([(what, value)], [departure from PiC])."""
    rows, departures = provenance
    listed = "\n".join(f"- {text}" for text in departures)
    return (f"{markdown_table(['what', 'value'], [list(r) for r in rows])}\n\n"
            f"Departures from the PiC procedure (Appendix C):\n\n{listed}")


def left_out_section(left_out):
    """The card's list of the annotated items this release leaves out, by reason ({reason: [item id]})."""
    return "\n".join(f"- {reason}: {len(ids)} ({', '.join(ids[:20])}{', …' if len(ids) > 20 else ''})"
                     for reason, ids in left_out.items())


def agreement_section(lines):
    """The Agreement section: Krippendorff's α per round and question type, and the aggregate beside the keep rule."""
    return ("How far the verifiers agreed, from the annotation ledger (`picforge annotate report` shows the same); "
            "PiC's keep rule decides what is released, the aggregate is shown beside it:\n\n"
            + "\n".join(f"- {line}" for line in lines))


HISTORY = "https://en.wikipedia.org/w/index.php?curid={page_id}&action=history"
REVISION = "https://en.wikipedia.org/w/index.php?oldid={revision_id}"


def attribution(sources):
    """What the Wikipedia licence asks a reuser to credit: every page revision the release holds text of, with its
    address, the revision's address and date, and its history (where the authors are named)."""
    if not sources:
        return "Attribution: no Wikipedia text is in this release."
    rows = [[s.title, s.url, f"[{s.revision_id}]({REVISION.format(revision_id=s.revision_id)})",
             s.revision_timestamp[:10] or "not recorded", HISTORY.format(page_id=s.page_id)]
            for s in sources.values()]
    return "\n\n".join([f"Attribution: the text comes from these {len(sources):,} English Wikipedia page revisions, "
                         "written by the authors each page's history lists; reusers must credit them, link the "
                         "licence and keep derived text under it.",
                         markdown_table(["page", "url", "revision", "saved", "authors (history)"], rows)])


def annotation_section(rai):
    """Who annotated and which tools ran, in the words croissant.json states them (both from the ledger and the
    stage manifests)."""
    lines = ["Read off the ledger's record of every round (answers actually ingested) and the stage manifests:", ""]
    lines += [f"- {line}" for line in rai.get("dataAnnotationPlatform", [])]
    lines += ["", f"Answers per item: {rai.get('annotationsPerItem', 'not recorded')}.", "", "Tools that ran:", ""]
    lines += [f"- {tool}" for tool in rai.get("machineAnnotationTools", [])]
    return "\n".join(lines)


def render_card(stats, split_sizes, *, seed, fingerprints, skipped, rejected, plots, omitted, license_id, inputs,
                license_override=None, sources=None, rehearsal="", rai=None, provenance=((), ()), left_out=None,
                agreement=()):
    """The full README.md text of a release; a rehearsal build says so on its first line under the header."""
    configs = markdown_table(["config", "task", *SPLITS],
                             [[c, CONFIGS[c].summary, *(split_sizes[c].get(s, (0,))[0] or "–" for s in SPLITS)]
                              for c in stats])
    images = "\n".join(f"![{name}]({path})" for name, path in plots.items())
    sections = [
        ("Loading", loading_section(stats, split_sizes)),
        ("Fields", fields_section(stats)),
        ("Statistics", "\n\n".join([STATISTICS_NOTE, _statistics_tables(stats), images])),
        ("How the examples were built", construction_section(seed, fingerprints, skipped, rejected)),
        *([("Annotation", annotation_section(rai))] if rai else []),
        *([("Provenance", provenance_section(provenance))] if provenance[0] else []),
        *([("Annotations left out", left_out_section(left_out))] if left_out else []),
        *([("Agreement", agreement_section(agreement))] if agreement else []),
        ("License", license_section(license_id, inputs, license_override, attribution(sources))),
    ]
    title = "PiC: Phrase-in-Context (picforge build)" + (" — REHEARSAL BUILD, not crowd-annotated" if rehearsal
                                                         else "")
    return release_writer.render_card(card_header(split_sizes, license_id), title,
                                      [*([f"**{rehearsal}**"] if rehearsal else []), INTRO, configs,
                                       omitted_note(omitted)], sections)
