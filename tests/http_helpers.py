"""Local HTTP servers in tests: a request handler that writes no access log and sends a reply in one call, and a
loopback server running one on a thread."""
import contextlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextlib.contextmanager
def serving(handler):
    """A ThreadingHTTPServer of `handler` on a free loopback port, serving on a daemon thread until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler with `reply(status, body, content_type, headers)` and no access log on stderr."""

    def reply(self, status, body=b"", content_type=None, headers=None):
        """Send `status`, the content type (when given), the length, `headers` ({name: value}) and `body` (bytes)."""
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass
