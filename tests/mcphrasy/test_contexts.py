"""`picforge mcphrasy contexts` end to end on real text: the 103-page enwiki sample and a Ni et al. reviews file."""
import json
import os
import re
import shutil

import numpy as np
import pytest

from companions.mcphrasy import triplets
from companions.mcphrasy.stages import CONTEXTS, DOCUMENTS, TRIPLETS
from companions.mcphrasy.release import input_terms
from companions.mcphrasy.workflow import CORPUS_FILE
from picforge import progress
from picforge.encoders import encode, load_sentence_model
from picforge.rundir import RunDir
from tests.cli_helpers import picforge

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PHRASES = "# phrases to look up\nUnited States\nlanguage family\nalkali metal\nthe\n\nno such phrase here\nunited  states\n"


def oracle(phrase):
    """An independent matcher: the phrase, any case, not inside a longer run of letters or digits."""
    return re.compile(r"(?<![^\W_])" + re.escape(phrase) + r"(?![^\W_])", re.IGNORECASE)


@pytest.fixture
def phrase_file(tmp_path):
    path = tmp_path / "phrases.txt"
    path.write_text(PHRASES, encoding="utf-8")
    return path


def contexts_of(run):
    return {r["phrase"]: r for r in RunDir(str(run)).iter_records(CONTEXTS)}


@pytest.mark.slow
def test_contexts_of_the_real_sample_match_an_independent_regex(wiki_run, phrase_file, tmp_path):
    out = tmp_path / "run"
    assert picforge("mcphrasy", "contexts", "--phrases", phrase_file, "--run", wiki_run, "--out", out,
                    "--max-contexts", 40) == 0
    found = contexts_of(out)
    assert sorted(found) == ["alkali metal", "language family", "the", "united states"]
    sentences = list(RunDir(str(wiki_run)).iter_records("sentences"))
    manifest = RunDir(str(out)).read_manifest(CONTEXTS)
    assert manifest["counters"][f"{CONTEXTS}/sentences"] == len(sentences) > 10000
    for phrase, record in found.items():
        holding = {s["sentence_id"] for s in sentences if oracle(phrase).search(s["text"])}
        assert record["n_sentences"] == len(holding) >= 2
        assert len(record["contexts"]) == min(40, len(holding))
        for context in record["contexts"]:
            assert context["sentence_id"] in holding
            assert [tuple(span) for span in context["spans"]] == [
                m.span() for m in oracle(phrase).finditer(context["text"])]  # every occurrence, none overlapping
            assert context["masked"] == oracle(phrase).sub("[MASK]", context["text"])
            assert context["product"] == context["sentence_id"].split(":")[0] and context["category"] == "wikipedia"
    assert found["the"]["n_sentences"] > 5000
    assert any(len(c["spans"]) > 1 for c in found["the"]["contexts"])


@pytest.mark.slow
def test_contexts_are_a_seeded_sample_and_a_rerun_changes_nothing(wiki_run, phrase_file, tmp_path, monkeypatch):
    runs = {name: tmp_path / name for name in ("a", "b", "c")}
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        assert picforge("mcphrasy", "contexts", "--phrases", phrase_file, "--run", wiki_run, "--out", runs[name],
                        "--max-contexts", 5, "--seed", seed) == 0
    assert contexts_of(runs["a"]) == contexts_of(runs["b"])
    assert contexts_of(runs["a"])["the"]["contexts"] != contexts_of(runs["c"])["the"]["contexts"]
    before = RunDir(str(runs["a"])).read_manifest(CONTEXTS)
    # the McPhraSy run alone: its recorded corpus, read from another directory
    monkeypatch.chdir(tmp_path / "b")
    assert picforge("mcphrasy", "contexts", "--phrases", phrase_file, "--run", runs["a"], "--max-contexts", 5) == 0
    assert RunDir(str(runs["a"])).read_manifest(CONTEXTS) == before
    assert json.loads((runs["a"] / CORPUS_FILE).read_text())["wiki_run"] == os.path.abspath(wiki_run)


@pytest.mark.slow
def test_a1_triplets_draw_negatives_for_each_anchor(groups_run, wiki_run, tmp_path, capsys, caplog, monkeypatch):
    # the sample's 120 most frequent noun phrases, 4 contexts each: more candidate negatives than the 300 drawn
    frequent = sorted(RunDir(str(groups_run)).iter_records("mcphrasy-phrases"), key=lambda p: p["rank"])[:120]
    phrases = tmp_path / "phrases.txt"
    phrases.write_text("".join(p["phrase"] + "\n" for p in frequent), encoding="utf-8")
    out = shutil.copytree(groups_run, tmp_path / "run")
    capsys.readouterr()
    monkeypatch.setattr(progress, "INTERVAL_S", 0)  # a progress line per item, as every 30 s on a long run
    assert picforge("mcphrasy", "contexts", "--phrases", phrases, "--run", out, "--max-contexts", 4, "--triplets") == 0
    found = contexts_of(out)
    made = {t["phrase"]: t for t in RunDir(str(out)).iter_records(TRIPLETS)}
    logged = [r.getMessage() for r in caplog.records if r.name == progress.log.name]
    searched = RunDir(str(wiki_run)).read_manifest("sentences")["records"]
    assert any(line.startswith(f"mcphrasy-contexts: {searched:,} sentences searched in ") for line in logged)
    assert any(line.startswith(f"mcphrasy-triplets: {len(found):,} phrases in ") for line in logged)
    assert sorted(made) == sorted(p for p, r in found.items() if len(r["contexts"]) >= 2)
    candidates = sorted(((c, p) for p, r in found.items() for c in r["contexts"]),
                        key=lambda item: (item[0]["sentence_id"], item[1]))
    assert len(candidates) > 400
    model = load_sentence_model()
    vector_of = dict(zip([c["masked"] for c, _ in candidates], encode(model, [c["masked"] for c, _ in candidates])))
    draws = set()
    for phrase, triplet in made.items():
        pair = [vector_of[triplet["anchor"]["masked"]], vector_of[triplet["positive"]["masked"]]]
        contexts = np.stack([vector_of[c["masked"]] for c in found[phrase]["contexts"]])
        assert pair[0] @ pair[1] == pytest.approx((contexts @ contexts.T).min(), abs=1e-5)  # the most distant pair
        order = triplets.anchor_generator(0, phrase).permutation(len(candidates))
        drawn = [candidates[i] for i in order if not oracle(phrase).search(candidates[i][0]["text"])][:300]
        draws.add(frozenset((c["sentence_id"], p) for c, p in drawn))
        assert (triplet["negative"], triplet["negative_phrase"]) in drawn
        assert not oracle(phrase).search(triplet["negative"]["text"])
        closest = max(max(vector_of[c["masked"]] @ v for v in pair) for c, _ in drawn)
        negative = vector_of[triplet["negative"]["masked"]]
        assert max(negative @ v for v in pair) == pytest.approx(closest, abs=1e-5)
        assert negative @ pair[0] >= negative @ pair[1] - 1e-6  # the anchor is the one closer to the negative
    assert len(draws) == len(made)  # a draw of its own for every anchor
    distinct = triplets.distinct_negatives(made.values())
    assert f"{len(made)} triplets ({distinct} distinct negatives)" in capsys.readouterr().out
    assert distinct / len(made) >= 0.75


@pytest.mark.slow
def test_reviews_in_the_ni_layout_with_bad_rows_counted(reviews_file, tmp_path):
    phrases = tmp_path / "phrases.txt"
    phrases.write_text("business cards\npaint brushes\n", encoding="utf-8")
    out = tmp_path / "run"
    assert picforge("mcphrasy", "contexts", "--phrases", phrases, "--reviews", reviews_file, "--out", out) == 0
    run = RunDir(str(out))
    assert run.read_manifest(DOCUMENTS)["counters"] == {
        f"{DOCUMENTS}/kept": 4, f"{DOCUMENTS}/skipped-bad-json": 2, f"{DOCUMENTS}/skipped-no-asin": 1,
        f"{DOCUMENTS}/skipped-no-review-text": 1}
    categories = {d["product"]: d["category"] for d in run.iter_records(DOCUMENTS)}
    assert categories == {"B001": "Office Products", "B002": "Office Products", "B003": "Arts, Crafts & Sewing"}
    (terms,) = input_terms(run.read_manifest(DOCUMENTS))  # a release of it names the review files, not Wikipedia
    assert terms.used == f"review files {reviews_file.name}"
    found = contexts_of(out)
    assert sorted(c["text"] for c in found["business cards"]["contexts"]) == [
        "Great business cards for the price.",
        "The Business Cards pack was fine; business-cards-holder not included.",
        "The business cards fit my card holder, and the card stock is thick.",
        "These business cards print cleanly."]
    [brushes] = found["paint brushes"]["contexts"]
    assert (len(brushes["spans"]), brushes["product"]) == (2, "B003")
    assert brushes["masked"] == "The [MASK] are soft and the [MASK] clean easily."


def test_unreadable_inputs_are_one_line_errors(reviews_file, tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n", encoding="utf-8")
    assert picforge("mcphrasy", "contexts", "--phrases", empty, "--reviews", reviews_file, "--out", tmp_path / "r1") == 2
    assert capsys.readouterr().err.strip() == f"picforge: error: --phrases {empty}: no phrases in it; write one phrase per line"
    junk = tmp_path / "Junk.json"
    junk.write_text("not json\n[1, 2]\n", encoding="utf-8")
    assert picforge("mcphrasy", "contexts", "--phrases", empty, "--reviews", junk, "--out", tmp_path / "r2") == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("picforge: error: ") and "the corpus gave no documents" in error and "\n" not in error
    assert picforge("mcphrasy", "contexts", "--phrases", empty, "--out", tmp_path / "r3") == 2
    assert capsys.readouterr().err.strip() == (
        "picforge: error: give --run MINED_RUN (the corpus) and --out NEW_RUN (the McPhraSy run to create), or "
        "--reviews FILES and --out NEW_RUN")


@pytest.mark.slow
def test_a_truncated_gzip_keeps_the_rows_before_the_damage(reviews_file, tmp_path):
    damaged = tmp_path / "Office_Products_5.json.gz"
    damaged.write_bytes(reviews_file.read_bytes()[:-60])
    phrases = tmp_path / "phrases.txt"
    phrases.write_text("business cards\n", encoding="utf-8")
    assert picforge("mcphrasy", "contexts", "--phrases", phrases, "--reviews", damaged, "--out", tmp_path / "run") == 0
    counters = RunDir(str(tmp_path / "run")).read_manifest(DOCUMENTS)["counters"]
    assert counters[f"{DOCUMENTS}/skipped-unreadable-file"] == 1 and counters[f"{DOCUMENTS}/kept"] >= 2


@pytest.mark.slow
def test_page_categories_of_a_mined_run_read_from_another_directory(wiki_run, tmp_path):
    phrases = tmp_path / "phrases.txt"
    phrases.write_text("language family\n", encoding="utf-8")
    out = tmp_path / "run"
    assert picforge("mcphrasy", "contexts", "--phrases", phrases, "--run", wiki_run, "--out", out,
                    "--wiki-category", "page") == 0
    first = {str(p["page_id"]): (p["categories"] or ["wikipedia"])[0] for p in RunDir(str(wiki_run)).iter_records("clean")}
    contexts = contexts_of(out)["language family"]["contexts"]
    assert contexts and all(c["category"] == first[c["product"]] for c in contexts)
    assert "Afroasiatic languages" in {c["category"] for c in contexts}
    assert not (tmp_path / "run" / "sentences").exists()  # the corpus run is only read
