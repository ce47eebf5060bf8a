"""McPhraSy steps over a run directory: corpus documents, contexts (+ A.1 triplets), frequent phrases, groups."""
import dataclasses
import json

from apache_beam.io.filesystems import FileSystems

from companions.mcphrasy import grouping, match
from companions.mcphrasy.declarations import DOCUMENTS, PHRASES, Contexts, Documents, Groups, Phrases, Triplets
from picforge import stages
from picforge.encoders import encode, load_sentence_model
from picforge.errors import InputError
from picforge.files import open_input, write_atomically
from picforge.sheets import decode_text
from picforge.options import pipeline_options
from picforge.croissant import dump_inputs
from picforge.rundir import RunDir, input_identity
from picforge.spacy_models import default_spacy_model
from picforge.stage_jobs import declared_steps, run_steps
from picforge.word_vectors import read_vectors_file

CORPUS_FILE = "mcphrasy-corpus.json"  # in a McPhraSy run: the corpus its verbs read (a mined run or review files)


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
        sources = {"reviews": (files, [entry for f in files for entry in input_identity(f, "--reviews")])}
        elsewhere = {"sentences": None, "clean": None}
    else:
        wiki = RunDir(source.wiki_run or run.root)
        sources = {"dump": (None, dump_inputs(wiki).get("dump"))}
        elsewhere = {"sentences": wiki, "clean": wiki if source.wiki_category == "page" else None}
    steps = declared_steps(run, [Documents], source, sources, elsewhere)
    manifest = run_steps(run, steps, pipeline_options=pipeline_options(beam_args), force=force)[DOCUMENTS]
    if manifest["records"] == 0:
        raise InputError(f"{run.stage_dir(DOCUMENTS)}: the corpus gave no documents "
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


def read_reviews(run):
    """Whether the documents stage of `run` read review files (its sentences are then split with Punkt)."""
    return "reviews" in run.require(DOCUMENTS)["inputs"]


def retrieve_contexts(run, phrases_path, options, triplets=False, beam_args=(), force=False):
    """The `mcphrasy-contexts` stage (and `mcphrasy-triplets` when `triplets`) with `options` (holding the fields
    of both stages' Options); (manifests, phrases)."""
    phrases = read_phrase_list(phrases_path)
    sources = {"phrases": (phrases, input_identity(phrases_path, "--phrases")),
               "review_corpus": (read_reviews(run), None)}
    steps = declared_steps(run, [Contexts, Triplets] if triplets else [Contexts], options, sources)
    return run_steps(run, steps, pipeline_options=pipeline_options(beam_args), force=force), phrases


def frequent_phrases(run, options, beam_args=(), force=False):
    """The `mcphrasy-phrases` stage with `options` (PhrasesOptions; no spaCy model: the first installed English
    one): each category's frequent, filtered noun phrases; its manifest."""
    options = stages.options_for(Phrases, options)
    options = dataclasses.replace(options, spacy_model=options.spacy_model or default_spacy_model())
    return run_steps(run, declared_steps(run, [Phrases], options, {}),
                     pipeline_options=pipeline_options(beam_args), force=force)[PHRASES]


def vectors_source(options):
    """What the groups were made with, in words (for the manifest and the card)."""
    if options.vectors:
        return f"averaged word vectors of `{options.vectors}`"
    return (f"phrase vectors of the sentence encoder `{options.encoder}` (stand-in for the paper's averaged "
            "word2vec; give `--vectors FILE` for word vectors)")


def phrase_vectors(phrases, options):
    """{phrase: unit vector}: the mean of its words' vectors in `options.vectors` (phrases with an unknown word
    have none), else the sentence encoder's embedding of the phrase on the options' device."""
    if not options.vectors:
        return dict(zip(phrases, encode(load_sentence_model(options.encoder, device=options.device_spec()), phrases)))
    words = read_vectors_file(options.vectors, {w for p in phrases for w in p.split()})
    return grouping.phrase_vectors(phrases, words.get)


def build_groups(run, options=Groups.Options(), force=False):
    """The `mcphrasy-groups` stage with `options` (GroupsOptions): seed + nearest phrases per category (at most
    `max_groups` each), overlapping groups dropped, then at most `groups` over all categories taken in turn; its
    manifest (report: the vectors used, the target and the groups reached, and per category the groups and why
    seeds gave none)."""
    options = stages.options_for(Groups, options)
    vectors_file = {"vectors": input_identity(options.vectors, "--vectors")} if options.vectors else {}
    inputs = Groups.inputs(run, options, vectors_file)
    done = stages.current(run, Groups, options, inputs, force)
    if done:
        return done
    by_category = {}
    for record in run.iter_records(PHRASES):
        by_category.setdefault(record["category"], []).append(record)
    vectors = phrase_vectors(sorted({r["phrase"] for records in by_category.values() for r in records}), options)
    made, per_category, counts, phrase_vecs = {}, {}, {}, {}
    for category in sorted(by_category):
        ranked = [r["phrase"] for r in sorted(by_category[category], key=lambda r: r["rank"])]
        counts[category] = {r["phrase"]: r["count"] for r in by_category[category]}
        phrase_vecs[category] = {p: vectors[p] for p in ranked if p in vectors}
        made[category], reasons = grouping.category_groups(ranked, phrase_vecs[category], options.max_groups,
                                                           options.group_size, options.near_duplicate)
        per_category[category] = dict(reasons, phrases=len(ranked), groups=len(made[category]))
    kept = grouping.groups_in_turn(made, options.groups)
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
    report = {"vectors": vectors_source(options), "target": options.groups, "reached": len(records),
              "paper": grouping.PAPER_GROUPS, "categories": per_category}
    return stages.write(run, Groups, records, options, inputs=inputs, report=report)
