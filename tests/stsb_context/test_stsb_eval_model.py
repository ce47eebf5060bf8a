"""`stsb-context eval` with the real bundled all-MiniLM-L6-v2 on generated contexts around shared STS-B rows."""
import pytest

from companions.stsb_context import evaluate, spans
from picforge.encoders import BUNDLED_MODEL, resolve_model_path
from picforge.rundir import RunDir

pytestmark = pytest.mark.slow
MAX_SPAN = 6
ROWS = 8


@pytest.fixture
def released(picforge, stsb_file, openai_server, tmp_path):
    """A run directory whose dataset holds the first 8 shared STS-B rows (both annotators answered N throughout)."""
    server = openai_server(faults={})
    out, stsb = tmp_path / "run", tmp_path / "sts-test.csv"
    stsb.write_text("\n".join(stsb_file.read_text(encoding="utf-8").splitlines()[:ROWS + 1]) + "\n", encoding="utf-8")
    assert picforge("stsb-context", "--stsb", stsb, "--out", out, "--base-url", server.base_url) == 0
    assert picforge("stsb-context", "export-validation", "--run", out) == 0
    sheets = []
    for name in ("annotator-1", "annotator-2"):
        text = (out / "validation" / f"{name}.csv").read_text(encoding="utf-8-sig").splitlines()
        sheets.append(tmp_path / f"{name}.csv")
        sheets[-1].write_text("\n".join([text[0]] + [line.replace(",,", ",N,", 1) if line.endswith(",,") else line
                                                     for line in text[1:]]) + "\n", encoding="utf-8")
    assert picforge("stsb-context", "ingest-validation", "--run", out, *sheets) == 0
    assert RunDir(str(out)).count_rows("dataset") == ROWS
    return out


def test_eval_all_setups_with_minilm(released, picforge, capsys):
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
        assert f"{setup:<14} {manifest['metrics']['pearson']:>8.3f}" in table
        results[setup] = (manifest, scored)

    for row, scored in zip(rows, results["full"][1]):
        assert (scored["best_span"], scored["best_span_start"]) == (row["context"], 0)
    for setup in evaluate.SPAN_SETUPS:
        assert results[setup][0]["options"] == {"setup": setup, "source": "dataset", "model": resolve_model_path(BUNDLED_MODEL),
                                                "min_span": 1, "max_span": MAX_SPAN}
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
