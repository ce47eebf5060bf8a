"""The annotation ledger: every batch, item, assignment, answer and decision, in one SQL database.

Natural keys make every write idempotent: adding a batch, item, assignment or answer that is already
there changes nothing, so re-importing a file, importing overlapping files or re-polling MTurk is safe.
All writes go through `Ledger.transaction()`: one import is one transaction, so a crash mid-import
leaves the ledger exactly as it was, and writers take turns. SQLite (the default, `RUN_DIR/ledger.sqlite`)
or PostgreSQL (any SQLAlchemy URL).

A companion keeps its own tables in the same database: its dataset declaration names them (`ledger_tables`, a
MetaData of its own, picforge.datasets), `schema()` adds every installed dataset's to the core's, and it writes them
through the session's keyed writes (`get`, `insert_or_ignore`, `upsert`). A Ledger creates the tables of `schema()`
it lacks when it opens, so what a ledger holds does not depend on what the process imported first.
"""
import contextlib
import datetime
import functools
import json
import logging
import os

import sqlalchemy as sa

from picforge import verbs
from picforge.errors import InputError
from picforge.paths import LEDGER_FILE

# Environment variable naming the ledger's SQLAlchemy URL when --ledger is not given.
LEDGER_VARIABLE = "PICFORGE_LEDGER"
BUSY_NOTICE_SECONDS = 2  # a writer waits this long for the SQLite ledger before saying it is waiting
BUSY_WAIT_SECONDS = 600  # and at most this long in all
log = logging.getLogger(__name__)

# Decision rounds: 0 expert sheet accepted, 1 MTurk verification, 2 expert verification of round-1
# rejections, 3 PS verification by three experts.
ROUND_EXPERT, ROUND_MTURK, ROUND_VERIFY2, ROUND_PS = 0, 1, 2, 3
ACCEPTED, REJECTED = "accepted", "rejected"
CANCELLED = "cancelled"   # the status of a batch taken back before anyone worked on it
# Item kinds: a whole triplet (expert round), its three annotations (verification rounds), PS pairs.
ITEM_KINDS = ("triplet", "q1", "q2", "q3", "ps_pos", "ps_neg")

metadata = sa.MetaData()  # the core's tables; schema() adds the installed datasets' (see the module docstring)

batches = sa.Table(
    "batches", metadata,
    sa.Column("batch_id", sa.String(200), primary_key=True),
    # expert | mturk | mturk-manual | mturk-questions | verify2 | ps-verify
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("round", sa.Integer),
    sa.Column("status", sa.String(40), nullable=False, default="open"),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("meta", sa.Text, nullable=False, default="{}"),  # JSON: annotator, role, HIT type, files…
)

items = sa.Table(
    "items", metadata,
    sa.Column("item_id", sa.String(250), primary_key=True),  # item_id(triplet_id, kind)
    sa.Column("triplet_id", sa.String(200), nullable=False, index=True),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.UniqueConstraint("triplet_id", "kind", name="uq_items_triplet_kind"),
)

batch_items = sa.Table(
    "batch_items", metadata,
    sa.Column("batch_id", sa.String(200), sa.ForeignKey("batches.batch_id"), primary_key=True),
    sa.Column("item_id", sa.String(250), sa.ForeignKey("items.item_id"), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
)

workers = sa.Table(
    "workers", metadata,
    sa.Column("worker_id", sa.String(200), primary_key=True),
    sa.Column("source", sa.String(20), nullable=False),     # mturk | expert
    sa.Column("first_seen", sa.String(40), nullable=False),
)

hits = sa.Table(
    "hits", metadata,
    sa.Column("hit_id", sa.String(200), primary_key=True),
    sa.Column("batch_id", sa.String(200), sa.ForeignKey("batches.batch_id"), nullable=False, index=True),
    sa.Column("request_token", sa.String(64), unique=True),
    sa.Column("hit_type_id", sa.String(200)),
    sa.Column("status", sa.String(40), nullable=False, default="Assignable"),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("meta", sa.Text, nullable=False, default="{}"),
)

hit_items = sa.Table(
    "hit_items", metadata,
    sa.Column("hit_id", sa.String(200), sa.ForeignKey("hits.hit_id"), primary_key=True),
    sa.Column("item_id", sa.String(250), sa.ForeignKey("items.item_id"), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
)

assignments = sa.Table(
    "assignments", metadata,
    sa.Column("assignment_id", sa.String(200), primary_key=True),
    sa.Column("batch_id", sa.String(200), sa.ForeignKey("batches.batch_id"), nullable=False, index=True),
    sa.Column("worker_id", sa.String(200), sa.ForeignKey("workers.worker_id"), nullable=False, index=True),
    sa.Column("hit_id", sa.String(200)),
    sa.Column("status", sa.String(40), nullable=False),   # Submitted | Approved | Rejected | Ingested
    sa.Column("submitted_at", sa.String(40)),
    sa.Column("meta", sa.Text, nullable=False, default="{}"),
)

answers = sa.Table(
    "answers", metadata,
    sa.Column("assignment_id", sa.String(200), sa.ForeignKey("assignments.assignment_id"), primary_key=True),
    sa.Column("field", sa.String(250), primary_key=True),
    sa.Column("item_id", sa.String(250), sa.ForeignKey("items.item_id"), index=True),
    sa.Column("value", sa.Text, nullable=False),
)

decisions = sa.Table(
    "decisions", metadata,
    sa.Column("item_id", sa.String(250), sa.ForeignKey("items.item_id"), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("decision", sa.String(20), nullable=False),   # accepted | rejected
    sa.Column("reason", sa.Text, nullable=False, default=""),
    sa.Column("decided_by", sa.String(200), nullable=False, default=""),
    sa.Column("decided_at", sa.String(40), nullable=False),
    sa.Column("detail", sa.Text, nullable=False, default="{}"),  # JSON: votes, corrected text, …
)

expert_annotations = sa.Table(
    "expert_annotations", metadata,
    sa.Column("triplet_id", sa.String(200), primary_key=True),
    sa.Column("annotator", sa.String(200), nullable=False),
    sa.Column("batch_id", sa.String(200), sa.ForeignKey("batches.batch_id"), nullable=False),
    sa.Column("phrase", sa.Text, nullable=False),
    sa.Column("q1", sa.Text, nullable=False),
    sa.Column("q2", sa.Text, nullable=False),
    sa.Column("same_meaning", sa.Boolean, nullable=False),
)

# Items handed back from a batch (its batch was cancelled, or an expert's row was reassigned): the
# membership stays as history, but the item counts as waiting again for every export.
releases = sa.Table(
    "releases", metadata,
    sa.Column("batch_id", sa.String(200), sa.ForeignKey("batches.batch_id"), primary_key=True),
    sa.Column("item_id", sa.String(250), sa.ForeignKey("items.item_id"), primary_key=True),
    sa.Column("reason", sa.Text, nullable=False, default=""),
    sa.Column("released_at", sa.String(40), nullable=False),
)

# How far an assignment's status has come: a status of lower rank never replaces one of higher rank, so
# an older results file or a re-poll cannot move Approved/Rejected back to Submitted (a rejection may
# still be overridden by an approval: both rank the same).
STATUS_RANK = {"Submitted": 0, "Ingested": 0, "Approved": 1, "Rejected": 1}

# MTurk workers blocked by `mturk review --block` (their gold record failed): by the API, or listed for the
# requester site.
worker_blocks = sa.Table(
    "worker_blocks", metadata,
    sa.Column("worker_id", sa.String(200), sa.ForeignKey("workers.worker_id"), primary_key=True),
    sa.Column("batch_id", sa.String(200), sa.ForeignKey("batches.batch_id"), nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("how", sa.String(40), nullable=False),   # api | requester-site
    sa.Column("blocked_at", sa.String(40), nullable=False),
)

# Annotated triplets a later `picforge mine` dropped or whose text it changed (annotation/triplets.py): left out
# of every later round and of the release; the rest of the ledger keeps its verification.
stale_triplets = sa.Table(
    "stale_triplets", metadata,
    sa.Column("triplet_id", sa.String(200), primary_key=True),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("marked_at", sa.String(40), nullable=False),
)

# Columns that record when, not what: left out when comparing two ledgers' contents.
TIME_COLUMNS = {"created_at", "first_seen", "decided_at", "released_at", "blocked_at", "marked_at"}
# PostgreSQL advisory lock every writing transaction holds until it ends, so writers take turns as
# BEGIN IMMEDIATE makes them on SQLite (the key is arbitrary: "picf" in ASCII).
WRITER_LOCK_KEY = 0x70696366
WRITER_LOCK = sa.select(sa.func.pg_advisory_xact_lock(WRITER_LOCK_KEY))
WRITER_LOCK_IF_FREE = sa.select(sa.func.pg_try_advisory_xact_lock(WRITER_LOCK_KEY))
# What a writer says before it waits for another (PostgreSQL: the lock above; SQLite: the busy file).
WAITING = "%s: another picforge command is writing to the ledger; waiting%s for it to finish"


@functools.lru_cache(maxsize=None)
def schema():
    """The ledger's tables: the core's (`metadata`) and every installed dataset's `ledger_tables`, on one MetaData;
    a table name declared twice is refused, naming both declarations."""
    whole = sa.MetaData()
    owner = {}
    for table in metadata.sorted_tables:
        table.to_metadata(whole)
        owner[table.name] = "the core ledger (picforge/ledger.py)"
    for name, dataset in verbs.datasets().datasets.items():
        for table in dataset.tables():
            declared = f"dataset {name} ({dataset.ledger_tables})"
            if table.name in owner:
                raise InputError(f"ledger table {table.name!r} is declared by {owner[table.name]} and by {declared}; "
                                 "rename one of them")
            table.to_metadata(whole)
            owner[table.name] = declared
    return whole


def add_ledger_option(parser):
    """--ledger URL, for every verb that opens a ledger (read through `ledger_url`)."""
    parser.add_argument("--ledger", metavar="URL",
                        help=f"SQLAlchemy URL of the ledger (default: ${LEDGER_VARIABLE}, "
                             "else sqlite:///RUN_DIR/ledger.sqlite)")


def ledger_url(args):
    """The URL of the ledger a verb opens: --ledger, else $PICFORGE_LEDGER, else None (RUN_DIR/ledger.sqlite)."""
    return args.ledger or os.environ.get(LEDGER_VARIABLE)


def item_id(triplet_id, kind):
    """The natural id of one item: the triplet and what about it is annotated or verified."""
    if kind not in ITEM_KINDS:
        raise ValueError(f"unknown item kind {kind!r}; expected one of {', '.join(ITEM_KINDS)}")
    return f"{triplet_id}/{kind}"


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def default_url(run_dir, create=True):
    """`sqlite:///RUN_DIR/ledger.sqlite` (the run directory must be local for the default ledger; it is made only
    when `create`)."""
    if "://" in str(run_dir):
        raise InputError(f"{run_dir}: the default SQLite ledger needs a local run directory; "
                         "pass --ledger with an SQLAlchemy URL (e.g. postgresql://…)")
    if os.path.exists(run_dir) and not os.path.isdir(run_dir):
        raise InputError(f"--run {run_dir}: is a file, not a run directory; pass the folder `picforge mine` wrote")
    if create:
        os.makedirs(run_dir, exist_ok=True)
    return "sqlite:///" + os.path.abspath(os.path.join(run_dir, LEDGER_FILE))


# An SQLite error meaning the file is not a usable ledger at all (damaged, or another kind of file).
DAMAGED = ("file is not a database", "malformed", "not a database", "disk image")
# An SQLite error meaning the ledger's file or folder takes no writes (read-only, full, missing).
UNWRITABLE = ("readonly", "read-only", "unable to open", "disk is full", "disk I/O")


def _row(mapping):
    row = dict(mapping)
    for key in ("meta", "detail"):
        if key in row and isinstance(row[key], str):
            row[key] = json.loads(row[key])
    return row


def _json(value):
    return json.dumps(value or {}, sort_keys=True, ensure_ascii=False)


def check_storable(table, row):
    """Refuse, on every backend alike, text that PostgreSQL would refuse and SQLite would store: a value
    longer than its column's length, or one holding a NUL character (ValueError naming the column)."""
    for column, value in row.items():
        if not isinstance(value, str):
            continue
        limit = getattr(table.c[column].type, "length", None)
        too_long = limit is not None and len(value) > limit
        if too_long or "\x00" in value:
            shown = repr(value if len(value) <= 40 else value[:40] + "…")
            raise ValueError(f"{column} {shown} is {len(value)} characters long; the ledger's {table.name}.{column} "
                             f"holds at most {limit}" if too_long else
                             f"{column} {shown} contains a NUL character, which the ledger cannot store")


@functools.lru_cache(maxsize=None)
def _select_by_key(table, key_columns):
    """SELECT of one row by its key (built once per table and key, then reused with parameters)."""
    return sa.select(table).where(*(table.c[k] == sa.bindparam(k) for k in key_columns))


@functools.lru_cache(maxsize=None)
def _insert(table):
    return sa.insert(table)


@functools.lru_cache(maxsize=None)
def _update_by_key(table, key_columns, changed_columns):
    """UPDATE of some columns of one row by its key (key parameters are named key_<column>)."""
    return (sa.update(table).where(*(table.c[k] == sa.bindparam(f"key_{k}") for k in key_columns))
            .values({c: sa.bindparam(c) for c in changed_columns}))


def create_engine(url):
    """The engine of a ledger URL; a bare `postgresql://` means psycopg 3 (the `postgres` extra), not psycopg2."""
    try:
        parsed = sa.make_url(url)
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        return sa.create_engine(parsed, future=True)
    except sa.exc.ArgumentError as err:
        raise InputError(f"--ledger {url!r}: not an SQLAlchemy URL ({err}); write e.g. "
                         "postgresql://USER@HOST/DATABASE or sqlite:///PATH") from None
    except ModuleNotFoundError as err:
        shown = sa.make_url(url).render_as_string(hide_password=True)
        raise InputError(f"--ledger {shown}: the database driver is not installed ({err}); "
                         "for PostgreSQL: pip install 'picforge[postgres]'") from None


class Ledger:
    """Handle on one ledger database; the tables of `schema()` that it lacks are created when it opens."""

    def __init__(self, url, create=True):
        """The ledger at `url`; its missing tables are created, and an SQLite file that is not there is made only
        when `create` (a verb that only reads is refused instead, and creates nothing)."""
        self.url = url
        self.engine = create_engine(url)
        if self.engine.dialect.name == "sqlite":
            _sqlite_transactions(self.engine)
            if not create and not os.path.isfile(self.engine.url.database or ""):
                raise InputError(f"{self.where()}: no ledger there; this command only reads one: run the verb that "
                                 "starts it first (`picforge annotate export expert`) or pass the --run/--ledger "
                                 "that holds it (nothing was created)")
        with self._writing() as conn:
            schema().create_all(conn)

    @classmethod
    def for_run(cls, run_dir, url=None, create=True):
        """The ledger at `url`, or the default SQLite file in `run_dir` (made only when `create`)."""
        return cls(url or default_url(run_dir, create), create)

    def where(self):
        """The ledger as its messages name it: the SQLite file, else the URL without its password."""
        if self.engine.dialect.name == "sqlite" and self.engine.url.database:
            return self.engine.url.database
        return self.engine.url.render_as_string(hide_password=True)

    @contextlib.contextmanager
    def _store_errors(self):
        """A database error as one line naming the ledger and what to do (the SQL stays behind `-v`)."""
        try:
            yield
        except sa.exc.DBAPIError as err:
            reason = str(err.orig).strip().splitlines()[0] if err.orig is not None else type(err).__name__
            if any(word in reason for word in DAMAGED):
                fix = "it is damaged or not a picforge ledger: restore it from a backup or name the right one"
            elif any(word in reason for word in UNWRITABLE):
                fix = "its file or folder cannot be written: free space there, make it writable, or name another"
            else:
                fix = "the ledger refused the change; run the command again with -v for the statement"
            raise InputError(f"{self.where()}: {reason}; {fix} (nothing was recorded)") from None

    @contextlib.contextmanager
    def _writing(self):
        """A connection in a transaction no other writer runs beside (the others wait until it ends)."""
        with self._store_errors(), self.engine.begin() as conn:
            if conn.dialect.name == "postgresql" and not conn.execute(WRITER_LOCK_IF_FREE).scalar():
                log.warning(WAITING, self.engine.url.render_as_string(hide_password=True), "")
                conn.execute(WRITER_LOCK)
            yield conn

    @contextlib.contextmanager
    def transaction(self):
        """One all-or-nothing unit of work: commits on success, rolls back on any exception or crash."""
        with self._writing() as conn:
            yield LedgerSession(conn)

    @contextlib.contextmanager
    def read(self):
        """A session for queries only; all its queries see the ledger as it was when the first one ran."""
        with self._store_errors(), self.engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn.execution_options(isolation_level="REPEATABLE READ")
            yield LedgerSession(conn)

    def dispose(self):
        self.engine.dispose()


def _sqlite_transactions(engine):
    """Make pysqlite start a real transaction (BEGIN IMMEDIATE) so a whole import is atomic; a writer that
    finds the ledger busy says so, waits its turn up to BUSY_WAIT_SECONDS, then gives up with one clear line."""
    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None
        dbapi_conn.execute("PRAGMA foreign_keys=ON")
        dbapi_conn.execute("PRAGMA busy_timeout=30000")

    @sa.event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql(f"PRAGMA busy_timeout={BUSY_NOTICE_SECONDS * 1000}")
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            return
        except sa.exc.OperationalError as err:
            if "locked" not in str(err.orig):
                raise
        finally:
            conn.exec_driver_sql("PRAGMA busy_timeout=30000")
        where = engine.url.database
        log.warning(WAITING, where, f" up to {BUSY_WAIT_SECONDS} s")
        conn.exec_driver_sql(f"PRAGMA busy_timeout={BUSY_WAIT_SECONDS * 1000}")
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        except sa.exc.OperationalError as err:
            if "locked" not in str(err.orig):
                raise
            raise InputError(f"{where}: the ledger stayed busy for {BUSY_WAIT_SECONDS} s (another picforge command "
                             "is writing to it); re-run this command when that one has finished") from None
        finally:
            conn.exec_driver_sql("PRAGMA busy_timeout=30000")


class HistoryConflict(InputError):
    """An ingest that would change what the ledger recorded of an assignment (its worker, HIT, batch or answers)."""


def refuse_rewrite(stored, changes, row):
    """HistoryConflict naming the stored assignment (and the row it was read from) and `row` when any of
    `changes` ({what: (recorded, new)}) differs."""
    differ = [f"{what} {old!r} -> {new!r}" for what, (old, new) in changes.items() if old != new]
    if differ:
        first = json.loads(stored["meta"]).get("row") or f"saved {stored['submitted_at'] or 'earlier'}"
        raise HistoryConflict(f"{row or 'this ingest'}: assignment {stored['assignment_id']} is recorded (from {first}) "
                              f"with other contents ({'; '.join(differ)}); recorded history is not rewritten: ingest "
                              "the file as first downloaded, or leave this row out")


class LedgerSession:
    """Reads and idempotent writes over one connection (inside `Ledger.transaction()` or `.read()`)."""

    def __init__(self, conn):
        self.conn = conn

    # -- keyed writes, for the tables above and those the installed datasets declare ------------

    def get(self, table, key):
        """The row of `table` whose key columns hold `key` ({column: value}), or None."""
        found = self.conn.execute(_select_by_key(table, tuple(key)), key).mappings().first()
        return dict(found) if found is not None else None

    def insert_or_ignore(self, table, key, values):
        """Insert the row unless its key exists; True when inserted."""
        check_storable(table, {**key, **values})
        if self.get(table, key) is not None:
            return False
        self.conn.execute(_insert(table), {**key, **values})
        return True

    def upsert(self, table, key, values):
        """Insert, or update the given fields where they differ; True when anything changed."""
        check_storable(table, {**key, **values})
        found = self.get(table, key)
        if found is None:
            self.conn.execute(_insert(table), {**key, **values})
            return True
        changed = {k: v for k, v in values.items() if found.get(k) != v}
        if not changed:
            return False
        statement = _update_by_key(table, tuple(key), tuple(sorted(changed)))
        self.conn.execute(statement, {**{f"key_{k}": v for k, v in key.items()}, **changed})
        return True

    # -- writes ----------------------------------------------------------------------------------

    def add_batch(self, batch_id, kind, round=None, meta=None):
        """Register a batch (no-op if it exists); True when new."""
        return self.insert_or_ignore(batches, {"batch_id": batch_id}, {
            "kind": kind, "round": round, "status": "open", "created_at": now(), "meta": _json(meta)})

    def next_batch_id(self, kind, name):
        """`<kind>-<name>-NNN`, numbered after the batches of that kind and name already recorded."""
        prefix = f"{kind}-{name}-"
        taken = self.conn.execute(sa.select(sa.func.count()).select_from(batches).where(
            batches.c.kind == kind, batches.c.batch_id.startswith(prefix, autoescape=True))).scalar_one()
        return f"{prefix}{taken + 1:03d}"

    def update_batch(self, batch_id, status=None, meta=None):
        """Set a batch's status and/or merge keys into its meta; True when anything changed."""
        found = self.batch(batch_id)
        if found is None:
            raise KeyError(f"no batch {batch_id!r} in the ledger")
        values = {}
        if status is not None:
            values["status"] = status
        if meta:
            values["meta"] = _json({**found["meta"], **meta})
        values = {k: v for k, v in values.items() if v != (_json(found[k]) if k == "meta" else found[k])}
        check_storable(batches, values)
        if values:
            self.conn.execute(sa.update(batches).where(batches.c.batch_id == batch_id).values(**values))
        return bool(values)

    def add_items(self, batch_id, keys):
        """Create the items `(triplet_id, kind)` if needed and link them to the batch in order.

        Returns the item ids (in the given order); linking an item twice changes nothing.
        """
        ids = []
        position = self.conn.execute(
            sa.select(sa.func.count()).select_from(batch_items).where(batch_items.c.batch_id == batch_id)
        ).scalar_one()
        for triplet_id, kind in keys:
            iid = item_id(triplet_id, kind)
            self.insert_or_ignore(items, {"item_id": iid}, {"triplet_id": triplet_id, "kind": kind})
            if self.insert_or_ignore(batch_items, {"batch_id": batch_id, "item_id": iid},
                                     {"position": position}):
                position += 1
            ids.append(iid)
        return ids

    def release_items(self, batch_id, item_ids, reason):
        """Hand items of a batch back (they wait for the next export again); returns how many were newly released."""
        return sum(self.insert_or_ignore(releases, {"batch_id": batch_id, "item_id": iid},
                                         {"reason": reason, "released_at": now()}) for iid in item_ids)

    def add_worker(self, worker_id, source):
        """Register a worker (MTurk worker id or expert name); True when new."""
        return self.insert_or_ignore(workers, {"worker_id": worker_id},
                                     {"source": source, "first_seen": now()})

    def add_hit(self, hit_id, batch_id, item_ids, request_token=None, hit_type_id=None, status="Assignable",
                meta=None):
        """Register a HIT and the items it shows (in order); True when new."""
        new = self.insert_or_ignore(hits, {"hit_id": hit_id}, {
            "batch_id": batch_id, "request_token": request_token, "hit_type_id": hit_type_id,
            "status": status, "created_at": now(), "meta": _json(meta)})
        for position, iid in enumerate(item_ids):
            self.insert_or_ignore(hit_items, {"hit_id": hit_id, "item_id": iid}, {"position": position})
        return new

    def update_hit(self, hit_id, status=None, meta=None):
        """Record a HIT's latest status and/or merge keys into its meta; True when anything changed."""
        values = {} if status is None else {"status": status}
        if meta:
            values["meta"] = _json({**json.loads(self.get(hits, {"hit_id": hit_id})["meta"]), **meta})
        return self.upsert(hits, {"hit_id": hit_id}, values)

    def record_assignment(self, assignment_id, batch_id, worker_id, status, hit_id=None, submitted_at=None,
                          meta=None, source="mturk"):
        """Insert an assignment, or update it: its status only moves forward (STATUS_RANK) and new meta keys
        are merged into the stored ones; its batch, worker and HIT never change (HistoryConflict). `meta["row"]`
        says where it was read from. True when anything changed."""
        found = self.get(assignments, {"assignment_id": assignment_id})
        if found is not None:
            refuse_rewrite(found, {"batch": (found["batch_id"], batch_id), "worker": (found["worker_id"], worker_id),
                                   "HIT": (found["hit_id"], hit_id)}, (meta or {}).get("row"))
        self.add_worker(worker_id, source)
        if found is not None:
            if STATUS_RANK.get(status, 0) < STATUS_RANK.get(found["status"], 0):
                status = found["status"]
            recorded = json.loads(found["meta"])
            meta = {**recorded, **(meta or {}), **({"row": recorded["row"]} if "row" in recorded else {})}
        return self.upsert(assignments, {"assignment_id": assignment_id}, {
            "batch_id": batch_id, "worker_id": worker_id, "hit_id": hit_id, "status": status,
            "submitted_at": submitted_at, "meta": _json(meta)})

    def record_answers(self, assignment_id, answers_by_field, replace=False, row=None, locked_by=()):
        """Store an assignment's answers `{field: (item_id or None, value)}`.

        An answer already recorded is changed only with `replace` (a corrected sheet of an expert round) while its
        item has no decision of a round in `locked_by`; any other change is a HistoryConflict naming `row` (where
        it was read) and the row first recorded. Returns the number of answers inserted or changed.
        """
        changed = 0
        for field, (iid, value) in answers_by_field.items():
            key, values = {"assignment_id": assignment_id, "field": field}, {"item_id": iid, "value": str(value)}
            found = self.get(answers, key)
            if replace and not any(self.get(decisions, {"item_id": iid, "round": r}) for r in locked_by):
                changed += self.upsert(answers, key, values)
                continue
            if found is not None:
                stored = self.get(assignments, {"assignment_id": assignment_id})
                refuse_rewrite(stored, {f"answer {field}": (found["value"], values["value"])}, row)
            changed += self.insert_or_ignore(answers, key, values)
        return changed

    def record_decision(self, item_id_, round, decision, reason="", decided_by="", detail=None):
        """The decision on an item in a round (one per (item, round)); re-recording the same changes
        nothing, a different outcome replaces it. True when anything changed."""
        if decision not in (ACCEPTED, REJECTED):
            raise ValueError(f"decision must be {ACCEPTED!r} or {REJECTED!r}, not {decision!r}")
        found = self.get(decisions, {"item_id": item_id_, "round": round})
        values = {"decision": decision, "reason": reason, "decided_by": decided_by, "detail": _json(detail)}
        if found is not None and all(found[k] == v for k, v in values.items()):
            return False
        return self.upsert(decisions, {"item_id": item_id_, "round": round}, {**values, "decided_at": now()})

    def record_expert_annotation(self, annotation, batch_id, phrase):
        """Store an accepted `ExpertAnnotation` (a corrected sheet replaces it); True when changed."""
        return self.upsert(expert_annotations, {"triplet_id": annotation["triplet_id"]}, {
            "annotator": annotation["annotator"], "batch_id": batch_id, "phrase": phrase,
            "q1": annotation["q1"], "q2": annotation["q2"], "same_meaning": annotation["same_meaning"]})

    def record_worker_block(self, worker_id, batch_id, reason, how):
        """Record that a worker is blocked (`how`: api or requester-site); True when new."""
        return self.insert_or_ignore(worker_blocks, {"worker_id": worker_id},
                                      {"batch_id": batch_id, "reason": reason, "how": how, "blocked_at": now()})

    def mark_stale(self, reasons):
        """Make {triplet_id: reason} the stale set (triplets no longer stale are unmarked); returns the ids newly
        marked."""
        marked = self.stale()
        gone = [tid for tid in marked if tid not in reasons]
        if gone:
            self.conn.execute(sa.delete(stale_triplets).where(stale_triplets.c.triplet_id.in_(gone)))
        for tid, reason in reasons.items():
            if marked.get(tid) != reason:
                self.upsert(stale_triplets, {"triplet_id": tid}, {"reason": reason, "marked_at": now()})
        return sorted(set(reasons) - set(marked))

    # -- reads -------------------------------------------------------------------------------------

    def batch(self, batch_id):
        found = self.get(batches, {"batch_id": batch_id})
        return _row(found) if found else None

    def batches(self, kind=None):
        query = sa.select(batches).order_by(batches.c.created_at, batches.c.batch_id)
        if kind is not None:
            query = query.where(batches.c.kind == kind)
        return [_row(r) for r in self.conn.execute(query).mappings()]

    def items(self, batch_id=None, kind=None, triplet_id=None):
        """Items (item_id, triplet_id, kind[, batch_id, position]), optionally of one batch, kind or triplet."""
        if batch_id is not None:
            query = (sa.select(items, batch_items.c.batch_id, batch_items.c.position)
                     .join(batch_items, batch_items.c.item_id == items.c.item_id)
                     .where(batch_items.c.batch_id == batch_id).order_by(batch_items.c.position))
        else:
            query = sa.select(items).order_by(items.c.item_id)
        if kind is not None:
            query = query.where(items.c.kind == kind)
        if triplet_id is not None:
            query = query.where(items.c.triplet_id == triplet_id)
        return [dict(r) for r in self.conn.execute(query).mappings()]

    def item_batches(self, item_id_, kind=None):
        """Batches that contain an item, optionally only of one batch kind."""
        query = (sa.select(batches).join(batch_items, batch_items.c.batch_id == batches.c.batch_id)
                 .where(batch_items.c.item_id == item_id_).order_by(batches.c.created_at, batches.c.batch_id))
        if kind is not None:
            query = query.where(batches.c.kind == kind)
        return [_row(r) for r in self.conn.execute(query).mappings()]

    def memberships(self, kind):
        """{item_id: [batch_id, …]} for the items in batches of one kind, less those released from them."""
        released = sa.select(releases.c.item_id).where(releases.c.batch_id == batch_items.c.batch_id,
                                                       releases.c.item_id == batch_items.c.item_id)
        query = (sa.select(batch_items.c.item_id, batch_items.c.batch_id)
                 .join(batches, batches.c.batch_id == batch_items.c.batch_id)
                 .where(batches.c.kind == kind, ~released.exists()).order_by(batch_items.c.batch_id))
        found = {}
        for iid, batch_id in self.conn.execute(query):
            found.setdefault(iid, []).append(batch_id)
        return found

    def releases(self, batch_id=None):
        """Released items: [{batch_id, item_id, reason, released_at}], optionally of one batch."""
        query = sa.select(releases).order_by(releases.c.batch_id, releases.c.item_id)
        if batch_id is not None:
            query = query.where(releases.c.batch_id == batch_id)
        return [dict(r) for r in self.conn.execute(query).mappings()]

    def hit_items(self, hit_id):
        query = sa.select(hit_items.c.item_id).where(hit_items.c.hit_id == hit_id).order_by(hit_items.c.position)
        return list(self.conn.execute(query).scalars())

    def hits(self, batch_id=None):
        query = sa.select(hits).order_by(hits.c.created_at, hits.c.hit_id)
        if batch_id is not None:
            query = query.where(hits.c.batch_id == batch_id)
        return [_row(r) for r in self.conn.execute(query).mappings()]

    def stale(self):
        """{triplet_id: reason} of the triplets marked stale."""
        rows = self.conn.execute(sa.select(stale_triplets).order_by(stale_triplets.c.triplet_id)).mappings()
        return {r["triplet_id"]: r["reason"] for r in rows}

    def worker_blocks(self):
        return [dict(r) for r in self.conn.execute(sa.select(worker_blocks).order_by(worker_blocks.c.worker_id))
                .mappings()]

    def workers(self):
        return [dict(r) for r in self.conn.execute(sa.select(workers).order_by(workers.c.worker_id)).mappings()]

    def assignments(self, batch_id=None, worker_id=None):
        query = sa.select(assignments).order_by(assignments.c.assignment_id)
        if batch_id is not None:
            query = query.where(assignments.c.batch_id == batch_id)
        if worker_id is not None:
            query = query.where(assignments.c.worker_id == worker_id)
        return [_row(r) for r in self.conn.execute(query).mappings()]

    def answers(self, assignment_id=None, item_id_=None, batch_id=None, batch_kind=None):
        """Answers joined with their assignment's worker, batch and status (optionally of one batch kind)."""
        query = (sa.select(answers, assignments.c.worker_id, assignments.c.batch_id, assignments.c.status)
                 .join(assignments, assignments.c.assignment_id == answers.c.assignment_id)
                 .order_by(answers.c.assignment_id, answers.c.field))
        if assignment_id is not None:
            query = query.where(answers.c.assignment_id == assignment_id)
        if item_id_ is not None:
            query = query.where(answers.c.item_id == item_id_)
        if batch_id is not None:
            query = query.where(assignments.c.batch_id == batch_id)
        if batch_kind is not None:
            query = query.join(batches, batches.c.batch_id == assignments.c.batch_id).where(
                batches.c.kind == batch_kind)
        return [dict(r) for r in self.conn.execute(query).mappings()]

    def decisions(self, round=None, decision=None, kind=None, item_id_=None):
        """Decisions joined with their item's triplet and kind."""
        query = (sa.select(decisions, items.c.triplet_id, items.c.kind)
                 .join(items, items.c.item_id == decisions.c.item_id)
                 .order_by(decisions.c.item_id, decisions.c.round))
        if round is not None:
            query = query.where(decisions.c.round == round)
        if decision is not None:
            query = query.where(decisions.c.decision == decision)
        if kind is not None:
            query = query.where(items.c.kind == kind)
        if item_id_ is not None:
            query = query.where(decisions.c.item_id == item_id_)
        return [_row(r) for r in self.conn.execute(query).mappings()]

    def decision_map(self, round):
        """{item_id: decision dict} of one round."""
        return {d["item_id"]: d for d in self.decisions(round=round)}

    def expert_annotations(self, accepted_only=True):
        """ExpertAnnotation rows (plus batch_id, phrase); by default only those whose latest sheet row
        was accepted (round-0 decision `accepted`)."""
        query = sa.select(expert_annotations).order_by(expert_annotations.c.triplet_id)
        if accepted_only:
            query = query.join(decisions, sa.and_(
                decisions.c.item_id == expert_annotations.c.triplet_id + "/triplet",
                decisions.c.round == ROUND_EXPERT, decisions.c.decision == ACCEPTED))
        return [dict(r) for r in self.conn.execute(query).mappings()]

    def dump(self, with_times=False):
        """Every table's rows, sorted, as {table: [row, …]} (for comparing ledgers)."""
        out = {}
        for table in schema().sorted_tables:
            cols = [c for c in table.c if with_times or c.name not in TIME_COLUMNS]
            rows = [tuple(r) for r in self.conn.execute(sa.select(*cols))]
            out[table.name] = sorted(rows, key=repr)
        return out
