"""Local HTTP servers in tests: a request handler that writes no access log and sends a reply in one call."""
from http.server import BaseHTTPRequestHandler


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
