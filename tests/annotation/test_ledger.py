"""Ledger: natural keys make every write idempotent; a transaction is all-or-nothing."""
import concurrent.futures
import dataclasses
import importlib.util
import logging
import pathlib
import subprocess
import sys
import threading
import time

import pytest
import sqlalchemy as sa

from picforge import ledger as L
from annotation.roundtrip import write_batches
from picforge import verbs
from picforge.errors import InputError
from tests.annotation.postgres_server import fresh_schema
from tests.ledger_tables import notes
from tests.plugin_companion import DATASET

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def ledger(tmp_path, ledger_url):
    led = L.Ledger.for_run(str(tmp_path / "run"), ledger_url)
    yield led
    led.dispose()


def _import_round1(led, assignment_ids):
    """Write what an MTurk poll would: batch, items, assignments, answers, decisions."""
    with led.transaction() as tx:
        tx.add_batch("mturk-1", "mturk", round=L.ROUND_MTURK, meta={"reward": "0.50"})
        ids = tx.add_items("mturk-1", [("T1", "q1"), ("T1", "q2"), ("T1", "q3")])
        tx.add_hit("HIT1", "mturk-1", ids, request_token="tok-1")
        for aid in assignment_ids:
            tx.record_assignment(aid, "mturk-1", f"W-{aid}", "Submitted", hit_id="HIT1")
            tx.record_answers(aid, {f"{iid}.agree": (iid, "yes") for iid in ids})
        for iid in ids:
            tx.record_decision(iid, L.ROUND_MTURK, L.ACCEPTED, reason="2 of 3 agree", decided_by="review")


def test_default_ledger_is_sqlite_file_in_run_dir(tmp_path):
    led = L.Ledger.for_run(str(tmp_path / "run"))
    assert led.url == "sqlite:///" + str(tmp_path / "run" / "ledger.sqlite")
    assert (tmp_path / "run" / "ledger.sqlite").exists()
    led.dispose()


def test_reimport_and_overlap_change_nothing(ledger):
    _import_round1(ledger, ["A1", "A2"])
    with ledger.read() as q:
        first = q.dump(with_times=True)
    _import_round1(ledger, ["A1", "A2"])          # the same poll again
    with ledger.read() as q:
        assert q.dump(with_times=True) == first
    _import_round1(ledger, ["A2", "A3"])          # an overlapping poll: only A3 is new
    with ledger.read() as q:
        assert [a["assignment_id"] for a in q.assignments()] == ["A1", "A2", "A3"]
        assert len(q.answers()) == 9
        assert len(q.items()) == 3 and len(q.items(batch_id="mturk-1")) == 3
        assert len(q.decisions(round=L.ROUND_MTURK)) == 3


def test_status_update_and_decision_change_are_recorded(ledger):
    _import_round1(ledger, ["A1"])
    with ledger.transaction() as tx:
        assert tx.record_assignment("A1", "mturk-1", "W-A1", "Approved", hit_id="HIT1") is True
        assert tx.record_decision("T1/q1", L.ROUND_MTURK, L.ACCEPTED, "2 of 3 agree", "review") is False
        assert tx.record_decision("T1/q1", L.ROUND_MTURK, L.REJECTED, "1 of 3 agree", "review") is True
        assert tx.update_batch("mturk-1", status="reviewed", meta={"hits": 1}) is True
        assert tx.update_batch("mturk-1", status="reviewed", meta={"hits": 1}) is False
    with ledger.read() as q:
        assert q.assignments()[0]["status"] == "Approved"
        assert q.decision_map(L.ROUND_MTURK)["T1/q1"]["decision"] == L.REJECTED
        assert q.batch("mturk-1")["meta"] == {"reward": "0.50", "hits": 1}
        assert q.hit_items("HIT1") == ["T1/q1", "T1/q2", "T1/q3"]


def test_failed_transaction_leaves_ledger_unchanged(ledger):
    _import_round1(ledger, ["A1"])
    with ledger.read() as q:
        before = q.dump(with_times=True)
    with pytest.raises(RuntimeError):
        with ledger.transaction() as tx:
            tx.record_assignment("A9", "mturk-1", "W9", "Submitted")
            tx.record_answers("A9", {"T1/q1.agree": ("T1/q1", "no")})
            raise RuntimeError("crash half-way")
    with ledger.read() as q:
        assert q.dump(with_times=True) == before


def test_answers_replace_only_when_asked(ledger):
    """A recorded answer changes only with `replace` (a corrected sheet); otherwise the change is refused, naming the
    row, and nothing is written."""
    _import_round1(ledger, ["A1"])
    with pytest.raises(L.HistoryConflict, match="results.csv: row 3: assignment A1 is recorded .*answer T1/q1.agree 'yes' -> 'no'"):
        with ledger.transaction() as tx:
            tx.record_answers("A1", {"T1/q1.agree": ("T1/q1", "no")}, row="results.csv: row 3")
    with ledger.transaction() as tx:
        assert tx.record_answers("A1", {"T1/q1.agree": ("T1/q1", "no")}, replace=True) == 1
    with ledger.read() as q:
        assert {a["field"]: a["value"] for a in q.answers("A1")}["T1/q1.agree"] == "no"


def test_item_ids_and_kinds():
    assert L.item_id("T7", "q3") == "T7/q3"
    with pytest.raises(ValueError, match="unknown item kind"):
        L.item_id("T7", "q4")


def test_concurrent_writers_take_turns(ledger):
    """A second import started while the first is open waits for it, so each numbers a batch of its own."""
    numbered = {}

    def second_import():
        try:
            with ledger.transaction() as tx:
                numbered["second"] = tx.next_batch_id("expert", "alice")
                tx.add_batch(numbered["second"], "expert")
        except Exception as err:  # noqa: BLE001 - reported by the assertion below
            numbered["error"] = repr(err)

    with ledger.transaction() as tx:
        numbered["first"] = tx.next_batch_id("expert", "alice")
        tx.add_batch(numbered["first"], "expert")
        second = threading.Thread(target=second_import)
        second.start()
        second.join(timeout=1)
        assert second.is_alive()                  # still waiting for the first import to commit
    second.join(timeout=60)
    assert numbered == {"first": "expert-alice-001", "second": "expert-alice-002"}
    with ledger.read() as q:
        assert [b["batch_id"] for b in q.batches()] == ["expert-alice-001", "expert-alice-002"]


def test_a_writer_that_must_wait_says_so(ledger, caplog):
    """A second writer says that another command is writing (PostgreSQL's advisory lock as SQLite's busy file)."""
    caplog.set_level(logging.WARNING, logger=L.__name__)

    def second_import():
        with ledger.transaction() as tx:
            tx.add_batch("expert-bob-001", "expert")

    with ledger.transaction() as tx:
        tx.add_batch("expert-alice-001", "expert")
        second = threading.Thread(target=second_import)
        second.start()
        deadline = time.monotonic() + 30
        while "is writing to the ledger; waiting" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.1)
        assert second.is_alive()
    second.join(timeout=60)
    assert "another picforge command is writing to the ledger; waiting" in caplog.text
    with ledger.read() as q:
        assert [b["batch_id"] for b in q.batches()] == ["expert-alice-001", "expert-bob-001"]


def test_two_exports_for_one_person_at_once_get_batches_of_their_own(ledger, tmp_path):
    def export(triplet_id):
        share = ("alice", {}, [((triplet_id, "q1"), {"triplet_id": triplet_id})])
        return write_batches(ledger, "expert", 1, str(tmp_path), ["batch_id", "triplet_id"], [share])

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = [row for rows in pool.map(export, ["T1", "T2"]) for row in rows]
    assert sorted(batch_id for _, batch_id, _, _, _ in results) == ["expert-alice-001", "expert-alice-002"]
    with ledger.read() as q:
        assert len(q.batches()) == 2
    for _, batch_id, _, csv_path, _ in results:
        assert batch_id in open(csv_path, encoding="utf-8-sig").read()


def test_commands_opening_a_new_ledger_at_once_all_find_its_tables(tmp_path, ledger_url):
    """Several processes' first use of an empty ledger: one creates the tables, the others wait and use them."""
    url = ledger_url or L.default_url(str(tmp_path / "run"))
    everyone_ready = threading.Barrier(6)

    def open_ledger():
        everyone_ready.wait()
        L.Ledger(url).dispose()

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        for opened in [pool.submit(open_ledger) for _ in range(6)]:
            opened.result()


@pytest.mark.parametrize("write, message", [
    (lambda tx: tx.add_batch("b" * 201, "mturk"),
     r"batch_id 'b{40}…' is 201 characters long; the ledger's batches.batch_id holds at most 200"),
    (lambda tx: tx.record_assignment("A9", "mturk-1", "W9", "Submitted", submitted_at="Friday " * 6),
     r"submitted_at 'Friday .*' is 42 characters long; the ledger's assignments.submitted_at holds at most 40"),
    (lambda tx: tx.record_answers("A1", {"T1/q1.note": ("T1/q1", "a\x00b")}),
     r"value 'a\\x00b' contains a NUL character"),
], ids=["long-id", "long-time", "nul"])
def test_text_postgresql_would_refuse_is_refused_on_every_backend(ledger, write, message):
    _import_round1(ledger, ["A1"])
    with ledger.read() as q:
        before = q.dump(with_times=True)
    with pytest.raises(ValueError, match=message):
        with ledger.transaction() as tx:
            tx.record_assignment("A8", "mturk-1", "W8", "Submitted")
            write(tx)
    with ledger.read() as q:
        assert q.dump(with_times=True) == before


def test_a_read_sees_one_state_of_the_ledger_throughout(ledger):
    """A report's queries agree with each other even while an import commits beside them."""
    _import_round1(ledger, ["A1"])

    def another_import():
        with ledger.transaction() as tx:
            tx.add_batch("mturk-2", "mturk", round=L.ROUND_MTURK)

    with ledger.read() as q:
        before = q.dump(with_times=True)
        writer = threading.Thread(target=another_import)
        writer.start()
        writer.join(timeout=1)                    # SQLite: waits for the read; PostgreSQL: commits beside it
        assert q.dump(with_times=True) == before
    writer.join(timeout=60)
    with ledger.read() as q:
        assert [b["batch_id"] for b in q.batches()] == ["mturk-1", "mturk-2"]


def test_a_bare_postgresql_url_means_psycopg(postgres_server):
    with fresh_schema(postgres_server) as url:
        led = L.Ledger(sa.make_url(url).set(drivername="postgresql").render_as_string(hide_password=False))
        with led.transaction() as tx:
            tx.add_batch("b1", "expert")
        assert led.engine.dialect.driver == "psycopg"
        led.dispose()


@pytest.mark.parametrize("url, message", [
    ("ledger.sqlite", r"--ledger 'ledger.sqlite': not an SQLAlchemy URL .*; write e.g. postgresql://"),
    pytest.param("mysql+mysqldb://picforge:secret@db/picforge",
                 r"--ledger mysql\+mysqldb://picforge:\*\*\*@db/picforge: the database driver is not installed",
                 marks=pytest.mark.skipif(importlib.util.find_spec("MySQLdb") is not None,
                                          reason="MySQLdb is installed here")),
], ids=["no-url", "no-driver"])
def test_unusable_ledger_urls_are_clear_errors(url, message):
    with pytest.raises(InputError, match=message):
        L.Ledger(url)


@pytest.fixture
def installed_datasets(monkeypatch):
    """Install more dataset declarations (beside the real ones) for the ledgers this test opens."""
    def install(*declared):
        found = verbs.datasets()
        more = {dataset.name: dataset for dataset in declared}
        monkeypatch.setattr(verbs, "datasets", lambda: verbs.Datasets(
            {**found.datasets, **more}, {**found.distributions, **dict.fromkeys(more, "test-plugin")}))
        L.schema.cache_clear()
    yield install
    L.schema.cache_clear()


def declaring(name, tables):
    """The plug-in companion's declaration under `name`, with the ledger tables `tables` names."""
    return dataclasses.replace(DATASET, name=name, ledger_tables=tables)


def test_a_table_a_dataset_declares_is_created_when_a_ledger_opens(tmp_path, ledger_url, installed_datasets):
    """How a companion keeps a table of its own in the run's ledger (McPhraSy's cluster_labels): a ledger that was
    opened before the dataset was installed gains the table the next time it opens, and the keyed writes serve it."""
    url = ledger_url or L.default_url(str(tmp_path / "run"))
    L.Ledger(url).dispose()
    installed_datasets(declaring("notes", "tests.ledger_tables:NOTES"))
    led = L.Ledger(url)
    with led.transaction() as tx:
        assert tx.insert_or_ignore(notes, {"note_id": "n1"}, {"text": "first"})
        assert tx.upsert(notes, {"note_id": "n1"}, {"text": "second"})
        assert not tx.upsert(notes, {"note_id": "n1"}, {"text": "second"})
    with led.read() as q:
        assert q.get(notes, {"note_id": "n1"}) == {"note_id": "n1", "text": "second"}
        dumped = q.dump()
        assert dumped["test_companion_notes"] == [("n1", "second")] and dumped["cluster_labels"] == []
    with pytest.raises(ValueError, match="test_companion_notes.text holds at most 10"):
        with led.transaction() as tx:
            tx.upsert(notes, {"note_id": "n2"}, {"text": "much too long"})
    led.dispose()


def test_a_ledger_table_two_declarations_name_is_refused_naming_both(installed_datasets):
    installed_datasets(declaring("clash", "tests.ledger_tables:CLASH"))
    with pytest.raises(InputError, match=r"^ledger table 'batches' is declared by the core ledger "
                                         r"\(picforge/ledger.py\) and by dataset clash "
                                         r"\(tests.ledger_tables:CLASH\); rename one of them$"):
        L.schema()


LEDGER_TABLES = """
import sys
import sqlalchemy as sa
{first}
from picforge import ledger
led = ledger.Ledger("sqlite:///" + sys.argv[1])
print(sorted(sa.inspect(led.engine).get_table_names()))
"""


@pytest.mark.parametrize("first", ["", "import companions.mcphrasy.cluster_ledger", "import companions.mcphrasy.cli"])
def test_a_ledgers_tables_do_not_depend_on_what_the_process_imported_first(tmp_path, first):
    """A fresh process opens a new ledger: the core's tables and every installed dataset's (McPhraSy's
    cluster_labels), whether or not it imported the companion before."""
    done = subprocess.run([sys.executable, "-c", LEDGER_TABLES.format(first=first), str(tmp_path / "ledger.sqlite")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr(sorted(table.name for table in L.schema().sorted_tables))
    assert "'cluster_labels'" in done.stdout and "'batches'" in done.stdout
