"""`stsb-context eval` with the real bundled all-MiniLM-L6-v2 and a hand-made GloVe file on generated contexts around
shared STS-B rows."""
import pathlib
import re

import numpy as np
import pytest

from companions.stsb_context import evaluate, significance, spans
from companions.stsb_context.glove import WordVectorEncoder
from picforge.encoders import BUNDLED_MODEL, resolve_model_path
from picforge.rundir import RunDir

pytestmark = pytest.mark.slow
MAX_SPAN = 6
ROWS = 8
# GloVe text format (no header line), 4 dimensions, 35 words of the first rows and their generated contexts
HAND_GLOVE = pathlib.Path(__file__).parent / "data" / "hand-glove.vec"


@pytest.fixture
def released(picforge, stsb_file, openai_server, tmp_path):
    """A run directory whose dataset holds the first 8 shared STS-B rows (both annotators answered N throughout)."""
    server = openai_server(faults={})
    out, stsb = tmp_path / "run", tmp_path / "sts-test.csv"
    stsb.write_text("\n".join(stsb_file.read_text(encoding="utf-8").splitlines()[:ROWS + 1]) + "\n", encoding="utf-8")
    assert picforge("stsb-context", "generate", "--stsb", stsb, "--out", out, "--base-url", server.base_url) == 0
    assert picforge("stsb-context", "export", "validation", "--run", out) == 0
    sheets = []
    for name in ("annotator-1", "annotator-2"):
        text = (out / "validation" / f"{name}.csv").read_text(encoding="utf-8-sig").splitlines()
        sheets.append(tmp_path / f"{name}.csv")
        sheets[-1].write_text("\n".join([text[0]] + [line.replace(",,", ",N,", 1) if line.endswith(",,") else line
                                                     for line in text[1:]]) + "\n", encoding="utf-8")
    assert picforge("stsb-context", "ingest", "validation", "--run", out, "--sheets", *sheets) == 0
    assert RunDir(str(out)).count_rows("dataset") == ROWS
    return out


def test_eval_all_setups_with_minilm(released, picforge, capsys, tmp_path):
    assert picforge("stsb-context", "evaluate", "--run", released, "--max-span", MAX_SPAN) == 0
    table = capsys.readouterr().out
    run = RunDir(str(released))
    rows = list(run.iter_records("dataset"))
    results = {}
    for setup in evaluate.SETUPS:
        manifest = run.read_manifest(f"eval-{setup}")
        scored = list(run.iter_records(f"eval-{setup}"))
        assert [r["score"] for r in scored] == [r["score"] for r in rows]
        assert manifest["metrics"] == {**spans.correlations([r["score"] for r in scored],
                                                            [r["prediction"] for r in scored]), "n": ROWS}
        assert f"{'eval-' + setup:<24} {manifest['encoder']:<24} {manifest['metrics']['pearson']:>8.3f}" in table
        results[setup] = (manifest, scored)

    for row, scored in zip(rows, results["full"][1]):
        assert (scored["best_span"], scored["best_span_start"]) == (row["context"], 0)
    for setup in evaluate.SPAN_SETUPS:
        assert results[setup][0]["options"] == {"source": "dataset", "encoder": resolve_model_path(BUNDLED_MODEL),
                                                "precision": "fp32", "min_span": 1, "max_span": MAX_SPAN}
        for row, scored in zip(rows, results[setup][1]):
            start, span = scored["best_span_start"], scored["best_span"]
            assert row["context"][start:start + len(span)] == span
            assert len(spans.word_offsets(span)) <= MAX_SPAN and -1.0 <= scored["prediction"] <= 1.0 + 1e-6
    assert all(s["prediction"] >= 0 for s in results["bm25"][1])

    # a forward pass per n-gram sees the target phrase on its own among its candidates, so its best span is at
    # least as similar to the origin as the target phrase itself (when the phrase fits in MAX_SPAN words)
    encoder = evaluate.Encoder(resolve_model_path(BUNDLED_MODEL))
    short = [i for i, r in enumerate(rows) if len(spans.word_offsets(r["target_phrase"])) <= MAX_SPAN]
    assert len(short) == ROWS - 1  # "a group of boys are playing soccer on the beach" is longer
    origins = encoder.sentences(rows[i]["origin_phrase"] for i in short)
    targets = encoder.sentences(rows[i]["target_phrase"] for i in short)
    for i, origin, target in zip(short, origins, targets):
        assert results["ngram-forward"][1][i]["prediction"] >= spans.cosine(origin, target)[0] - 1e-5


    assert picforge("stsb-context", "evaluate", "--run", released, "--max-span", MAX_SPAN, "--setup", "bm25") == 0
    assert run.read_manifest("eval-bm25")["fingerprint"] == results["bm25"][0]["fingerprint"]

    # the card shows the rows that ran and says which of the paper's did not
    assert picforge("stsb-context", "release", "--run", released, "--out", tmp_path / "release") == 0
    card = (tmp_path / "release" / "README.md").read_text(encoding="utf-8")
    evaluation = card.split("## Evaluation (SLICE Table 1)\n", 1)[1].split("\n## ", 1)[0]
    for setup in evaluate.SETUPS:
        pearson = results[setup][0]["metrics"]["pearson"]
        assert f"| {setup} | {results[setup][0]['encoder']} | {pearson:.3f} |" in evaluation
    assert "the GloVe rows (full, ngram-single): no word vectors were given (`--vectors`)" in evaluation


def read_glove(path):
    """{word: vector} of a GloVe text file, read here without picforge."""
    return {line.split()[0]: np.array(line.split()[1:], dtype=float)
            for line in path.read_text(encoding="utf-8").splitlines()}


def test_glove_rows_and_williams_comparison(released, picforge, capsys, tmp_path):
    assert picforge("stsb-context", "evaluate", "--run", released, "--max-span", MAX_SPAN, "--vectors", HAND_GLOVE) == 0
    table = capsys.readouterr().out
    run = RunDir(str(released))
    rows = list(run.iter_records("dataset"))
    assert run.read_manifest("eval-glove-full") and run.read_manifest("eval-glove-ngram-single")
    assert run.read_manifest("eval-glove-ngram-forward") is None and run.read_manifest("eval-glove-bm25") is None

    # full: the cosine of the mean vectors of origin and context, computed here from the file (rows whose words
    # are plain letters, where a letters-or-punctuation split is the same tokenisation); unknown words add nothing
    glove = read_glove(HAND_GLOVE)

    def mean_vector(text):
        found = [glove.get(t, glove.get(t.lower())) for t in re.findall(r"[A-Za-z]+|[^\w\s]", text)]
        return np.mean([v for v in found if v is not None], axis=0)

    full = list(run.iter_records("eval-glove-full"))
    plain = [i for i, r in enumerate(rows) if not re.search(r"[\d'’-]", r["origin_phrase"] + r["context"])]
    assert len(plain) == ROWS - 1  # "another woman's ankle" has an apostrophe
    for i in plain:
        origin, context = mean_vector(rows[i]["origin_phrase"]), mean_vector(rows[i]["context"])
        expected = origin @ context / np.linalg.norm(origin) / np.linalg.norm(context)
        assert full[i]["prediction"] == pytest.approx(expected, abs=1e-6)

    # ngram-single: the best span is in the context, at most MAX_SPAN words, and its own mean vector gives the score;
    # with static vectors no span of the context beats it, the target phrase's included
    encoder = WordVectorEncoder(str(HAND_GLOVE))
    encoder.load([t for r in rows for t in (r["origin_phrase"], r["context"])])
    single = list(run.iter_records("eval-glove-ngram-single"))
    for row, scored in zip(rows, single):
        start, span = scored["best_span_start"], scored["best_span"]
        assert row["context"][start:start + len(span)] == span and len(spans.word_offsets(span)) <= MAX_SPAN
        origin, found = encoder.sentences([row["origin_phrase"], span])
        assert scored["prediction"] == pytest.approx(spans.cosine(origin, found[None])[0], abs=1e-5)
        if len(spans.word_offsets(row["target_phrase"])) <= MAX_SPAN:
            target = encoder.sentences([row["target_phrase"].rstrip(".")])[0]
            assert scored["prediction"] >= spans.cosine(origin, target[None])[0] - 1e-5

    # the comparison: every row of this run, each tested against the best Pearson row of its setup and of all
    comparison = {r["stage"]: r for r in run.iter_records(evaluate.COMPARISON)}
    assert set(comparison) == {f"eval-{s}" for s in evaluate.SETUPS} | {"eval-glove-full", "eval-glove-ngram-single"}
    gold = [r["score"] for r in rows]
    predictions = {stage: [r["prediction"] for r in run.iter_records(stage)] for stage in comparison}
    best = max(comparison, key=lambda s: comparison[s]["pearson"])
    for stage, row in comparison.items():
        assert row["best_in_all"] == best and row["n"] == ROWS
        if stage != best:
            expected = significance.williams_test(spans.pearson(gold, predictions[best]),
                                                  spans.pearson(gold, predictions[stage]),
                                                  spans.pearson(predictions[best], predictions[stage]), ROWS)
            assert row["p_vs_best_in_all"] == pytest.approx(expected["p"]) and 0 < row["p_vs_best_in_all"] <= 1
    assert comparison["eval-glove-full"]["encoder"] == "GloVe (hand-glove.vec)"
    assert {comparison["eval-full"]["best_in_setup"], comparison["eval-glove-full"]["best_in_setup"]} <= {
        "eval-full", "eval-glove-full"}
    for stage in comparison:
        assert re.search(rf"^{re.escape(stage)} .* (best|\d\.\d+|\de-\d+|n/a)$", table, re.M), stage

    assert picforge("stsb-context", "release", "--run", released, "--out", tmp_path / "release") == 0
    evaluation = (tmp_path / "release" / "README.md").read_text(encoding="utf-8").split("## Evaluation", 1)[1]
    glove_row = comparison["eval-glove-ngram-single"]
    assert f"| ngram-single | GloVe (hand-glove.vec) | {glove_row['pearson']:.3f} |" in evaluation
    assert "no word vectors were given" not in evaluation and "Not run: the paper's BERT" in evaluation

    # a second run changes nothing; a vectors file without the evaluated words is refused with the fix
    fingerprint = run.read_manifest(evaluate.COMPARISON)["fingerprint"]
    assert picforge("stsb-context", "evaluate", "--run", released, "--max-span", MAX_SPAN, "--vectors", HAND_GLOVE) == 0
    assert run.read_manifest(evaluate.COMPARISON)["fingerprint"] == fingerprint
    foreign = tmp_path / "foreign.vec"
    foreign.write_text("zzyzx 1 0\n", encoding="utf-8")
    assert picforge("stsb-context", "evaluate", "--run", released, "--setup", "full", "--vectors", foreign) == 2
    assert "holds none of the evaluated words" in capsys.readouterr().err
