"""Limits of the HTTP layer against clients that never finish: how many connections are open, from
one address and in all, and how long a body (of a request or an answer) may stall; and the
Keep-Alive hint that lets well-behaved clients leave idle connections before they are closed.

The other limits are tornado's own, set where the server is built (service/app.py): the header timeout
(a connection must deliver its next request's headers in time, whether it sat idle or sends them a
byte at a time), the size of headers, and a default body size and body timeout that every handler
has unless it raises them for a caller it has authenticated (the S3 API's uploads).
"""

from __future__ import annotations

import logging
import resource
from collections import Counter
from typing import Any

from tornado.httpserver import HTTPServer
from tornado.httputil import HTTPHeaders
from tornado.ioloop import IOLoop
from tornado.iostream import IOStream
from tornado.web import OutputTransform

log = logging.getLogger(__name__)

# A refused request whose body is at most this big is answered once the body has been read and
# dropped: closing a connection with unread bytes makes the kernel reset it, and the client then
# loses the error response it was reading. Larger bodies are cut off after the answer.
DRAIN_LIMIT = 8 * 1024 * 1024
# What a handler that does not stream may be sent (health): tornado reads such a body before any
# code of the handler runs. Streaming handlers set their own limit (the OAuth2 forms this one).
DEFAULT_BODY_LIMIT = 64 * 1024
MAX_HEADER_SIZE = 64 * 1024
# File descriptors kept for the store, logs and sockets other than client connections.
_RESERVED_FILES = 256


class LimitedHTTPServer(HTTPServer):
    """tornado's HTTPServer with a cap on open connections, in all and per client address: one more
    is closed as soon as it is accepted, before it costs a request or a byte of memory."""

    def initialize(self, *args: Any, max_connections: int, max_connections_per_client: int,
                   **kwargs: Any) -> None:
        super().initialize(*args, **kwargs)
        self.max_connections = max_connections
        self.max_connections_per_client = max_connections_per_client
        self._per_client: Counter[str] = Counter()

    def handle_stream(self, stream: IOStream, address: Any) -> None:
        client = _client(address)
        if len(self._connections) >= self.max_connections or \
                self._per_client[client] >= self.max_connections_per_client:
            log.debug("connection from %s refused: too many open connections", client)
            stream.close()
            return
        self._per_client[client] += 1
        super().handle_stream(stream, address)

    def on_close(self, server_conn: Any) -> None:
        client = _client(server_conn.context.address)
        self._per_client[client] -= 1
        if not self._per_client[client]:
            del self._per_client[client]
        super().on_close(server_conn)


def keep_alive_hint(idle_timeout: float) -> type[OutputTransform]:
    """An output transform that tells clients, in ``Keep-Alive: timeout=N``, how long an idle
    connection stays open, so that those who honour it (Apache HttpClient, under Iceberg's Java REST
    client and the AWS SDK for Java) stop reusing it before the server closes it: a POST sent on a
    connection the server has just closed is not retried."""
    value = f"timeout={max(1, int(idle_timeout) - 1)}"

    class KeepAliveHint(OutputTransform):
        def transform_first_chunk(self, status_code: int, headers: HTTPHeaders, chunk: bytes,
                                  finishing: bool) -> tuple[int, HTTPHeaders, bytes]:
            headers["Keep-Alive"] = value
            return status_code, headers, chunk

    return KeepAliveHint


def _client(address: Any) -> str:
    """The client's IP address (a Unix socket's peers are one client)."""
    return address[0] if isinstance(address, tuple) else "local"


def connection_allowance(wanted: int) -> int:
    """Raise this process's limit of open files to its hard limit, and return how many connections of
    ``wanted`` it leaves room for: past the limit, accept() fails and tornado retries it in a loop."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    room = wanted if soft == resource.RLIM_INFINITY else max(soft - _RESERVED_FILES, 1)
    if room < wanted:
        log.warning("at most %d connections: the limit of open files is %d", room, soft)
    return min(wanted, room)


class StallWatch:
    """Closes a connection whose body stops moving for ``timeout`` seconds: an upload or a download
    may take as long as it needs, but may not hold a connection (and a staging or object file)
    while nothing moves. ``touch()`` at every piece of body; ``stop()`` once it is all through."""

    def __init__(self, connection: Any, timeout: float):
        self._connection = connection
        self._timeout = timeout
        self._loop = IOLoop.current()
        self._last = self._loop.time()
        self._handle: object | None = self._loop.call_later(timeout, self._check)

    def touch(self) -> None:
        self._last = self._loop.time()

    def stop(self) -> None:
        if self._handle is not None:
            self._loop.remove_timeout(self._handle)
            self._handle = None

    def _check(self) -> None:
        quiet = self._loop.time() - self._last
        if quiet < self._timeout:
            self._handle = self._loop.call_later(self._timeout - quiet, self._check)
            return
        self._handle = None
        log.info("body stalled for %.0f s; closing its connection", quiet)
        # The stream, not the HTTP1Connection: closing that one forgets the future of a pending
        # write, and a response stuck in flush() would wait for it forever.
        self._connection.stream.close()
