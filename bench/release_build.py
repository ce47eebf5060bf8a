"""Time `picforge build` phases and the PR ranking baseline on N copies of the release-test run (12 triplets each).

Usage: PYTHONPATH=. python bench/release_build.py [COPIES] [RANKED]   (default 100 copies = 1,200 triplets, 800 pages;
rank 50 PR-pass test examples). Prints seconds per phase and examples per second.
"""
import sys
import tempfile
import time

from pipeline.stages.sentences import page_sentences
from release import evaluate
from release.build import build_release
from release.configs import read_split
from release.embed import PhraseEncoder
from release.inputs import load_run
from release.provenance import run_description
from release.write import write_release
from tests.release import fixture_run


def copied(records, copies, rename):
    """Every record once per copy, renamed so copies do not collide."""
    return [rename(record, copy) for copy in range(copies) for record in records]


def page_copy(page, copy):
    """The page with a new id and a closing sentence of its own, so every copy's text differs."""
    tail = f"This is copy {copy} of the page."
    return dict(page, page_id=page["page_id"] + 1000 * copy, text=f"{page['text']}\n\n{tail}",
                paragraphs=page["paragraphs"] + [tail])


def triplet_copy(triplet, copy):
    return dict(triplet, triplet_id=f"c{copy:04d}{triplet['triplet_id']}",
                page1=dict(triplet["page1"], page_id=triplet["page1"]["page_id"] + 1000 * copy),
                page2=dict(triplet["page2"], page_id=triplet["page2"]["page_id"] + 1000 * copy))


def annotation_copy(annotation, copy):
    return dict(annotation, triplet_id=f"c{copy:04d}{annotation['triplet_id']}")


def timed(label, count, unit, action):
    started = time.perf_counter()
    result = action()
    seconds = time.perf_counter() - started
    print(f"{label:>14}: {seconds:7.2f} s  ({count / seconds:9.1f} {unit}/s)")
    return result


def main(copies, ranked):
    with tempfile.TemporaryDirectory() as root:
        run_root = f"{root}/run"
        pages = copied(fixture_run.page_records(), copies, page_copy)
        overrides = {
            "clean": pages,
            "sentences": [s for page in pages for s in page_sentences(page)],
            "select": copied(fixture_run.triplet_records(), copies, triplet_copy),
            "final_annotations": copied(fixture_run.annotation_records(), copies, annotation_copy),
        }
        fixture_run.make_run(run_root, **overrides)
        triplets = 12 * copies
        inputs = timed("load run", triplets, "triplets", lambda: load_run(run_root))
        release = timed("construct", triplets, "triplets", lambda: build_release(inputs.triplets, 42))
        release.facts = run_description(run_root)
        records = sum(len(rows) for splits in release.splits.values() for rows in splits.values())
        timed("write+stats", records, "records", lambda: write_release(
            release, f"{root}/release", seed=42, stage_fingerprints=inputs.fingerprints))
        test = read_split(f"{root}/release", "PR-pass", "test")[:ranked]
        encoder = PhraseEncoder()
        timed("load model", 1, "models", encoder.load)
        timed("PR ranking", len(test), "examples", lambda: evaluate.pr_baseline(encoder, test))
        print(f"{triplets} triplets, {len(overrides['clean'])} pages → {records} records")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100, int(sys.argv[2]) if len(sys.argv) > 2 else 50)
