"""The LLM client's HTTP transport: one deadline per request (connect, headers and whole body) and a byte bound on
what a server may send, both checked on every socket read, so no server can hold the client or fill its memory."""
import threading
import time
import urllib.request
from urllib.parse import urlsplit

import httpcore2
import httpx2

_request = threading.local()  # this thread's request in flight: its deadline (monotonic s) and bytes left to read


class RefusedBody(ValueError):
    """A response refused while it arrived: larger than its bound, or compressed (a few KB can unpack to GBs)."""


class DeadlinePassed(httpcore2.ReadTimeout):
    """The request's deadline passed before its whole answer arrived (mapped to a timeout, so it may be retried)."""


def _time_left(timeout):
    """The socket timeout for one operation: `timeout`, cut to what is left of this thread's request deadline."""
    deadline = getattr(_request, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlinePassed(f"no complete answer within the request's deadline ({_request.seconds:g} s)")
    return left if timeout is None else min(timeout, left)


class _BoundedStream(httpcore2.NetworkStream):
    """A connection whose reads and writes share the request's deadline and whose reads count against its bound."""

    def __init__(self, stream):
        self.stream = stream

    def read(self, max_bytes, timeout=None):
        data = self.stream.read(max_bytes, _time_left(timeout))
        if getattr(_request, "deadline", None) is not None:
            _request.left -= len(data)
            if _request.left < 0:
                raise RefusedBody(f"answer larger than {_request.max_bytes:,} bytes; refused while it arrived")
            _time_left(None)  # a byte a second still ends at the deadline
        return data

    def write(self, buffer, timeout=None):
        self.stream.write(buffer, _time_left(timeout))

    def close(self):
        self.stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        return _BoundedStream(self.stream.start_tls(ssl_context, server_hostname, _time_left(timeout)))

    def get_extra_info(self, info):
        return self.stream.get_extra_info(info)


class _BoundedBackend(httpcore2.NetworkBackend):
    """Opens connections as `_BoundedStream`s, connecting within the request's deadline."""

    def __init__(self, backend):
        self.backend = backend

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return _BoundedStream(self.backend.connect_tcp(host, port, _time_left(timeout), local_address, socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        return _BoundedStream(self.backend.connect_unix_socket(path, _time_left(timeout), socket_options))

    def sleep(self, seconds):
        self.backend.sleep(seconds)


class BoundedTransport(httpx2.HTTPTransport):
    """An httpx2 transport giving each request `seconds` from connect to its last body byte and at most `max_bytes`
    of response (headers included); a compressed answer is refused."""

    def __init__(self, seconds, max_bytes, proxy=None):
        super().__init__(proxy=proxy)
        self.seconds, self.max_bytes = seconds, max_bytes
        # httpx2 builds its connection pool itself; every connection it opens goes through the bounded backend
        self._pool._network_backend = _BoundedBackend(self._pool._network_backend)

    def handle_request(self, request):
        _request.deadline, _request.seconds = time.monotonic() + self.seconds, self.seconds
        _request.left = _request.max_bytes = self.max_bytes
        request.headers["Accept-Encoding"] = "identity"
        response = super().handle_request(request)
        if response.headers.get("content-encoding", "identity").lower() != "identity":
            response.close()
            raise RefusedBody(f"answer sent {response.headers['content-encoding']}-compressed although identity was "
                              "asked for; refused unread")
        return response


def environment_proxy(url):
    """The proxy $https_proxy/$http_proxy names for `url` (None when there is none or $no_proxy exempts its host):
    a client given its own transport reads no proxy variables itself."""
    parts = urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return urllib.request.getproxies().get(parts.scheme)


def bounded_client(url, *, seconds, max_bytes):
    """An httpx2 client for the OpenAI SDK sending to `url`: per-request deadline and byte bound, no redirects."""
    transport = BoundedTransport(seconds, max_bytes, proxy=environment_proxy(url))
    return httpx2.Client(transport=transport, follow_redirects=False, timeout=seconds)
