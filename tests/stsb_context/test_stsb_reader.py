"""Reading the STS Benchmark layouts, and clear errors for bad rows."""
import pytest

from companions.stsb_context.stsb import read_pairs
from picforge.errors import InputError


def test_reads_shared_file_with_header(stsb_file):
    pairs = read_pairs(str(stsb_file))
    assert len(pairs) == 864  # the data README says 863; the file holds 864 rows after its header
    first = pairs[0]
    assert first == {"pair_id": "MSRvid-2012test-0024", "line": 2, "genre": "main-captions", "score": 2.5,
                     "sentence1": "A girl is styling her hair.", "sentence2": "A girl is brushing her hair."}
    assert {p["genre"] for p in pairs} == {"main-captions", "main-news"}


def test_headerless_official_layout_with_extra_columns_and_quotes(small_stsb):
    pairs = read_pairs(str(small_stsb))
    assert len(pairs) == 14
    assert pairs[0]["line"] == 1 and pairs[5]["sentence2"] == "A woman is cutting tofu."
    quoted = pairs[12]["sentence1"]
    assert quoted.startswith('"We believe we are fully prepared') and '," said Gilles W. Burger' in quoted
    assert pairs[13]["sentence2"] == "We're thrilled to be up 3-2,'' Coach Gregg Popovich said Wednesday."


@pytest.mark.parametrize("row, message", [
    ("main-news\tMSRpar\t2012\t0001\t3.0\tonly one sentence", "expected 7 tab-separated columns"),
    ("main-news\tMSRpar\t2012\t0001\thigh\tA.\tB.", "score column holds 'high'"),
    ("main-news\tMSRpar\t2012\t0001\t7.5\tA.\tB.", "must be a number from 0 to 5"),
    ("main-news\tMSRpar\t2012\t0001\t2.0\t \tB.", "sentence1 or sentence2 is empty"),
    ("main-news\tMSRpar\t2012\t0000\t2.0\tA.\tB.", "already appears on line 1"),
])
def test_bad_row_names_file_and_line(tmp_path, row, message):
    path = tmp_path / "bad.tsv"
    path.write_text("main-news\tMSRpar\t2012\t0000\t1.0\tA cat.\tA dog.\n" + row + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_pairs(str(path))
    assert f"{path} line 2" in str(err.value) and message in str(err.value)


def test_not_utf8_names_line(tmp_path):
    path = tmp_path / "latin1.tsv"
    path.write_bytes(b"g\tf\t2012\t1\t1.0\tA.\tB.\ng\tf\t2012\t2\t1.0\tCaf\xe9.\tB.\n")
    with pytest.raises(InputError, match=r"latin1.tsv: line 2: byte 0xe9 is not UTF-8 .* --encoding"):
        read_pairs(str(path))
