"""McPhraSy steps over a run directory: corpus documents, contexts (+ A.1 triplets), frequent phrases, groups."""
import dataclasses
import json

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from companions.mcphrasy import grouping, match, stages
from picforge.encoders import BUNDLED_MODEL, encode, load_sentence_model
from picforge.errors import InputError
from picforge.files import open_input, write_atomically
from picforge.sheets import decode_text
from picforge.options import pipeline_options
from picforge.croissant import dump_inputs
from picforge.rundir import RunDir, fingerprint, input_identity, upstream
from picforge.stage_jobs import read_stage, run_stages
from picforge.word_vectors import read_vectors_file

GROUPS = "mcphrasy-groups"
CORPUS_FILE = "mcphrasy-corpus.json"  # in a McPhraSy run: the corpus its verbs read (a mined run or review files)
WIKI_CATEGORY_MODES = ("one", "page")


@dataclasses.dataclass(frozen=True)
class CorpusSource:
    """Where documents come from: review files (Ni et al. 2019 layout) or a mined run's `sentences` stage."""

    reviews: tuple = ()
    category: str | None = None
    wiki_run: str | None = None
    wiki_category: str = "one"


def record_corpus(run, source):
    """Write `source` into `run` (CORPUS_FILE), so a later verb given only the McPhraSy run finds its corpus; a local
    mined run is recorded by its absolute path."""
    wiki_run = source.wiki_run and RunDir(source.wiki_run).location()
    write_atomically(run.join(CORPUS_FILE), json.dumps(dataclasses.asdict(dataclasses.replace(
        source, reviews=list(source.reviews), wiki_run=wiki_run)), indent=1, sort_keys=True))


def recorded_corpus(run):
    """The CorpusSource a McPhraSy run recorded (record_corpus), or None when it recorded none."""
    path = run.join(CORPUS_FILE)
    if not FileSystems.exists(path):
        return None
    with open_input(path) as fh:
        try:
            fields = json.loads(fh.read().decode("utf-8"))
            return CorpusSource(tuple(fields["reviews"]), fields["category"], fields["wiki_run"],
                                fields["wiki_category"])
        except (UnicodeDecodeError, ValueError, KeyError, TypeError):
            raise InputError(f"{path}: damaged; give the corpus again (--run MINED_RUN or --reviews FILES)") from None


def review_files(patterns):
    """The files the --reviews patterns match, sorted; a pattern matching nothing is an InputError."""
    files = []
    for pattern in patterns:
        found = FileSystems.match([pattern])[0].metadata_list
        if not found:
            raise InputError(f"--reviews {pattern}: no file matches; give JSON-lines review files (.json, .json.gz)")
        files += [m.path for m in found]
    return sorted(set(files))


def write_documents(run, source, beam_args=(), force=False):
    """The `mcphrasy-documents` stage of `run` from `source` (skipped when up to date), and `source` recorded in
    `run` (record_corpus); the stage's manifest."""
    if source.reviews:
        files = review_files(source.reviews)
        step = dict(transform=stages.ReadReviews, arguments={"category": source.category}, data={"paths": files},
                    inputs={"paths": [input_identity(f, "--reviews") for f in files]})
    else:
        wiki = RunDir(source.wiki_run or run.root)
        read = ("sentences", "clean") if source.wiki_category == "page" else ("sentences",)
        step = dict(transform=stages.WikiDocuments, arguments={"wiki_category": source.wiki_category},
                    inputs=dict(upstream(wiki, *read), **dump_inputs(wiki)),
                    reads=lambda p: tuple(read_stage(p, wiki, stage) for stage in read))
    manifest = run_stages(run, {stages.DOCUMENTS: "mcphrasy_document"}, **step,
                          pipeline_options=pipeline_options(beam_args), force=force)[stages.DOCUMENTS]
    if manifest["records"] == 0:
        raise InputError(f"{run.stage_dir(stages.DOCUMENTS)}: the corpus gave no documents "
                         f"(counters: {manifest.get('counters')}); check the --reviews files or the run's sentences")
    record_corpus(run, source)
    return manifest


def read_phrase_list(path):
    """The phrases of a list file (one per line, `#` comments), normalised and deduplicated in file order."""
    try:
        with open_input(path) as fh:
            raw = fh.read()
    except (OSError, FileNotFoundError) as err:
        raise InputError(f"--phrases {path}: cannot read it ({err}); give a text file with one phrase per line") from None
    lines = decode_text(raw, f"--phrases {path}").splitlines()
    phrases = []
    for line in lines:
        phrase = match.normalise_phrase(line)
        if phrase and not phrase.startswith("#") and phrase not in phrases:
            phrases.append(phrase)
    if not phrases:
        raise InputError(f"--phrases {path}: no phrases in it; write one phrase per line")
    return phrases


def corpus_sentences(p, run):
    """The documents stage as sentences: reviews are split with Punkt, mined sentences stay as they are."""
    documents = read_stage(p, run, stages.DOCUMENTS)
    if "paths" in run.read_manifest(stages.DOCUMENTS)["inputs"]:  # review files
        return documents | "review sentences" >> beam.FlatMap(stages.review_sentences)
    return documents


def retrieve_contexts(run, phrases_path, max_contexts=stages.MAX_CONTEXTS, seed=0, triplet_encoder=None,
                      beam_args=(), force=False, device="auto"):
    """The `mcphrasy-contexts` stage (and `mcphrasy-triplets` when an encoder is named, run on `device`);
    (manifests, phrases)."""
    if max_contexts < 1:
        raise InputError(f"--max-contexts {max_contexts}: give at least 1")
    phrases = read_phrase_list(phrases_path)
    manifests = run_stages(
        run, {stages.CONTEXTS: "mcphrasy_contexts"}, transform=stages.RetrieveContexts,
        arguments={"max_contexts": max_contexts, "seed": seed}, data={"phrases": phrases},
        inputs=dict(upstream(run, stages.DOCUMENTS), phrases=input_identity(phrases_path, "--phrases")),
        reads=lambda p: corpus_sentences(p, run), pipeline_options=pipeline_options(beam_args), force=force)
    if triplet_encoder:
        manifests.update(run_stages(
            run, {stages.TRIPLETS: "mcphrasy_triplet"}, transform=stages.ContextTriplets,
            arguments={"model_name": triplet_encoder, "seed": seed, "device": device},
            inputs=upstream(run, stages.CONTEXTS), reads=lambda p: read_stage(p, run, stages.CONTEXTS),
            pipeline_options=pipeline_options(beam_args), force=force))
    return manifests, phrases


def frequent_phrases(run, spacy_model, per_product=grouping.PER_PRODUCT, per_category=grouping.PER_CATEGORY,
                     beam_args=(), force=False):
    """The `mcphrasy-phrases` stage: each category's frequent, filtered noun phrases; its manifest."""
    return run_stages(
        run, {stages.PHRASES: "mcphrasy_phrase_count"}, transform=stages.FrequentPhrases,
        arguments={"spacy_model": spacy_model, "per_product": per_product, "per_category": per_category},
        inputs=upstream(run, stages.DOCUMENTS), reads=lambda p: read_stage(p, run, stages.DOCUMENTS),
        pipeline_options=pipeline_options(beam_args), force=force)[stages.PHRASES]


@dataclasses.dataclass(frozen=True)
class VectorOptions:
    """Phrase vectors for grouping: averaged word vectors of a word2vec / FastText text file, else the encoder's."""

    vectors_file: str | None = None
    encoder: str = BUNDLED_MODEL


def vectors_source(options):
    """What the groups were made with, in words (for the manifest and the card)."""
    if options.vectors_file:
        return f"averaged word vectors of `{options.vectors_file}`"
    return (f"phrase vectors of the sentence encoder `{options.encoder}` (stand-in for the paper's averaged "
            "word2vec; give `--vectors FILE` for word vectors)")


def phrase_vectors(phrases, options, device="auto"):
    """{phrase: unit vector}: the mean of its words' vectors in `options.vectors_file` (phrases with an unknown word
    have none), else the sentence encoder's embedding of the phrase on `device`."""
    if not options.vectors_file:
        return dict(zip(phrases, encode(load_sentence_model(options.encoder, device=device), phrases)))
    words = read_vectors_file(options.vectors_file, {w for p in phrases for w in p.split()})
    return grouping.phrase_vectors(phrases, words.get)


def build_groups(run, vector_options=VectorOptions(), max_groups=25, size=grouping.GROUP_SIZE,
                 near_duplicate=grouping.NEAR_DUPLICATE, force=False, device="auto", target=grouping.PAPER_GROUPS):
    """The `mcphrasy-groups` stage: seed + nearest phrases per category (at most `max_groups` each), overlapping
    groups dropped, then at most `target` over all categories taken in turn; its manifest (report: the vectors used,
    the target and the groups reached, and per category the groups and why seeds gave none); the encoder runs on
    `device`, which no fingerprint records (it changes where, not what)."""
    inputs = upstream(run, stages.PHRASES)
    if vector_options.vectors_file:
        inputs["vectors"] = input_identity(vector_options.vectors_file, "--vectors")
    options = dict(dataclasses.asdict(vector_options), max_groups=max_groups, size=size, near_duplicate=near_duplicate,
                   target=target)
    done = None if force else run.up_to_date(GROUPS, fingerprint(GROUPS, inputs, options))
    if done:
        return dict(done, skipped=True)
    by_category = {}
    for record in run.iter_records(stages.PHRASES):
        by_category.setdefault(record["category"], []).append(record)
    vectors = phrase_vectors(sorted({r["phrase"] for records in by_category.values() for r in records}),
                             vector_options, device)
    made, per_category, counts, phrase_vecs = {}, {}, {}, {}
    for category in sorted(by_category):
        ranked = [r["phrase"] for r in sorted(by_category[category], key=lambda r: r["rank"])]
        counts[category] = {r["phrase"]: r["count"] for r in by_category[category]}
        phrase_vecs[category] = {p: vectors[p] for p in ranked if p in vectors}
        made[category], reasons = grouping.category_groups(ranked, phrase_vecs[category], max_groups, size,
                                                           near_duplicate)
        per_category[category] = dict(reasons, phrases=len(ranked), groups=len(made[category]))
    kept = grouping.groups_in_turn(made, target)
    records = []
    for category, groups in kept.items():
        beyond_target = len(made[category]) - len(groups)
        per_category[category].update(groups=len(groups), **({"beyond-target": beyond_target} if beyond_target else {}))
        category_vectors = phrase_vecs[category]
        for group in groups:
            seed_vector = category_vectors[group[0]]
            records.append({"group_id": grouping.group_id(category, group[0]), "category": category, "seed": group[0],
                            "phrases": group, "counts": [counts[category][p] for p in group],
                            "similarities": [round(float(category_vectors[p] @ seed_vector), 6) for p in group]})
    report = {"vectors": vectors_source(vector_options), "target": target, "reached": len(records),
              "paper": grouping.PAPER_GROUPS, "categories": per_category}
    return run.write_stage(GROUPS, records, "mcphrasy_group", inputs=inputs, options=options, report=report)
