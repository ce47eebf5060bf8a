"""A throwaway PostgreSQL server for the ledger tests (initdb in a temporary directory, unix socket only),
or the server named by $PICFORGE_TEST_POSTGRES_URL; each test gets a schema of its own."""
import contextlib
import glob
import os
import pwd
import re
import shlex
import shutil
import subprocess
import tempfile
import uuid

import sqlalchemy as sa

URL_VARIABLE = "PICFORGE_TEST_POSTGRES_URL"
NOT_INSTALLED = "PostgreSQL not installed: apt-get install postgresql, or set PICFORGE_TEST_POSTGRES_URL"
# Throwaway data only: no durability.
SERVER_SETTINGS = {"listen_addresses": "''", "fsync": "off", "synchronous_commit": "off",
                   "full_page_writes": "off"}


def find_bindir():
    """The directory holding `initdb` and `pg_ctl`: on PATH, or Debian's newest /usr/lib/postgresql/N/bin."""
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb"):
        return os.path.dirname(on_path)
    debian = glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")
    newest = max(debian, key=lambda path: [int(n) for n in re.findall(r"\d+", path)], default=None)
    return os.path.dirname(newest) if newest else None


def _server_user():
    """Command prefix that runs the server as `postgres` when we are root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return [], None
    account = pwd.getpwnam("postgres")
    return ["runuser", "-u", "postgres", "--"], account


def _run(command):
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


@contextlib.contextmanager
def throwaway_server(bindir):
    """initdb + pg_ctl start in a fresh temporary directory; yields the server's SQLAlchemy URL, then removes it."""
    prefix, account = _server_user()
    root = tempfile.mkdtemp(prefix="picforge-postgres-")
    if account is not None:
        os.chown(root, account.pw_uid, account.pw_gid)
    data, log = os.path.join(root, "data"), os.path.join(root, "server.log")
    pg_ctl = os.path.join(bindir, "pg_ctl")
    try:
        _run(prefix + [os.path.join(bindir, "initdb"), "--pgdata", data, "--username", "postgres",
                       "--auth", "trust", "--encoding", "UTF8", "--no-sync"])
        settings = " ".join(f"-c {key}={value}" for key, value in SERVER_SETTINGS.items())
        try:
            _run(prefix + [pg_ctl, "--pgdata", data, "--log", log, "--wait", "--options",
                           f"{settings} -k {shlex.quote(root)}", "start"])
        except RuntimeError as err:
            raise RuntimeError(f"{err}\n{_tail(log)}") from None
        yield f"postgresql+psycopg://postgres@/postgres?host={root}"
    finally:
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            subprocess.run(prefix + [pg_ctl, "--pgdata", data, "--mode", "immediate", "stop"],
                           capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def _tail(path, lines=20):
    with contextlib.suppress(OSError), open(path, encoding="utf-8", errors="replace") as fh:
        return "".join(fh.readlines()[-lines:])
    return ""


@contextlib.contextmanager
def fresh_schema(server_url):
    """A new empty schema on the server; yields a URL whose connections use it, and drops it afterwards."""
    name = f"ledger_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {name}")
        url = sa.make_url(server_url).update_query_dict({"options": f"-csearch_path={name}"})
        yield url.render_as_string(hide_password=False)
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {name} CASCADE")
    finally:
        admin.dispose()
