"""Every verb, run as a subprocess the way a script or CI runs it, exits 0 when its work is done: no abort at
interpreter exit (`terminate called without an active exception`, exit 134) and no traceback. Verbs run here on
copies of the 103-page sample's runs and releases; the rest are named with the test that runs them, so a new verb
cannot go unchecked."""
import shutil

import pytest

from picforge.rundir import RunDir
from tests.cli_helpers import picforge_in_child, verbs
from tests.walkthrough import annotators

pytestmark = pytest.mark.slow

# Verbs that need a paid service's stand-in, a filled companion sheet, a model server or a longer chain: their exit
# status is checked by these tests (most run them in process, where an abort at interpreter exit would not show).
ELSEWHERE = {
    "annotate mturk create": "tests/annotation/test_mturk_api.py",
    "annotate mturk create-questions": "tests/annotation/test_mturk_questions.py",
    "annotate mturk status": "tests/annotation/test_mturk_api.py",
    "annotate mturk save": "tests/annotation/test_mturk_api.py",
    "annotate mturk expire": "tests/annotation/test_mturk_api.py",
    "annotate mturk delete": "tests/annotation/test_mturk_api.py",
    "annotate mturk ingest": "tests/reliability/test_trusted_annotation.py",
    "annotate mturk rehearse": "tests/annotation/test_mturk_manual.py",
    "annotate mturk review": "tests/reliability/test_trusted_annotation.py",
    "annotate ingest verify2": "tests/walkthrough/test_walkthrough.py",
    "annotate ingest ps-verify": "tests/walkthrough/test_walkthrough.py",
    "annotate reassign": "tests/annotation/test_handback.py",
    "mine": "tests/reliability/test_bounds_and_exits.py",
    "stsb-context generate": "tests/reliability/test_secrets_and_money.py",
    "stsb-context export validation": "tests/stsb_context/test_stsb_validation.py",
    "stsb-context ingest validation": "tests/stsb_context/test_stsb_validation.py",
    "stsb-context evaluate": "tests/stsb_context/test_stsb_eval_model.py",
    "stsb-context release": "tests/stsb_context/test_stsb_validation.py",
    "cosimlex export selection": "tests/cosimlex/test_cli_chain.py",
    "cosimlex ingest selection": "tests/cosimlex/test_cli_chain.py",
    "cosimlex export rating": "tests/cosimlex/test_cli_chain.py",
    "cosimlex ingest rating": "tests/cosimlex/test_cli_chain.py",
    "cosimlex postprocess": "tests/cosimlex/test_cli_chain.py",
    "cosimlex evaluate": "tests/cosimlex/test_cli_chain.py",
    "cosimlex release": "tests/cosimlex/test_cli_chain.py",
    "mcphrasy contexts": "tests/mcphrasy",
    "mcphrasy groups": "tests/mcphrasy",
    "mcphrasy export clusters": "tests/mcphrasy",
    "mcphrasy ingest clusters": "tests/mcphrasy",
    "mcphrasy agreement": "tests/mcphrasy",
    "mcphrasy reconcile": "tests/mcphrasy",
    "mcphrasy release": "tests/mcphrasy",
    "mcphrasy evaluate": "tests/mcphrasy",
    "pearl build": "tests/pearl/test_end_to_end.py",
    "pearl paraphrase": "tests/pearl/test_end_to_end.py",
    "pearl release": "tests/pearl/test_end_to_end.py",
    "release evaluate": "tests/release",
}


def registered_verbs():
    """Every runnable verb of `picforge`, as its words ('annotate mturk gold')."""
    return [" ".join(words) for words, _ in verbs()]


def test_every_verb_that_finishes_its_work_exits_0(mined_103, annotated_103, release_103, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(mined_103, run)
    triplet_id = next(RunDir(str(run)).iter_records("select"))["triplet_id"]
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("word1\tword2\tscore\nchild\tadult\t5.2\nriver\tlake\t4.1\ncity\ttown\t7.0\n", encoding="utf-8")
    steps = [
        ["annotate", "export", "expert", "--run", run, "--annotators", "ann", "--per-annotator", "6"],
        lambda: ["annotate", "ingest", "expert", "--run", run, "--no-grammar",
                 "--sheets", *annotators.fill_expert_sheets(str(run), str(tmp_path / "returned"), draft=False)],
        ["annotate", "mturk", "gold", "--run", run, "--from-release", release_103, "--out", tmp_path / "gold.jsonl"],
        ["annotate", "mturk", "export", "--run", run, "--batch", "b1", "--gold", tmp_path / "gold.jsonl",
         "--questions-per-hit", "10", "--gold-per-hit", "2"],   # 3 HITs: a worker of 2 is judged
        ["annotate", "report", "--run", run],
        ["annotate", "trace", "--run", run, "--id", triplet_id],
        ["annotate", "cancel-batch", "--run", run, "--batch", "b1"],
        ["annotate", "export", "verify2", "--run", run, "--verifiers", "vera"],
        ["annotate", "export", "ps-verify", "--run", run, "--experts", "a1,a2"],
        ["annotate", "export", "final", "--run", run],
        ["build", "--run", annotated_103, "--out", tmp_path / "release"],
        ["release", "publish", "--release", release_103, "--to", tmp_path / "published"],
        ["cosimlex", "candidates", "--pairs", pairs, "--run", run, "--out", tmp_path / "cosimlex"],
    ]
    verbs, ran = registered_verbs(), set()
    for step in steps:
        argv = [str(a) for a in (step() if callable(step) else step)]
        code, out, err = picforge_in_child(*argv)
        assert code == 0 and "Traceback" not in err and "terminate called" not in err, (argv, code, err[-2000:])
        ran.add(max((v for v in verbs if " ".join(argv).startswith(v + " ")), key=len))
    unchecked = set(verbs) - ran - set(ELSEWHERE)
    assert not unchecked, f"run these verbs here or name the test that runs them: {sorted(unchecked)}"
