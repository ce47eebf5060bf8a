"""Time `export expert`, `ingest expert` and a repeated ingest on N synthetic triplets (SQLite ledger).

Usage: python bench/annotation_ingest.py [N]   (default 2000; prints seconds and rows per second)
"""
import csv
import sys
import tempfile
import time

from annotation import expert
from picforge.ledger import Ledger
from picforge.rundir import RunDir

SENTENCES = ["The film opened in March.", "Critics had high hopes.", "It met a cold reception from the press.",
             "Ticket sales fell quickly.", "The studio cut its budget."]


def synthetic_triplet(n):
    passage = " ".join(SENTENCES)
    page = {"page_id": n, "title": f"Page {n}", "url": f"https://en.wikipedia.org/wiki?curid={n}",
            "passage": passage, "sentence": SENTENCES[2], "char_span": [9, 23]}
    return {"triplet_id": f"{n:06d}", "phrase": "cold reception", "page1": page, "page2": dict(page, page_id=-n),
            "semantic_score": 0.0, "domain_score": 0.0, "wic_words": ["cold"]}


def timed(label, count, action):
    started = time.perf_counter()
    result = action()
    seconds = time.perf_counter() - started
    print(f"{label:>10}: {seconds:7.2f} s  ({count / seconds:8.1f} rows/s)")
    return result


def main(count):
    with tempfile.TemporaryDirectory() as root:
        run = RunDir(root)
        run.write_stage("select", (synthetic_triplet(n) for n in range(count)), "triplet", inputs={}, options={})
        ledger = Ledger.for_run(root)
        written = timed("export", count, lambda: expert.export_expert(ledger, root, f"{root}/sheets", ["a"], count))
        with open(written[0][3], encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.DictReader(fh))
        for row in rows:
            row.update(Q1="chilly welcome", Q2="unheated entrance", Q3="N")
        sheet = f"{root}/returned.csv"
        with open(sheet, "w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        timed("ingest", count, lambda: expert.ingest_expert(ledger, root, [sheet], f"{root}/fix"))
        timed("re-ingest", count, lambda: expert.ingest_expert(ledger, root, [sheet], f"{root}/fix"))
        ledger.dispose()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
