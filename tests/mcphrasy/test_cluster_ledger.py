"""McPhraSy's cluster_labels table lives in the companion but in the run's one ledger: created on SQLite and
PostgreSQL, and read from ledgers written when the table was still defined in annotation/ledger.py."""
import sqlite3

from picforge.ledger import Ledger
from companions.mcphrasy.cluster_ledger import read_labels, record_labels
from tests.annotation.conftest import ledger_url, new_ledger_url, postgres_server  # noqa: F401 (fixtures)

# The two tables as annotation/ledger.py created them before cluster_labels moved to the companion (the DDL
# SQLAlchemy wrote into ledger.sqlite then).
EARLIER_LEDGER = """
CREATE TABLE batches (
    batch_id VARCHAR(200) NOT NULL, kind VARCHAR(40) NOT NULL, round INTEGER, status VARCHAR(40) NOT NULL,
    created_at VARCHAR(40) NOT NULL, meta TEXT NOT NULL, PRIMARY KEY (batch_id));
CREATE TABLE cluster_labels (
    group_id VARCHAR(250) NOT NULL, annotator VARCHAR(200) NOT NULL, phrase VARCHAR(250) NOT NULL,
    batch_id VARCHAR(200) NOT NULL, cluster VARCHAR(100) NOT NULL, kind VARCHAR(20) NOT NULL,
    PRIMARY KEY (group_id, annotator, phrase), FOREIGN KEY(batch_id) REFERENCES batches (batch_id));
INSERT INTO batches VALUES ('mcphrasy-clusters/ann/g1', 'mcphrasy-clusters', NULL, 'open', '2026-11-01T00:00:00+00:00',
                            '{"annotator": "ann", "group_id": "g1"}');
INSERT INTO cluster_labels VALUES ('g1', 'ann', 'sea port', 'mcphrasy-clusters/ann/g1', 'A', 'equivalent');
INSERT INTO cluster_labels VALUES ('g1', 'ann', 'harbour town', 'mcphrasy-clusters/ann/g1', 'A', 'equivalent');
INSERT INTO cluster_labels VALUES ('g1', 'ann', 'iron ore', 'mcphrasy-clusters/ann/g1', 'B', 'singleton');
"""
BATCH = "mcphrasy-clusters/ann/g1"


def test_a_ledger_written_before_the_move_opens_and_reads_its_labels(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    with sqlite3.connect(run / "ledger.sqlite") as conn:
        conn.executescript(EARLIER_LEDGER)
    ledger = Ledger.for_run(str(run))
    with ledger.read() as session:
        assert read_labels(session) == {"g1": {"ann": {"sea port": ("A", "equivalent"),
                                                       "harbour town": ("A", "equivalent"),
                                                       "iron ore": ("B", "singleton")}}}
        assert session.batch(BATCH)["meta"] == {"annotator": "ann", "group_id": "g1"}  # the core tables are there
    # a corrected sheet replaces the annotator's labels of the group, dropping a phrase no longer labelled
    with ledger.transaction() as session:
        assert record_labels(session, "g1", "ann", BATCH, {"sea port": ("A", "equivalent"),
                                                           "harbour town": ("B", "singleton")}) == 2
    with ledger.read() as session:
        assert read_labels(session, "g1") == {"g1": {"ann": {"sea port": ("A", "equivalent"),
                                                             "harbour town": ("B", "singleton")}}}
    ledger.dispose()
    with sqlite3.connect(run / "ledger.sqlite") as conn:  # still one database file
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"batches", "items", "cluster_labels"} <= tables and len(list(run.iterdir())) == 1


def test_labels_round_trip_on_every_backend(tmp_path, ledger_url):  # noqa: F811 (the imported fixture)
    ledger = Ledger.for_run(str(tmp_path / "run"), ledger_url)
    labels = {"sea port": ("A", "equivalent"), "iron ore": ("B", "singleton")}
    with ledger.transaction() as session:
        session.add_batch(BATCH, "mcphrasy-clusters")
        assert record_labels(session, "g1", "ann", BATCH, labels) == 2
    with ledger.transaction() as session:
        assert record_labels(session, "g1", "ann", BATCH, labels) == 0  # the same sheet again changes nothing
    with ledger.read() as session:
        assert read_labels(session) == {"g1": {"ann": labels}}
        assert sorted(session.dump()["cluster_labels"]) == [
            ("g1", "ann", "iron ore", BATCH, "B", "singleton"), ("g1", "ann", "sea port", BATCH, "A", "equivalent")]
    ledger.dispose()
