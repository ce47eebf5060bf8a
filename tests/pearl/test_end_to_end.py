"""`picforge pearl build` and `release` on a real mining run of the shared 103-page enwiki sample."""
import collections
import json
import logging
import os
import pathlib
import re
import shutil

import pytest

from companions.pearl import corpus
from companions.pearl.augment import CHARACTER_KINDS, indefinite_article
from companions.pearl.build import PearlOptions, build_corpus
from companions.pearl.constituents import LABELS, LEXICAL_TYPES
from companions.pearl.negatives import edit_similarity
from companions.pearl.release import read_jsonl, release_statistics
from companions.pearl.splits import split_of
from picforge import progress, schemas
from picforge.encoders import encode, load_sentence_model
from picforge.rundir import RunDir
from picforge.release_writer import SPLITS
from tests.cli_helpers import picforge
from tests.conftest import built_once
from tests.croissant_checks import check_croissant

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def pearl_103(mined_103, wordnet_root, tmp_path_factory):
    """The PEARL run directory built from the mined sample with the defaults (WordNet on, word vectors off); the
    progress lines it logged, one per item, are in `progress.log` beside it."""
    def build(folder):
        with pytest.MonkeyPatch.context() as patch, open(folder / "progress.log", "w", encoding="utf-8") as log:
            patch.setattr(progress, "INTERVAL_S", 0)
            handler = logging.StreamHandler(log)
            progress.log.addHandler(handler)
            try:
                assert picforge("pearl", "build", "--run", mined_103, "--out", folder / "run") == 0
            finally:
                progress.log.removeHandler(handler)

    return built_once(tmp_path_factory, "pearl103", build) / "run"


@pytest.fixture(scope="session")
def records_103(pearl_103):
    return list(RunDir(str(pearl_103)).iter_records(corpus.STAGE))


def test_typed_phrases_of_the_real_sample(records_103, mined_103):
    validator = schemas.validator("pearl_phrase")
    for record in records_103:
        validator.validate(record)
    assert len(records_103) > 1000
    assert all(r["count"] >= 2 and r["label"] in LABELS and r["label"] == f"{r['lexical_type']}-{r['entity_type']}"
               for r in records_103)
    assert {r["lexical_type"] for r in records_103} == set(LEXICAL_TYPES)
    assert len({r["entity_type"] for r in records_103}) > 10
    text = "\n".join(s["text"].lower() for s in RunDir(str(mined_103)).iter_records("sentences", columns=["text"]))
    assert all(r["phrase"].lower() in text for r in records_103)
    shares = collections.Counter(r["lexical_type"] for r in records_103)
    assert shares["NP"] > shares["PP"] > shares["ADVP"] > shares["ADJP"]  # the paper's order
    assert shares["ADVP"] > shares["VP"]
    assert 0.04 < shares["ADVP"] / len(records_103) < 0.07  # single adverbs kept (0.8 % when they were not)
    other = sum(r["entity_type"] == "OTHER" for r in records_103) / len(records_103)
    assert 0.6 < other < 0.885  # below the paper's 88.5 %: an entity covering half a phrase types it ("in Alaska")


def test_augmentations_of_every_kind(records_103):
    made = collections.Counter(a["kind"] for r in records_103 for a in r["augmentations"])
    assert all(made[kind] > 0.9 * len(records_103) for kind in CHARACTER_KINDS)
    assert made["token-swap"] > 0 and made["synonym-wordnet"] > 0 and made["synonym-embedding"] == 0
    assert all(a["text"] != r["phrase"] for r in records_103 for a in r["augmentations"])


SYNONYM_JUDGEMENTS = pathlib.Path(__file__).parent / "data" / "synonym_judgements.jsonl"
MIN_SYNONYM_PRECISION = 0.70  # the issue's target; the 100 judged replacements give the figure in docs/pearl.md


def test_wordnet_replacements_judged_by_hand_are_what_the_build_makes(records_103):
    judged = [json.loads(line) for line in SYNONYM_JUDGEMENTS.read_text(encoding="utf-8").splitlines()]
    made = {(r["phrase"], a["text"]) for r in records_103 for a in r["augmentations"] if a["kind"] == "synonym-wordnet"}
    current = [j for j in judged if (j["phrase"], j["replacement"]) in made]
    assert len(judged) == 100 and len(current) >= 90  # the judged sample is of this build
    assert sum(j["same_meaning"] for j in current) / len(current) >= MIN_SYNONYM_PRECISION
    articles = [(a["text"].split(" "), r["phrase"]) for r in records_103 for a in r["augmentations"]
                if a["kind"] == "synonym-wordnet"]
    assert all(indefinite_article(words[i + 1]) == words[i].lower()
               for words, _ in articles for i in range(len(words) - 1) if words[i].lower() in ("a", "an"))


def test_hard_negatives_look_alike_and_mean_something_else(records_103, mined_103):
    options = PearlOptions()
    phrases = {r["phrase"] for r in records_103}
    with_negatives = [r for r in records_103 if r["hard_negatives"]]
    assert len(with_negatives) > 1000
    pairs = [(r["phrase"], n) for r in with_negatives for n in r["hard_negatives"]]
    assert all(len(r["hard_negatives"]) <= options.negatives_k for r in with_negatives)
    assert all(n.lower() != p.lower() and edit_similarity(p, n) >= options.min_edit_similarity for p, n in pairs)
    assert sum(n in phrases and split_of(p, options.seed, options.ratios) != split_of(n, options.seed, options.ratios)
               for p, n in pairs) == 0  # a negative is a phrase of the same split or one seen once (no split)
    text = "\n".join(s["text"].lower() for s in RunDir(str(mined_103)).iter_records("sentences", columns=["text"]))
    assert all(n.lower() in text for _, n in pairs[:: max(1, len(pairs) // 200)])  # phrases of the corpus
    model = load_sentence_model(options.encoder)
    sample = pairs[:: max(1, len(pairs) // 40)]
    left, right = encode(model, [p for p, _ in sample]), encode(model, [n for _, n in sample])
    assert all(float(a @ b) <= options.max_cosine + 1e-4 for a, b in zip(left, right))


def test_the_build_says_how_far_it_got(pearl_103, mined_103):
    lines = (pearl_103.parent / "progress.log").read_text(encoding="utf-8").splitlines()
    sentences = RunDir(str(mined_103)).read_manifest("sentences")["records"]
    parsed = [line for line in lines if line.startswith("pearl-phrases: ") and " sentences parsed in " in line]
    assert parsed[-1].startswith(f"pearl-phrases: {sentences:,} sentences parsed in ")
    assert any(" phrases embedded in " in line for line in lines)


def test_rerun_is_skipped_and_changes_nothing(pearl_103, mined_103, capsys):
    run = RunDir(str(pearl_103))
    before = {path: os.path.getmtime(path) for path in run.output_files(corpus.STAGE)}
    assert picforge("pearl", "build", "--run", mined_103, "--out", pearl_103) == 0
    assert "up to date, skipped" in capsys.readouterr().out
    assert {path: os.path.getmtime(path) for path in run.output_files(corpus.STAGE)} == before


def test_release_splits_by_phrase_and_card_from_written_files(pearl_103, records_103, tmp_path, capsys):
    out = tmp_path / "release"
    assert picforge("pearl", "release", "--run", pearl_103, "--out", out) == 0
    splits = {split: read_jsonl(out / "data" / f"{split}.jsonl") for split in SPLITS}
    keys = {split: {row["phrase"].lower() for row in rows} for split, rows in splits.items()}
    assert not (keys["train"] & keys["validation"]) and not (keys["train"] & keys["test"])
    assert not (keys["validation"] & keys["test"])
    assert sum(len(rows) for rows in splits.values()) == len(records_103)
    stats = json.loads((out / "stats.json").read_text())
    counters = RunDir(str(pearl_103)).read_manifest(corpus.STAGE)["counters"]
    assert stats == json.loads(json.dumps(release_statistics(splits, counters)))
    split_of_phrase = {row["phrase"]: split for split, rows in splits.items() for row in rows}
    assert stats["hard_negatives_across_splits"] == 0 == sum(
        split_of_phrase.get(n, split) != split for split, rows in splits.items() for row in rows
        for n in row["hard_negatives"])
    coverage = stats["hard_negative_coverage"]
    assert coverage == {split: round(sum(bool(row["hard_negatives"]) for row in rows) / len(rows), 3)
                        for split, rows in splits.items()}
    # the same candidate budget in every split: validation and test get hard negatives nearly as often as train
    assert coverage["validation"] >= 0.8 * coverage["train"] and coverage["test"] >= 0.8 * coverage["train"]
    assert f"validation {coverage['validation']}" in (out / "README.md").read_text()
    for measure in ("cosine", "edit_similarity"):
        assert sum(stats["hard_negative_bins"][measure].values()) == stats["hard_negatives"]
    assert all(float(edge) < PearlOptions().max_cosine for edge in stats["hard_negative_bins"]["cosine"])
    card = (out / "README.md").read_text()
    assert f"{stats['hard_negatives_across_splits']} from another split" in card
    for lex, row in stats["lexical_types"].items():
        assert f"| {lex} | {row['phrases']} | {row['pct']} | {row['paper_pct']} |" in card
    assert (out / "plots" / "distributions.png").stat().st_size > 1000
    import datasets
    loaded = datasets.load_dataset("json", data_files={s: str(out / "data" / f"{s}.jsonl") for s in SPLITS})
    assert {s: loaded[s].num_rows for s in SPLITS} == stats["split_sizes"]
    assert set(loaded["train"].features) == {"phrase", "lexical_type", "entity_type", "label", "count",
                                             "augmentations", "hard_negatives"}
    metadata = check_croissant(out, tmp_path / "croissant-cache")
    assert "enwiki-sample-103pages.xml.bz2" in metadata["prov:wasDerivedFrom"][0]["description"]
    assert f"- hard negatives: encoder `{PearlOptions().encoder}`" in card
    assert metadata["rai:annotatorDemographics"] == ["not applicable: no human annotator"]
    assert picforge("pearl", "release", "--run", pearl_103, "--out", out) == 0
    assert "up to date, skipped" in capsys.readouterr().out
    # the sample's file name has no dump date, so its revisions' dates are unknown: CC BY-SA 4.0 holds for either
    assert "\nlicense: cc-by-sa-4.0\n" in card and ("## License\n\n`cc-by-sa-4.0`, worked out from what this release "
                                                    "redistributes. It redistributes: English Wikipedia text") in card
    assert picforge("pearl", "release", "--run", pearl_103, "--out", out, "--license", "cc-by-nc-4.0") == 2
    assert "English Wikipedia is redistributed under `cc-by-sa-4.0`" in capsys.readouterr().err
    assert picforge("pearl", "release", "--run", pearl_103, "--out", out, "--license", "cc-by-nc-4.0",
                    "--license-override", "phrases of two or three words carry no copyright") == 0
    assert "up to date" not in capsys.readouterr().out
    card = (out / "README.md").read_text()
    assert "\nlicense: cc-by-nc-4.0\n" in card and "chosen with --license against the redistributed" in card
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert manifest["license"] == "cc-by-nc-4.0"
    assert manifest["license_override"] == "phrases of two or three words carry no copyright"


def sentence_cut(mined_103, folder, keep, limit):
    """A mining run in `folder` whose `sentences` stage holds the first `limit` real sentences of the sample that
    `keep(text)` accepts: a build that only needs the corpus's shape parses a few, not all 12,000."""
    rows = [row for row in RunDir(str(mined_103)).iter_records("sentences") if keep(row["text"])][:limit]
    run = RunDir(str(folder))
    run.write_stage("sentences", rows, "sentence", inputs={"cut of": str(mined_103)}, options={"first": limit})
    return run


@pytest.fixture(scope="session")
def small_run(mined_103, tmp_path_factory):
    """A mining run directory holding the first 50 real sentences of the sample as its `sentences` stage."""
    return sentence_cut(mined_103, tmp_path_factory.mktemp("small") / "mined", lambda text: True, 50)


VECTOR_NEIGHBOURS = {"language": "tongue", "tongue": "language", "region": "area", "area": "region", "war": "conflict",
                     "conflict": "war"}


@pytest.fixture(scope="session")
def vector_word_run(mined_103, tmp_path_factory):
    """A mining run of the first 100 real sentences of the sample holding a word of VECTOR_NEIGHBOURS."""
    words = re.compile(r"\b(" + "|".join(VECTOR_NEIGHBOURS) + r")\b", re.IGNORECASE)
    return sentence_cut(mined_103, tmp_path_factory.mktemp("vector-words") / "mined", words.search, 100)


def test_same_seed_same_corpus_other_seed_other_augmentations(small_run, wordnet_root, tmp_path):
    options = PearlOptions(min_count=1)
    build_corpus(small_run.root, str(tmp_path / "a"), options)
    build_corpus(small_run.root, str(tmp_path / "b"), options)
    build_corpus(small_run.root, str(tmp_path / "c"), PearlOptions(min_count=1, seed=1))
    a, b, c = (list(RunDir(str(tmp_path / x)).iter_records(corpus.STAGE)) for x in "abc")
    assert a == b and len(a) > 100
    assert [r["phrase"] for r in a] == [r["phrase"] for r in c]
    assert [r["augmentations"] for r in a] != [r["augmentations"] for r in c]


def test_vector_synonyms_come_from_the_users_vectors_only(vector_word_run, wordnet_root, tmp_path):
    vec = tmp_path / "hand.vec"
    vec.write_text("6 3\nlanguage 1 0 0\ntongue 0.95 0.3 0\nregion 0 1 0\narea 0 0.95 0.3\nwar 0 0 1\n"
                   "conflict 0.3 0 0.95\n", encoding="utf-8")
    build_corpus(vector_word_run.root, str(tmp_path / "run"), PearlOptions(min_count=1, wordnet=None,
                                                                           vectors=str(vec)))
    replaced = [(r["phrase"], a["text"]) for r in RunDir(str(tmp_path / "run")).iter_records(corpus.STAGE)
                for a in r["augmentations"] if a["kind"] == "synonym-embedding"]
    assert len(replaced) > 5
    for phrase, text in replaced:
        (old, new), = [(a, b) for a, b in zip(phrase.split(" "), text.split(" "))
                       if a != b and a.lower() not in ("a", "an")]  # an "a"/"an" before it is fitted to the new word
        assert VECTOR_NEIGHBOURS[old.lower()] == new.lower(), (phrase, text)
    assert not any(a["kind"] == "synonym-wordnet" for r in RunDir(str(tmp_path / "run")).iter_records(corpus.STAGE)
                   for a in r["augmentations"])


def test_bad_input_is_one_line_and_exit_2(small_run, tmp_path, capsys):
    (tmp_path / "empty").mkdir()  # a folder beside --out, not around it (the output guard refuses that)
    cases = [
        (["--run", tmp_path / "nothing"], "no such run directory"),
        (["--run", small_run.root, "--parser", "benepar"], "benepar package is not installed"),
        (["--run", small_run.root, "--wordnet", tmp_path / "empty"], "not a WordNet database folder"),
        (["--run", small_run.root, "--vectors", tmp_path / "none.vec"], "no such word-vector file"),
        (["--run", small_run.root, "--min-tokens", "3", "--max-tokens", "2"], "need 1 <= min <= max"),
    ]
    broken = RunDir(str(tmp_path / "broken"))
    shutil.copytree(small_run.root, broken.root)
    with open(broken.output_files("sentences")[0], "wb") as fh:
        fh.write(b"not parquet")
    cases.append((["--run", broken.root], "part-00000-of-00001.parquet: not a readable Parquet file"))
    for argv, message in cases:
        assert picforge("pearl", "build", "--out", tmp_path / "out", *argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert not os.path.exists(tmp_path / "out" / corpus.STAGE)
