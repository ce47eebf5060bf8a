"""Issue 44 class 7: a dump page that cannot be parsed (a NUL byte or another character XML forbids, a broken tag)
costs that page only, is counted in the funnel and named in the log; the real 5-page sample through `picforge mine`."""
import bz2
import json
import re

import pytest

from picforge.rundir import RunDir
from pipeline.dump.pages import classify_page
from pipeline.dump.reader import iter_pages
from tests.cli_helpers import picforge_in_child

SAMPLE_IDS = [217916, 3277686, 316, 9391, 4702]  # the 5-page sample's articles, in file order
# Characters XML 1.0 forbids, and a tag broken mid-page
DAMAGE = ["\x00", "\x01", "\x0b", "\x1f", "\ufffe", "\uffff", "</text><"]


def damaged_xml(sample, page_index, damage):
    """The sample's XML with `damage` written into the wikitext of its page `page_index` (0-based)."""
    xml = bz2.decompress(sample.read_bytes()).decode("utf-8")
    texts = [m.end() for m in re.finditer(r"<text[^>]*>", xml)]
    at = texts[page_index] + 40
    return xml[:at] + damage + xml[at:]


@pytest.mark.parametrize("damage", DAMAGE, ids=[repr(d) for d in DAMAGE])
def test_each_kind_of_unparseable_page_costs_that_page_only(enwiki_sample, damage):
    xml = damaged_xml(enwiki_sample, 1, damage).encode("utf-8")
    pages = list(iter_pages([xml[at:at + 4096] for at in range(0, len(xml), 4096)], "dump.xml"))
    reasons = [(fields["page_id"], classify_page(fields, text, redirect)) for fields, text, redirect in pages]
    assert reasons == [(page_id, "unparseable" if n == 1 else "") for n, page_id in enumerate(SAMPLE_IDS)]
    assert re.fullmatch(r".+ at line \d+, column \d+", pages[1][0]["detail"])


@pytest.mark.slow  # the whole mine, end to end
def test_a_nul_byte_in_page_2_of_the_sample_costs_page_2_only(enwiki_sample, wic_zip, tmp_path):
    dump = tmp_path / "enwiki-damaged.xml.bz2"
    dump.write_bytes(bz2.compress(damaged_xml(enwiki_sample, 1, "\x00").encode("utf-8")))
    code, out, err = picforge_in_child("mine", "--input", dump, "--wic", wic_zip, "--out", tmp_path / "run")
    assert code == 0, err
    pages = {page["page_id"] for page in RunDir(str(tmp_path / "run")).iter_records("clean")}
    assert pages == set(SAMPLE_IDS) - {SAMPLE_IDS[1]}
    funnel = {row["step"]: row["count"] for row in json.loads((tmp_path / "run" / "funnel.json").read_text())}
    assert funnel["1 pages read from the dump"] == 5
    assert funnel["1 pages skipped as unparseable XML (each named in the log)"] == 1
    assert "1 pages skipped as unparseable XML" in out
    assert f"page {SAMPLE_IDS[1]} " in err and "skipped: unparseable (not well-formed (invalid token) at line" in err
    assert "ERROR" not in err
