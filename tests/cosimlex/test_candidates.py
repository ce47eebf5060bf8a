"""`cosimlex candidates` for real: Beam over the sentences `picforge mine` wrote of a synthetic dump with planted
contexts and of the enwiki sample."""
import json

import apache_beam as beam
import spacy
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from companions.cosimlex.simlex import parse_simlex
from companions.cosimlex.candidate_pipeline import CANDIDATES, CONTEXTS, FindContexts
from picforge.cli import main
from picforge.rundir import RunDir
from tests.cosimlex.conftest import SPACY_MODEL

ENWIKI_PAGE_IDS = {217916, 3277686, 316, 9391, 4702}


def records(run, stage):
    return list(RunDir(str(run)).iter_records(stage))


def surface(context, word):
    return context["context"][context[f"{word}_start"]:context[f"{word}_end"]]


def test_planted_contexts_are_found_through_lemmas(candidates_run):
    planted = [c for c in records(candidates_run, CONTEXTS) if c["page_id"] < 1000]
    found = {c["context_id"]: (surface(c, "word1"), surface(c, "word2")) for c in planted}
    assert found == {
        "child|adult@101:0": ("children", "adult"),
        "child|adult@101:1": ("children", "adult"),
        "child|adult@102:0": ("child", "adult"),
        "child|adult@103:0": ("child", "adult"),
        "child|adult@107:0": ("child", "adult"),
        "run|walk@104:0": ("ran", "walked"),
        "run|walk@104:3": ("runs", "walk"),
    }
    first = next(c for c in planted if c["context_id"] == "child|adult@101:0")
    assert first["context"] == ("Many families keep pets at home. The children often feed the animals after school. "
                                "Every adult in the house shares the cleaning duties.")
    assert first["sentence_ids"] == ["101:0", "101:1", "101:2"]
    assert first["simlex"] == 5.2 and first["pos"] is None


def test_a_word_twice_or_a_paragraph_boundary_rejects_the_window(candidates_run):
    ids = {c["context_id"] for c in records(candidates_run, CONTEXTS) if c["page_id"] < 1000}
    assert "child|adult@101:4" not in ids  # "children" twice in the Music paragraph
    assert not any(i.startswith("river|lake@") for i in ids)  # river twice; the other window spans paragraphs


def test_candidates_are_the_encoders_extremes_without_overlapping_windows(candidates_run):
    candidates = [c for c in records(candidates_run, CANDIDATES) if c["page_id"] < 1000]
    child = [c for c in candidates if c["pair_id"] == "child|adult"]
    assert len(child) == 4  # five contexts, two of them the same two occurrences
    assert len({tuple(c["occurrences"]) for c in child}) == 4
    assert {c["context_id"] for c in child} >= {"child|adult@102:0", "child|adult@103:0"}
    walk = [c for c in candidates if c["pair_id"] == "run|walk"]
    assert {c["context_id"] for c in walk} == {"run|walk@104:0", "run|walk@104:3"}
    for candidate in child + walk:
        assert {s["encoder"] for s in candidate["scores"]} == {"minilm", "tok2vec"}
        assert all(-1.0 <= s["similarity"] <= 1.0 for s in candidate["scores"])
        assert candidate["picked_by"].split(":")[1] in ("most", "least")
    minilm = {c["context_id"]: next(s["similarity"] for s in c["scores"] if s["encoder"] == "minilm") for c in walk}
    most = next(c["context_id"] for c in walk if c["picked_by"] == "minilm:most")
    assert minilm[most] == max(minilm.values())


def test_enwiki_sample_contexts_hold_each_word_once(candidates_run, enwiki_sample):
    real = [c for c in records(candidates_run, CONTEXTS) if c["page_id"] in ENWIKI_PAGE_IDS]
    # the sample's river|lake windows had *river* only in "Fox River" (the prison of Prison Break): a proper name
    assert {c["pair_id"] for c in real} == {"government|parliament"}
    nlp = spacy.load(SPACY_MODEL)
    for context in real:
        idx = [int(s.split(":")[1]) for s in context["sentence_ids"]]
        assert idx == list(range(idx[0], idx[0] + 3))
        doc = nlp(context["context"])
        for word in ("word1", "word2"):
            # a use of the word: its form, its lemma or its regular plural / third person (whatever the lemma
            # says), but not a part of a multi-word proper name ("Fox River" is no river)
            forms = {context[word], context[word] + "s", context[word] + "es"}
            names = {t.i for t in doc if t.pos_ == "PROPN" and any(
                0 <= i < len(doc) and doc[i].pos_ == "PROPN" for i in (t.i - 1, t.i + 1))}
            hits = [t for t in doc if t.i not in names and (t.lower_ in forms or t.lemma_.lower() == context[word])]
            assert len(hits) == 1, (context[word], context["context"])
            assert (hits[0].idx, hits[0].idx + len(hits[0])) == (context[f"{word}_start"], context[f"{word}_end"])
    manifest = RunDir(str(candidates_run)).read_manifest(CONTEXTS)
    assert manifest["counters"]["cosimlex-contexts/windows"] > 300
    assert manifest["records"] == len(records(candidates_run, CONTEXTS))


def test_rerun_skips_up_to_date_stages(candidates_run, mined_run, simlex_file, capsys):
    manifest_path = RunDir(str(candidates_run)).manifest_path(CANDIDATES)
    before = json.loads(open(manifest_path).read())
    assert main(["cosimlex", "candidates", "--pairs", str(simlex_file), "--run", str(mined_run),
                 "--out", str(candidates_run), "--spacy-model", SPACY_MODEL]) == 0
    assert json.loads(open(manifest_path).read()) == before
    assert "candidates for" in capsys.readouterr().out


def test_the_run_records_the_mined_sentences_and_dump_it_read(candidates_run, mined_run, dump_dir):
    mined = RunDir(str(mined_run))
    for stage in (CONTEXTS, CANDIDATES):
        inputs = RunDir(str(candidates_run)).read_manifest(stage)["inputs"]
        assert inputs["sentences"] == mined.read_manifest("sentences")["fingerprint"]
        assert inputs["dump"] == mined.read_manifest("read-dump")["inputs"]["dump"]
        assert {f["path"].rsplit("/", 1)[1] for f in inputs["dump"]} == {p.name for p in dump_dir.glob("*.xml.bz2")}


def test_windows_holding_a_sentence_mining_flagged_broken_are_no_contexts(candidates_run, mined_run):
    flagged = {s["sentence_id"] for s in RunDir(str(mined_run)).iter_records("sentences") if s["broken"]}
    assert "108:1" in flagged  # "The adult arrives later than." (cut)
    contexts = records(candidates_run, CONTEXTS)
    assert not any(set(c["sentence_ids"]) & flagged for c in contexts)
    assert not any(c["page_id"] == 108 for c in contexts)
    counters = RunDir(str(candidates_run)).read_manifest(CONTEXTS)["counters"]
    assert counters["cosimlex-contexts/dropped-broken-sentence"] >= 1


def test_low_resource_run_filters_malformed_contexts(mined_run, simlex_file, tmp_path):
    out = tmp_path / "run"
    assert main(["cosimlex", "candidates", "--pairs", str(simlex_file), "--out", str(out), "--low-resource",
                 "--run", str(mined_run), "--scorer", "tok2vec", "--spacy-model", SPACY_MODEL]) == 0
    run = RunDir(str(out))
    manifest = run.read_manifest(CONTEXTS)
    assert manifest["options"]["per_encoder"] == 4 and manifest["options"]["low_resource"] is True
    assert manifest["options"]["scorer"] == ["tok2vec"]
    assert manifest["counters"]["cosimlex-contexts/malformed-short-sentence"] >= 1
    assert "child|adult@107:0" not in {c["context_id"] for c in records(out, CONTEXTS)}
    picked = [c["picked_by"] for c in records(out, CANDIDATES) if c["pair_id"] == "child|adult"]
    assert len(picked) == 3 and {p.split(":")[0] for p in picked} == {"tok2vec"}


def test_bad_inputs_are_one_clear_line(tmp_path, mined_run, capsys):
    bad = tmp_path / "pairs.txt"
    bad.write_text("word1 word2 score\nchild adult 5\ncup mug high\n")
    mined, out = str(mined_run), str(tmp_path / "run")
    code = main(["cosimlex", "candidates", "--pairs", str(bad), "--run", mined, "--out", out])
    assert code == 2
    assert f"{bad}: line 3: score 'high' is not a number" in capsys.readouterr().err
    code = main(["cosimlex", "candidates", "--pairs", str(tmp_path / "missing.txt"), "--run", mined, "--out", out])
    assert code == 2 and "missing.txt: no such file" in capsys.readouterr().err
    bad.write_text("child adult 5\n")
    for encoders, said in ((["minilm", "elmo"], "--scorer elmo: no encoder here"),
                           (["minilm,tok2vec"], "one --scorer per encoder")):
        code = main(["cosimlex", "candidates", "--pairs", str(bad), "--run", mined, "--out", out,
                     *[flag for name in encoders for flag in ("--scorer", name)]])
        assert code == 2 and said in capsys.readouterr().err
    code = main(["cosimlex", "candidates", "--pairs", str(bad), "--run", mined, "--out", str(mined_run / "cosimlex")])
    assert code == 2 and "the output sits inside the run" in capsys.readouterr().err
    assert not (mined_run / "cosimlex").exists()
    unmined = tmp_path / "unmined"
    unmined.mkdir()
    code = main(["cosimlex", "candidates", "--pairs", str(bad), "--run", str(unmined), "--out", out])
    assert code == 2 and f"run `picforge mine --input DUMP --wic WIC_ZIP --out {unmined}` first" in (
        capsys.readouterr().err)
    assert not (tmp_path / "run" / CONTEXTS).exists()


def sentence(page_id, idx, text, paragraph=0, broken=""):
    return {"sentence_id": f"{page_id}:{idx}", "page_id": page_id, "idx": idx, "paragraph": paragraph,
            "text": text, "n_words": len(text.split()), "broken": broken}


def test_flagged_windows_never_and_malformed_ones_in_low_resource_mode_are_dropped():
    pairs = parse_simlex(["child adult 5"])
    clean = [sentence(1, 0, "Schools group their pupils by age."), sentence(1, 1, "A child learns to read early."),
             sentence(1, 2, "Teachers meet an adult from each family.")]
    malformed = [sentence(2, 0, "thumb|left|A child at school"), sentence(2, 1, "An adult"),
                 sentence(2, 2, "1990 2001 2004 12 14")]
    flagged = [sentence(3, 0, "A child waits at the gate."), sentence(3, 1, "The adult arrives later than.",
                                                                       broken="cut-sentence"),
               sentence(3, 2, "The bus leaves at noon.")]
    for low_resource, expected in ((False, ["child|adult@1:0", "child|adult@2:0"]), (True, ["child|adult@1:0"])):
        with test_pipeline.TestPipeline() as pipeline:
            found = (pipeline | beam.Create(clean + malformed + flagged)
                     | FindContexts(pairs, SPACY_MODEL, low_resource) | beam.Map(lambda c: c["context_id"]))
            assert_that(found, equal_to(expected))


def test_unknown_local_model_is_reported_before_the_pipeline(tmp_path, mined_run, simlex_file, capsys):
    code = main(["cosimlex", "candidates", "--pairs", str(simlex_file), "--run", str(mined_run),
                 "--out", str(tmp_path), "--scorer", "hf:/nonexistent-model-folder"])
    assert code == 2 and "hf:LOCAL_FOLDER" in capsys.readouterr().err
