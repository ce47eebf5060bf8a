"""https:// dumps: downloaded once into the cache, a dropped connection resumed with HTTP Range."""
import http.server
import threading

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from picforge.errors import InputError
from pipeline.mine import resolve_input
from pipeline.stages.read_dump import ReadDump
from tests.pipeline.dump_factory import planted_pages, write_dump


class DumpServer(http.server.ThreadingHTTPServer):
    """Serves one file at /dump.xml.bz2 with Range support; the first `drops` responses stop after `drop_at` bytes."""

    def __init__(self, body, drops=0, drop_at=0):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.body, self.drops, self.drop_at = body, drops, drop_at
        self.requests = []

    def url(self, path="/dump.xml.bz2"):
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        server = self.server
        server.requests.append(self.headers.get("Range"))
        if self.path != "/dump.xml.bz2":
            self.send_error(404)
            return
        start = int(self.headers["Range"][len("bytes="):].rstrip("-")) if self.headers.get("Range") else 0
        self.send_response(206 if start else 200)
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(server.body) - 1}/{len(server.body)}")
        self.send_header("Content-Length", str(len(server.body) - start))
        self.end_headers()
        if server.drops:
            server.drops -= 1
            self.wfile.write(server.body[start:start + server.drop_at])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(server.body[start:])

    def log_message(self, *args):
        pass


@pytest.fixture
def dump_bytes(tmp_path):
    return open(write_dump(tmp_path / "source.xml.bz2", planted_pages()), "rb").read()


def serve(server):
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_dropped_download_resumes_with_range_and_is_cached(tmp_path, dump_bytes):
    server = serve(DumpServer(dump_bytes, drops=2, drop_at=1000))
    try:
        path = resolve_input(server.url(), str(tmp_path / "cache"))
        assert open(path, "rb").read() == dump_bytes
        assert server.requests == [None, "bytes=1000-", "bytes=2000-"]
        assert resolve_input(server.url(), str(tmp_path / "cache")) == path
        assert len(server.requests) == 3  # the second call asks nothing
    finally:
        server.shutdown()
    with TestPipeline() as p:
        ids = p | ReadDump(path) | beam.Map(lambda article: article["page_id"])
        assert_that(ids, equal_to([page["page_id"] for page in planted_pages()]))


def test_download_that_keeps_failing_is_a_clear_error_and_keeps_the_part(tmp_path, dump_bytes):
    server = serve(DumpServer(dump_bytes, drops=10, drop_at=100))
    cache = tmp_path / "cache"
    try:
        with pytest.raises(InputError, match="interrupted 5 times.*re-run the same command to resume"):
            resolve_input(server.url(), str(cache))
        assert [p.stat().st_size for p in cache.glob("*.part")] == [500]
        server.drops = 0
        path = resolve_input(server.url(), str(cache))  # the re-run resumes from the kept part
        assert server.requests[-1] == "bytes=500-" and open(path, "rb").read() == dump_bytes
    finally:
        server.shutdown()


def test_missing_url_names_the_url_and_status(tmp_path, dump_bytes):
    server = serve(DumpServer(dump_bytes))
    try:
        with pytest.raises(InputError, match=r"/nothing\.xml\.bz2: download failed with HTTP 404"):
            resolve_input(server.url("/nothing.xml.bz2"), str(tmp_path / "cache"))
    finally:
        server.shutdown()
