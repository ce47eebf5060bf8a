"""A release states what its ledger records, through the CLI on the fixture run and a real SQLite ledger: rehearsed
answers are named on the card's first lines and a remote publish refuses them without --allow-rehearsal; crowd
answers are credited with exactly the rounds, platforms and counts the ledger holds; tools only where they ran."""
import json
import os

import pytest

from annotation.mturk import round1
from picforge.ledger import Ledger
from picforge.release_writer import read_manifest
from tests.release.fixture_run import make_run, triplet_records
from tests.walkthrough.annotators import fill_expert_sheets, fill_rehearsal, requester_ui_results

REHEARSAL_PLATFORM = "rehearsal (`annotate mturk rehearse`: a scripted or hand-filled results file, not crowd work)"
REQUESTER_SITE = "Amazon Mechanical Turk (requester site, results file downloaded and ingested)"
EXPERT_SHEETS = "expert sheets (CSV/XLSX) ingested by picforge"


@pytest.fixture(autouse=True)
def ledger_of_the_run(monkeypatch):
    monkeypatch.delenv("PICFORGE_LEDGER", raising=False)


def settled_gold_bank(path, count=16):
    """A gold bank of known answers on the fixture's passages, as a previous release would settle them (other
    paraphrases than the experts', the two passages in the other order), so none is a question of the batch."""
    triplets = triplet_records()
    bank = []
    for n in range(count):
        record = triplets[n % len(triplets)]
        first, second = record["page1"]["passage"], record["page2"]["passage"]
        if n % 2:
            bank.append({"gold_id": f"g{n:03d}", "kind": "paraphrase", "phrase": record["phrase"], "passage1": first,
                         "paraphrase": f"version {n}", "answer": n % 4 == 1})
        else:
            bank.append({"gold_id": f"g{n:03d}", "kind": "same_meaning", "phrase": record["phrase"],
                         "passage1": second, "passage2": first, "answer": n % 4 == 2})
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(record) + "\n" for record in bank)


def annotated_run(tmp_path, picforge, rehearsed):
    """The fixture run's triplets through expert sheets (no grammar check) and round 1 on the requester-site path,
    its results file rehearsed (`mturk rehearse`, filled by script) or downloaded from the site, then reviewed and
    exported as final annotations."""
    run = make_run(tmp_path / "run", skip=("final_annotations",))
    gold, returned = str(tmp_path / "gold.jsonl"), tmp_path / "returned"
    assert picforge("annotate", "export", "expert", "--run", run, "--annotators", "ann,bo",
                    "--per-annotator", "7") == 0
    sheets = fill_expert_sheets(run, str(returned), draft=False)
    assert picforge("annotate", "ingest", "expert", "--run", run, "--no-grammar", "--sheets", *sheets) == 0
    settled_gold_bank(gold)
    assert picforge("annotate", "mturk", "export", "--run", run, "--batch", "r1", "--gold", gold,
                    "--min-worker-gold", "1") == 0
    if rehearsed:
        results = str(returned / "Batch_rehearsal_batch_results.csv")
        assert picforge("annotate", "mturk", "rehearse", "--run", run, "--batch", "r1", "--out", results) == 0
        fill_rehearsal(run, "r1", results)
    else:
        results = requester_ui_results(run, "r1", str(returned))
    assert picforge("annotate", "mturk", "ingest", "--run", run, "--results", results) == 0
    assert picforge("annotate", "mturk", "review", "--run", run, "--batch", "r1", "--out",
                    tmp_path / "review.csv") == 0
    assert picforge("annotate", "export", "final", "--run", run) == 0
    return run


def ledger_counts(run):
    """{batch kind: (batches, assignments, people, answers, items)} counted straight from the ledger's tables."""
    ledger = Ledger.for_run(run)
    try:
        with ledger.read() as q:
            counts = {}
            for kind in ("expert", round1.MANUAL_BATCH):
                answers = [a for b in q.batches(kind=kind) for a in q.answers(batch_id=b["batch_id"])]
                counts[kind] = (len({a["batch_id"] for a in answers}), len({a["assignment_id"] for a in answers}), len({a["worker_id"] for a in answers}),
                                len(answers), len({a["item_id"] for a in answers if a["item_id"]}))
            return counts
    finally:
        ledger.dispose()


def released(out):
    """(card text below the YAML header, croissant.json, MANIFEST.json) of a release."""
    card = open(os.path.join(out, "README.md"), encoding="utf-8").read().split("---\n", 2)[2]
    return card, json.load(open(os.path.join(out, "croissant.json"), encoding="utf-8")), read_manifest(out)


def line(round_no, task, counts, who, platform):
    batches, assignments, people, answers, items = counts
    return (f"round {round_no}, {task}: {answers:,} answers on {items:,} items, {assignments:,} assignments by "
            f"{people:,} {who}, in {batches:,} batches; {platform}")


def test_a_rehearsal_build_says_so_first_and_is_not_published_without_the_flag(tmp_path, picforge, capsys):
    run = annotated_run(tmp_path, picforge, rehearsed=True)
    counts = ledger_counts(run)
    out = tmp_path / "release"
    assert picforge("build", "--run", run, "--out", out) == 0
    card, metadata, manifest = released(out)
    note = (f"REHEARSAL BUILD: {counts[round1.MANUAL_BATCH][3]:,} answers of round 1 were rehearsed (`annotate "
            "mturk rehearse`, REHEARSAL worker ids in the ledger), scripted or filled by hand, not crowd work; do not "
            "use these labels as crowd-verified.")
    first, second = card.lstrip("\n").split("\n\n")[:2]
    assert first == "# PiC: Phrase-in-Context (picforge build) — REHEARSAL BUILD, not crowd-annotated"
    assert second == f"**{note}**"
    assert manifest["rehearsal"] == note and metadata["description"].startswith(note)
    assert metadata["rai:dataAnnotationPlatform"] == [
        line(0, "expert paraphrase sheets (q1, q2, Q3)", counts["expert"], "people", EXPERT_SHEETS),
        line(1, "round-1 verification", counts[round1.MANUAL_BATCH], "rehearsal ids", REHEARSAL_PLATFORM)]
    assert "Mechanical Turk" not in json.dumps(metadata) and "Mechanical Turk" not in card

    capsys.readouterr()
    for remote in ("s3://bucket/pic", "gs://bucket/pic", "hf://org/pic"):
        assert picforge("release", "publish", "--release", out, "--to", remote) == 2
        err = capsys.readouterr().err
        assert f"a rehearsal build ({note}); not published to {remote}" in err and "--allow-rehearsal" in err
    assert picforge("release", "publish", "--release", out, "--to", "s3://bucket/pic", "--allow-rehearsal") == 0
    printed = capsys.readouterr().out
    assert f"a rehearsal build, published as one (its card's first line says so): {note}" in printed
    assert "dry run: nothing uploaded" in printed
    assert picforge("release", "publish", "--release", out, "--to", tmp_path / "copy", "--live") == 0  # a local copy is no publication
    assert open(tmp_path / "copy" / "README.md", encoding="utf-8").read() == open(out / "README.md").read()


def test_a_crowd_build_credits_exactly_the_rounds_platforms_tools_and_counts_in_its_ledger(tmp_path, picforge,
                                                                                              capsys):
    run = annotated_run(tmp_path, picforge, rehearsed=False)
    counts = ledger_counts(run)
    out = tmp_path / "release"
    assert picforge("build", "--run", run, "--out", out) == 0
    card, metadata, manifest = released(out)
    platforms = [line(0, "expert paraphrase sheets (q1, q2, Q3)", counts["expert"], "people", EXPERT_SHEETS),
                 line(1, "round-1 verification", counts[round1.MANUAL_BATCH], "people", REQUESTER_SITE)]
    assert metadata["rai:dataAnnotationPlatform"] == platforms
    assert counts["expert"][2] == 2 and counts[round1.MANUAL_BATCH][2] == 2  # ann and bo; two site workers
    annotation = card.split("## Annotation\n\n", 1)[1].split("\n## ", 1)[0]
    assert [entry[2:] for entry in annotation.splitlines() if entry.startswith("- round ")] == platforms
    assert "REHEARSAL" not in card and "rehearsal" not in manifest and "REHEARSAL" not in json.dumps(metadata)
    # Sheets were ingested with --no-grammar and the fixture run has no mining manifests: no tool ran.
    assert metadata["rai:machineAnnotationTools"] == ["none recorded in the run"]
    assert "LanguageTool" not in annotation
    funnel = [entry for entry in metadata["rai:dataAnnotationProtocol"] if ": round 1 (" in entry]
    assert len(funnel) == 2 and all(": round 1 (Amazon Mechanical Turk) verified " in entry for entry in funnel)
    per_item = [f"round {n} ({where}): {answers / items:.2f} answers per item over {items:,} items"
                for n, where, (_, _, _, answers, items) in ((0, "expert sheets", counts["expert"]),
                                                          (1, "Amazon Mechanical Turk", counts[round1.MANUAL_BATCH]))]
    assert metadata["rai:annotationsPerItem"] == "; ".join(per_item)
    capsys.readouterr()
    assert picforge("release", "publish", "--release", out, "--to", "s3://bucket/pic") == 0  # a dry run: no flag needed
    assert "rehearsal" not in capsys.readouterr().out
