"""A re-mine under a ledger in progress: the annotated triplets whose text changed or that the run no longer selects
are marked stale and listed, left out of later rounds and of the final annotations; the rest keep their
verification. Driven through `picforge` as a subprocess on the real 103-page sample, re-mined from an edited dump."""
import bz2
import shutil

import pytest

from picforge.ledger import Ledger
from annotation.triplets import text_digest
from picforge.rundir import RunDir
from tests.cli_helpers import picforge_in_child
from tests.walkthrough import annotators

pytestmark = pytest.mark.slow


def test_a_remine_marks_changed_triplets_stale_and_keeps_the_rest(enwiki_sample_103, wic_zip, mined_103, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(mined_103, run)
    before = {t["triplet_id"]: t for t in RunDir(str(run)).iter_records("select")}
    assert picforge_in_child("annotate", "export", "expert", "--run", run, "--annotators", "ann,bo",
                    "--per-annotator", "30")[0] == 0
    sheets = annotators.fill_expert_sheets(str(run), str(tmp_path / "returned"), draft=False)
    code, _, err = picforge_in_child("annotate", "ingest", "expert", "--run", run, "--no-grammar", "--sheets", *sheets)
    assert code == 0, err

    # The dump changes under the run: one word of a passage sentence (not the phrase's sentence) of one triplet.
    xml = bz2.decompress(enwiki_sample_103.read_bytes()).decode("utf-8")
    edited = changed = None
    for triplet in before.values():
        side = triplet["page1"]
        words = side["passage"].replace(side["sentence"], " ").split()
        spans = [" ".join(words[i:i + 3]) for i in range(len(words) - 2) if words[i + 1].isalpha()]
        span = next((sp for sp in spans if xml.count(sp) == 1), None)
        if span:
            first, middle, last = span.split(" ")
            edited, changed = xml.replace(span, f"{first} {middle}s {last}", 1), triplet["triplet_id"]
            break
    assert changed, "no passage word to edit"
    dump = tmp_path / "edited.xml.bz2"
    dump.write_bytes(bz2.compress(edited.encode("utf-8")))
    code, out, err = picforge_in_child("mine", "--input", dump, "--wic", wic_zip, "--out", run)
    assert code == 0, err
    # The hint comes from the ledger: the expert sheets are out and back, so round 1 is next.
    assert "next, the expert sheets" not in out and f"next: picforge annotate mturk create --run {run}" in out
    after = {t["triplet_id"]: t for t in RunDir(str(run)).iter_records("select")}
    expected = {tid: ("no longer selected by the run" if tid not in after else "its text changed in the run")
                for tid, t in before.items() if tid not in after or text_digest(after[tid]) != text_digest(t)}
    assert expected.get(changed) == "its text changed in the run"

    code, out, err = picforge_in_child("annotate", "report", "--run", run)
    assert code == 0, err
    assert f"picforge: {len(expected)} annotated triplet(s) marked stale" in err and changed in err
    assert f"Stale after a re-mine: {len(expected)} annotated triplet(s)" in out
    assert all(f"- {tid}: {why}" in out for tid, why in expected.items())
    ledger = Ledger.for_run(str(run))
    with ledger.read() as q:
        assert q.stale() == expected
        annotated = {a["triplet_id"] for a in q.expert_annotations()}
    ledger.dispose()

    # Later rounds take only the fresh annotations (the pilot that settles the gold bank, round 1); the final
    # annotations hold no stale triplet.
    returned, gold = tmp_path / "returned", tmp_path / "gold.jsonl"
    assert picforge_in_child("annotate", "export", "verify2", "--run", run, "--verifiers", "vera,vic",
                             "--pilot", "10")[0] == 0
    sheets = annotators.fill_verify2(str(run), str(returned), bad=False)
    for argv in (("ingest", "verify2", "--run", run, "--sheets", *sheets), ("mturk", "gold", "--run", run, "--out", gold),
                 ("mturk", "export", "--run", run, "--batch", "r1", "--gold", gold)):
        code, _, err = picforge_in_child("annotate", *argv)
        assert code == 0, err
    ledger = Ledger.for_run(str(run))
    with ledger.read() as q:
        piloted = {iid.rsplit("/", 1)[0] for iid in q.memberships("verify2")}
        verified = {iid.rsplit("/", 1)[0] for iid in q.batch("r1")["meta"]["items"]}
    ledger.dispose()
    assert len(piloted) == 10 and not piloted & set(expected)
    assert verified == annotated - set(expected) - piloted
    assert "marked stale" not in picforge_in_child("annotate", "report", "--run", run)[2]  # listed once, when marked
