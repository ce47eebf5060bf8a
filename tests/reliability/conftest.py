"""Bad inputs a hostile or unlucky user hands to picforge: real files, damaged the way files get damaged."""
import gzip
import io
import zipfile

import pytest

from picforge.rundir import RunDir
from pipeline.mine import CANDIDATES_CSV, mine
from tests.conftest import pipeline_fixture
from tests.pipeline.dump_factory import dump_xml, planted_pages, write_dump


def _rewrite_member(wic_zip, member, damage):
    """The bytes of a copy of the WiC zip whose `member` went through `damage(bytes) -> bytes`."""
    out = io.BytesIO()
    with zipfile.ZipFile(wic_zip) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info)
            target.writestr(info, damage(data) if info.filename == member else data)
    return out.getvalue()


def _flip_stored_byte(zip_bytes, member):
    """The zip with one byte of `member`'s compressed data flipped, so reading it fails its CRC or inflate."""
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as archive:
        info = archive.getinfo(member)
    data = bytearray(zip_bytes)
    header = info.header_offset
    name_len = int.from_bytes(data[header + 26:header + 28], "little")
    extra_len = int.from_bytes(data[header + 28:header + 30], "little")
    start = header + 30 + name_len + extra_len
    data[start + info.compress_size // 2] ^= 0xFF
    return bytes(data)


@pytest.fixture(scope="session")
def bad_files(tmp_path_factory, wic_zip):
    """{name: path} of the files and folders the bad-input cases hand to the commands."""
    tmp = tmp_path_factory.mktemp("bad-files")
    xml = dump_xml(planted_pages()).encode("utf-8")
    files = {
        "dir": tmp / "a-folder",
        "text": tmp / "notes.txt",
        "gzip_named_bz2": tmp / "pages-articles.xml.bz2",
        "empty_xml": tmp / "empty.xml",
        "wic_bad_crc": tmp / "WiC_bad_crc.zip",
        "wic_bad_utf8": tmp / "WiC_bad_utf8.zip",
        "missing": tmp / "no-such-file.xml.bz2",
        "unwritable": "/proc/picforge-run",
    }
    files["dir"].mkdir()
    files["text"].write_text("not a dump\n")
    files["gzip_named_bz2"].write_bytes(gzip.compress(xml))
    files["empty_xml"].write_bytes(b"")
    files["wic_bad_crc"].write_bytes(_flip_stored_byte(wic_zip.read_bytes(), "train/train.data.txt"))
    files["wic_bad_utf8"].write_bytes(
        _rewrite_member(wic_zip, "dev/dev.data.txt", lambda data: data.replace(b"\t", b"\xff\t", 1)))
    return {name: str(path) for name, path in files.items()}


@pipeline_fixture(scope="session")
def finished_run(tmp_path_factory, wic_zip):
    """A complete run of the planted dump (which yields triplets): (dump, run dir, ranked triplets, CSV text)."""
    tmp = tmp_path_factory.mktemp("finished")
    dump = write_dump(tmp / "planted.xml.bz2", planted_pages())
    out = str(tmp / "run")
    mine(dump, str(wic_zip), out)
    triplets = list(RunDir(out).iter_records("select"))
    assert triplets
    return dump, out, triplets, (tmp / "run" / CANDIDATES_CSV).read_text()
