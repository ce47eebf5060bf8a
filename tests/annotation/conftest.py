"""A small mining run directory (stage select), the ledger backends (SQLite, PostgreSQL) and helpers
shared by the annotation tests."""
import contextlib
import csv
import functools
import os

import pytest

import picforge.cli
from picforge.ledger import LEDGER_VARIABLE
from picforge.ledger import Ledger
from picforge.rundir import RunDir
from tests.annotation.postgres_server import NOT_INSTALLED, URL_VARIABLE, find_bindir, fresh_schema, throwaway_server
from tests.triplets import triplet, triplet_side

# (phrase, [five sentences of page 1], [five of page 2]); the phrase is in the middle sentence.
TRIPLETS = [
    ("cold reception",
     ["The film opened in March.", "Critics had high hopes.", "It met a cold reception from the press.",
      "Ticket sales fell quickly.", "The studio cut its budget."],
     ["The lodge sits at 2,000 metres.", "Guests arrive by cable car.", "A cold reception hall greets them.",
      "A stove heats the dining room.", "The lodge closes in May."]),
    ("massive figure",
     ["The census was taken in 1901.", "Officials counted every household.", "The total was a massive figure for the time.",
      "Later counts were lower.", "The records survive in the archive."],
     ["The temple stands on a hill.", "Pilgrims climb its steps.", "A massive figure of stone guards the gate.",
      "It was carved in the 12th century.", "Visitors <script>alert(1)</script> photograph it."]),
    ("sharp turn",
     ["The road climbs the pass.", "Drivers slow near the top.", "A sharp turn follows the bridge.",
      "Accidents are common there.", "Signs warn of ice."],
     ["The company grew for a decade.", "Then markets changed.", "Its policy took a sharp turn in 2008.",
      "Many staff left.", "The firm recovered later."]),
    ("light touch",
     ["The pianist trained in Vienna.", "Her teachers praised her.", "She played with a light touch on the keys.",
      "Audiences loved the softness.", "She toured widely."],
     ["The regulator was new.", "Banks feared strict rules.", "It chose a light touch instead.",
      "Few fines were issued.", "Critics called it lax."]),
    ("rough draft",
     ["The author wrote quickly.", "Ideas came in bursts.", "A rough draft was ready in a week.",
      "Editing took a year.", "The book sold well."],
     ["The treaty talks were slow.", "Each side proposed text.", "A rough draft circulated in June.",
      "It was revised twice.", "The final version was signed."]),
    ("deep cut",
     ["The surgeon worked for hours.", "The wound was serious.", "A deep cut ran along the arm.",
      "Stitches closed it.", "The patient recovered."],
     ["The album had many hits.", "Fans also loved the rest.", "Its deep cut tracks found a cult following.",
      "Radio ignored them.", "Collectors still seek them."]),
]


def triplet_records():
    return [triplet(f"{n:05d}", phrase, triplet_side(100 + n, s1, phrase), triplet_side(200 + n, s2, phrase),
                    domain_score=0.05 * n, wic_words=[phrase.split()[0]])
            for n, (phrase, s1, s2) in enumerate(TRIPLETS, start=1)]


@pytest.fixture
def run_dir(tmp_path):
    """A run directory holding a completed `select` stage of six triplets."""
    root = str(tmp_path / "run")
    run = RunDir(root)
    run.write_stage("select", triplet_records(), "triplet", inputs={}, options={})
    return root


@pytest.fixture(scope="session")
def postgres_server():
    """SQLAlchemy URL of the session's PostgreSQL server: $PICFORGE_TEST_POSTGRES_URL, or a throwaway cluster."""
    if os.environ.get(URL_VARIABLE):
        yield os.environ[URL_VARIABLE]
        return
    bindir = find_bindir()
    if bindir is None:
        pytest.skip(NOT_INSTALLED)
    with throwaway_server(bindir) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def new_ledger_url(request):
    """Factory of empty ledgers on this test's backend: None for SQLite (the run directory's default file),
    the URL of a fresh schema for PostgreSQL."""
    if request.param == "sqlite":
        yield lambda: None
        return
    server = request.getfixturevalue("postgres_server")
    with contextlib.ExitStack() as schemas:
        yield lambda: schemas.enter_context(fresh_schema(server))


@pytest.fixture
def ledger_url(new_ledger_url, monkeypatch):
    """This test's ledger (None: SQLite in the run directory); `picforge annotate` uses it via $PICFORGE_LEDGER."""
    url = new_ledger_url()
    if url is None:
        monkeypatch.delenv(LEDGER_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(LEDGER_VARIABLE, url)
    return url


def ledger_option(url):
    """`--ledger URL` for a ledger other than this test's default one (nothing for SQLite's run-dir file)."""
    return ["--ledger", url] if url else []


@pytest.fixture
def ledger(run_dir, ledger_url):
    led = Ledger.for_run(run_dir, ledger_url)
    yield led
    led.dispose()


@pytest.fixture
def annotate(ledger_url):
    """Run `picforge annotate …` through picforge.cli.main on this test's ledger backend."""
    return lambda *argv: picforge.cli.main(["annotate", *argv])


def read_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def write_csv(path, rows, columns=None, encoding="utf-8", delimiter=","):
    columns = columns or list(rows[0])
    with open(path, "w", encoding=encoding, newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, delimiter=delimiter, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


@functools.lru_cache(maxsize=None)
def good_answers():
    """Valid expert answers per triplet id: (Q1, Q2, Q3)."""
    return {
        "00001": ("unenthusiastic response", "chilly entrance room", "N"),
        "00002": ("huge number", "giant statue", "N"),
        "00003": ("abrupt bend", "sudden change", "N"),
        "00004": ("gentle playing style", "lenient oversight", "N"),
        "00005": ("first version", "preliminary text", "Y"),
        "00006": ("serious wound", "lesser-known song", "N"),
    }
