"""Ledger tables a test dataset declares (`ledger_tables = "tests.ledger_tables:NOTES"`): one of its own, and one
whose name is the core's."""
import sqlalchemy as sa

NOTES = sa.MetaData()
notes = sa.Table("test_companion_notes", NOTES, sa.Column("note_id", sa.String(20), primary_key=True),
                 sa.Column("text", sa.String(10), nullable=False))
CLASH = sa.MetaData()
sa.Table("batches", CLASH, sa.Column("batch_id", sa.String(20), primary_key=True))
