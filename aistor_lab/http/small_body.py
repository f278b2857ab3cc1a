"""The request bodies of the JSON APIs (catalog, admin, Delta Sharing): small, and read only for a
caller the headers have not already refused.

tornado reads a whole body before ``prepare`` unless the handler streams it, so these handlers
stream: ``prepare`` refuses on the headers alone (no length, a length over BODY_LIMIT, a caller who
is not authenticated), and only then is the body kept, up to its declared length. Chunked bodies
are refused, as S3 refuses an upload without a length: every body's end is then known, which is
when ``accept_body`` verifies it and before any handler method runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from tornado.web import RequestHandler, stream_request_body

from .limits import DRAIN_LIMIT

BODY_LIMIT = 4 * 1024 * 1024
# The bodies one client address may have the server hold before their signature can be verified
# (signers of the body itself, see auth/staged.py): naming a known access key with a made-up
# signature must not let a client fill the server's memory with bodies it will then refuse.
UNVERIFIED_LIMIT_PER_CLIENT = 4 * BODY_LIMIT
_unverified: Counter[str] = Counter()  # bytes held per client address


@dataclass(frozen=True)
class BodyRefused:
    """Why a body is refused: an HTTP status, the S3 error code of that meaning, a message."""

    status: int
    code: str
    message: str


@stream_request_body
class SmallBodyHandler(RequestHandler):
    """Subclasses implement ``send_body_refusal`` in their API's error format, ``admit`` (authenticate
    from the headers, or ``refuse``) and, when the body completes authentication, ``accept_body``."""

    body_limit = BODY_LIMIT
    _held = 0  # bytes counted against the client's UNVERIFIED_LIMIT_PER_CLIENT (set in prepare)

    async def prepare(self) -> None:
        self._body = bytearray()
        self._length = 0
        self._received = 0
        self._answer: Callable[[], None] | None = None  # a refusal, sent once the body is dropped
        self._held = 0
        self.request.connection.set_max_body_size(self.body_limit)  # the server's default is smaller
        refusal = self._length_refusal()
        if refusal is not None:
            self.refuse(lambda: self.send_body_refusal(refusal))
            return
        await self.admit()
        if self._length == 0 and not self._refused():
            await self.accept_body(b"")

    async def admit(self) -> None:
        """Authenticate the caller from the headers; call ``refuse`` to turn the request away."""

    async def accept_body(self, body: bytes) -> None:
        """The whole body is in (before any handler method runs): finish authenticating, or ``refuse``.
        The default makes it ``self.request.body``."""
        self.request.body = body

    def send_body_refusal(self, refusal: BodyRefused) -> None:
        raise NotImplementedError

    @property
    def has_body(self) -> bool:
        """Whether a non-empty body follows the headers."""
        return self._length > 0

    def hold_unverified(self) -> None:
        """Count the body, which must be read before the caller is known, against its client address's
        allowance; refuse it (503 SlowDown, as S3 asks a client to slow down) when that is spent."""
        client = self.request.remote_ip
        if _unverified[client] + self._length > UNVERIFIED_LIMIT_PER_CLIENT:
            refusal = BodyRefused(503, "SlowDown", "Too many requests from this address wait for their "
                                  "bodies; retry later.")
            self.refuse(lambda: self.send_body_refusal(refusal))
            return
        _unverified[client] += self._length
        self._held = self._length

    def on_finish(self) -> None:
        self._release()

    def on_connection_close(self) -> None:
        super().on_connection_close()
        self._release()

    def refuse(self, reply: Callable[[], None]) -> None:
        """Turn the request away with ``reply`` (which sends the error): at once, or once a small body
        has been read and dropped, so that the client is done sending when it reads the answer."""
        if self._refused():
            return
        # tornado checks the length against its limit after prepare: without this it would refuse
        # a long body itself, with a bare 400 after our answer.
        self.request.connection.set_max_body_size(max(self._length, self.body_limit))
        if 0 < self._length - self._received <= DRAIN_LIMIT:
            self._answer = reply
        else:
            reply()

    async def data_received(self, chunk: bytes) -> None:
        if self._finished:
            return
        self._received += len(chunk)
        if self._answer is not None:
            if self._received >= self._length:
                answer, self._answer = self._answer, None
                answer()
            return
        self._body += chunk
        if self._received >= self._length:
            body, self._body = bytes(self._body), bytearray()
            await self.accept_body(body)
            self._release()

    def _release(self) -> None:
        if self._held:
            client = self.request.remote_ip
            _unverified[client] -= self._held
            if _unverified[client] <= 0:
                del _unverified[client]
            self._held = 0

    def _refused(self) -> bool:
        return self._finished or self._answer is not None

    def _length_refusal(self) -> BodyRefused | None:
        headers = self.request.headers
        if "Transfer-Encoding" in headers:
            return BodyRefused(411, "MissingContentLength", "A request body needs a Content-Length "
                               "(chunked transfer encoding is not accepted here).")
        length = headers.get("Content-Length", "0").strip()
        if not length.isdigit():
            return BodyRefused(400, "InvalidArgument", "Content-Length must be a number of bytes.")
        self._length = int(length)
        if self._length > self.body_limit:
            return BodyRefused(413, "EntityTooLarge",
                               f"The request body is larger than this API takes ({self.body_limit} bytes).")
        return None
