"""The tornado handler behind every S3 request: authenticate, authorize, take the body, answer.

Bodies stream: ``data_received`` decodes aws-chunked framing, hashes, and writes into the store's
staging area as bytes arrive, so a 5 GiB part never sits in memory. Errors at any step become
S3 XML errors and leave the store untouched.
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Awaitable

from tornado.httputil import HTTPHeaders
from tornado.ioloop import IOLoop
from tornado.iostream import StreamClosedError
from tornado.web import RequestHandler, stream_request_body

from ..auth import anonymous_request, body_decoder, is_signed, verify_request
from ..http.limits import DRAIN_LIMIT, StallWatch
from ..iam import ANONYMOUS
from ..iam.session_credentials import SessionCredentials
from ..store import MAX_PART_SIZE
from ..store.encryption import EncryptionParams
from . import authorization, cors_ops, routes, sse
from .checksums import BodyChecksums
from .errors import S3Error
from .names import check_visible_bucket, parse_query, split_path
from .post_object import FormUpload
from .unsupported_headers import refuse_unsupported_headers
from .virtual_hosts import bucket_of_host
from .xmlio import MAX_XML_BODY

log = logging.getLogger(__name__)

# aws-chunked framing adds a little to a 5 GiB part; leave room for it.
MAX_BODY_SIZE = MAX_PART_SIZE + 64 * 1024 * 1024


class S3ResponseHeaders(HTTPHeaders):
    """Sends ``x-amz-*`` names in lower case, as S3 does: clients keep the case of metadata names
    they read back (botocore turns ``X-Amz-Meta-Owner`` into the key ``Owner``)."""

    def get_all(self):
        for name, value in super().get_all():
            yield (name.lower() if name.startswith("X-Amz-") else name), value


@stream_request_body
class S3Handler(RequestHandler):
    SUPPORTED_METHODS = ("GET", "HEAD", "PUT", "POST", "DELETE", "OPTIONS")

    def initialize(self, services) -> None:
        self.services = services
        self.store = services.store  # bound to the request's SSE headers once they are read
        self.sse = EncryptionParams()
        self.request_id = uuid.uuid4().hex[:16].upper()
        self.operation: routes.Operation | None = None
        self.access_key = ANONYMOUS  # until a signature names the caller
        self.session: SessionCredentials | None = None
        self.staging = None
        self.checksums: BodyChecksums | None = None
        self.body = bytearray()
        self.trailers: dict[str, str] = {}
        self._decoder = None
        self._body_error: Exception | None = None
        self._stall: StallWatch | None = None
        self.form: FormUpload | None = None  # a POST Object's form, read as it streams
        self.cors_headers: dict[str, str] = {}  # of the CORS rule the request's Origin matches

    # -- request lifecycle ------------------------------------------------------------------
    def clear(self) -> None:
        super().clear()
        self._headers = S3ResponseHeaders(self._headers)

    def set_default_headers(self) -> None:
        self.set_header("Server", "aistor-lab")
        self.clear_header("Content-Type")

    def _set_common_headers(self) -> None:
        self.set_header("x-amz-request-id", self.request_id)
        # Clients resolve a bucket's region from this header, even on refused anonymous HEADs.
        self.set_header("x-amz-bucket-region", self.services.settings.region)
        for name, value in self.cors_headers.items():
            self.set_header(name, value)

    async def prepare(self) -> None:
        self._set_common_headers()
        # The server's default is the JSON APIs' limit; S3 decides for itself (a refused body is
        # drained when small, else cut off after the answer).
        self.request.connection.set_max_body_size(MAX_BODY_SIZE)
        try:
            host_bucket = bucket_of_host(self.request.host_name, self.services.settings.domains)
            self.bucket, self.key = split_path(self.request.path, host_bucket)
            self.query = parse_query(self.request.query)
            if self.request.method == "OPTIONS":
                return  # a CORS preflight: unsigned, answered by the bucket's CORS rules alone (options)
            # Decided before anything else: no caller, policy or sub-resource reaches it.
            check_visible_bucket(self.store, self.bucket, creating=self.request.method == "PUT" and not self.key)
            # Every answer, errors included, carries the headers of the CORS rule its Origin matches.
            self.cors_headers = await cors_ops.response_headers(self)
            self._set_common_headers()
            self.operation = routes.resolve(
                self.request.method, self.bucket, self.key, self.query, self.request.headers
            )
            if self.operation.body == routes.FORM_BODY:
                # A form authenticates itself, by its fields (post_object), and may be large.
                self.form = FormUpload(self)
                self.request.connection.set_body_timeout(None)
                self._stall = StallWatch(self.request.connection, self.services.settings.body_timeout_seconds)
                return
            if is_signed(self.request.headers, self.query):
                self.session = self._session()
                auth = verify_request(
                    self.request.method,
                    self.request.path,
                    self.request.query,
                    self.request.headers,
                    self.session.secret_for if self.session else self.services.iam.secret_for,
                    service="s3",
                    max_skew=self.services.settings.max_clock_skew_seconds,
                    # SigV2 signs ``/BUCKET/KEY`` whatever the addressing; SigV4 the path as sent.
                    resource_path=None if host_bucket is None else f"/{host_bucket}{self.request.path}",
                )
                # A session acts for its parent user, within its own policy (see authorize).
                self.access_key = self.session.parent if self.session else auth.access_key
            else:
                auth = anonymous_request(self.request.headers)  # access key ANONYMOUS: see authorize
            if self.operation.action:
                self.authorize(self.operation.action, self.bucket, self.key, self.list_context())
            refuse_unsupported_headers(self.operation.name, self.request.headers)
            self.sse = await sse.bind(self)
            if self.operation.body == routes.STREAM_BODY:
                self._check_stream_length()
                await self.run_read(self.store.get_bucket, self.bucket)
                self.checksums = BodyChecksums(self.request.headers)
                self.staging = await self.run_read(sse.stage_body, self)
                # An authenticated upload may take as long as it needs, as long as it never stalls.
                self.request.connection.set_body_timeout(None)
                self._stall = StallWatch(self.request.connection, self.services.settings.body_timeout_seconds)
            self._decoder = body_decoder(auth, self.request.headers)
        except Exception as exc:  # noqa: BLE001 - every failure becomes an S3 error
            if self._small_body_follows():
                # Answer once the body is in: closing a connection with unread bytes makes the
                # kernel reset it, and the client then loses the error response it was reading.
                self._body_error = exc
            else:
                self.send_s3_error(exc, closing=True)

    def data_received(self, chunk: bytes) -> Awaitable[None] | None:
        if self._stall is not None:
            self._stall.touch()
        if self.form is not None and not self._finished and self._body_error is None:
            return self._receive_form(chunk)
        if self._finished or self._body_error is not None or self._decoder is None:  # None: a preflight's body
            return
        try:
            data = self._decoder.feed(chunk)
            if not data:
                return
            if self.staging is not None:
                self.checksums.update(data)
                self.staging.write(data)
            elif self.operation.body == routes.XML_BODY:
                self.body += data
                if len(self.body) > MAX_XML_BODY:
                    raise S3Error("MalformedXML", "The XML document is too large.")
        except Exception as exc:  # noqa: BLE001 - reported once the body is over
            self._body_error = exc

    async def _receive_form(self, chunk: bytes) -> None:
        try:
            await self.form.feed(chunk)
        except Exception as exc:  # noqa: BLE001 - an error of the form's fields or file
            if self.form.little_left():
                self._body_error = exc  # answered once the body is in, as above
            else:
                self.send_s3_error(exc, closing=True)

    async def _run(self) -> None:
        self._stop_stall_watch()
        try:
            if self._body_error is not None:
                raise self._body_error
            if self._decoder is not None:  # None: a form's body (FormUpload)
                self.trailers = self._decoder.finish()
            await self.operation.run(self)
        except Exception as exc:  # noqa: BLE001 - every failure becomes an S3 error
            self.send_s3_error(exc)
        finally:
            self._discard_staging()

    get = head = put = post = delete = _run

    async def options(self) -> None:
        try:
            if self._body_error is not None:
                raise self._body_error
            await cors_ops.preflight(self)
        except Exception as exc:  # noqa: BLE001 - every failure becomes an S3 error
            self.send_s3_error(exc)

    def on_connection_close(self) -> None:
        super().on_connection_close()  # ends the request: it would otherwise wait for its body forever
        self._stop_stall_watch()
        self._discard_staging()

    def on_finish(self) -> None:
        self._stop_stall_watch()
        self._discard_staging()

    # -- helpers for operations ---------------------------------------------------------------
    async def run_read(self, fn, *args, **kwargs):
        """A read of the store: in place when the store says reads are fast, else on the pool."""
        if self.store.fast_reads:
            return fn(*args, **kwargs)
        return await self.run_blocking(fn, *args, **kwargs)

    async def run_blocking(self, fn, *args, **kwargs):
        """Run a store call on the service's thread pool (file syncs must not stall the loop)."""
        return await IOLoop.current().run_in_executor(self.services.executor, functools.partial(fn, *args, **kwargs))

    def authorize(self, action: str, bucket: str, key: str = "", context: dict | None = None) -> None:
        """Raises AccessDenied unless the caller may (rules in authorization.py)."""
        if not authorization.is_allowed(self, action, bucket, key, context):
            if bucket and action != "s3:CreateBucket" and self.services.bucket_access.rules(bucket) is None:
                # As S3 answers: a bucket that does not exist is no secret to keep.
                raise S3Error("NoSuchBucket", "The specified bucket does not exist")
            raise S3Error("AccessDenied", "Access Denied.")

    def list_context(self) -> dict[str, str]:
        context = {"aws:username": self.access_key}
        for name in ("prefix", "delimiter", "max-keys"):
            if name in self.query:
                context["s3:" + name] = self.query[name]
        return context

    def take_staging(self):
        """Hand the staged body to a store call, which then owns it."""
        staging, self.staging = self.staging, None
        return staging

    def send_xml(self, document: bytes, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/xml")
        self.finish(document)

    def send_empty(self, status: int = 200) -> None:
        self.set_status(status)
        self.finish()

    def send_s3_error(self, exc: Exception, *, closing: bool = False) -> None:
        """The error as S3 XML. ``closing``: answered before the body was read, after which tornado
        closes the connection; the answer says so, or a client would send its next request on it."""
        if isinstance(exc, StreamClosedError):
            return  # the client went away (or was cut off for stalling): no one to answer
        error = S3Error.from_exception(exc)
        if error.status >= 500:
            log.error("%s %s failed", self.request.method, self.request.path, exc_info=exc)
        if self._finished:
            return
        if self._headers_written:
            # Mid-stream failure of a GET: the status is gone; cut the connection so the client sees it.
            self.request.connection.close()
            return
        self.clear()
        self._set_common_headers()
        if closing:
            self.set_header("Connection", "close")
        for name, value in error.headers.items():
            self.set_header(name, value)
        self.set_status(error.status)
        if self.request.method == "HEAD" or error.status == 304:
            self.finish()
            return
        self.set_header("Content-Type", "application/xml")
        self.finish(error.to_xml(self.request.path, self.request_id))

    # -- internals ----------------------------------------------------------------------------
    def _session(self) -> SessionCredentials | None:
        """The temporary credentials a request's session token (header, or presigned query) stands for."""
        # SigV4 presigned URLs name it X-Amz-Security-Token, SigV2 ones x-amz-security-token.
        token = (self.request.headers.get("x-amz-security-token") or self.query.get("X-Amz-Security-Token")
                 or self.query.get("x-amz-security-token"))
        return self.services.iam.sessions.open(token) if token else None

    def _check_stream_length(self) -> None:
        headers = self.request.headers
        length = headers.get("x-amz-decoded-content-length") or headers.get("Content-Length")
        if length is None and "chunked" not in headers.get("Transfer-Encoding", "").lower():
            raise S3Error("MissingContentLength", "You must provide the Content-Length HTTP header.")
        if length is not None:
            if not length.isdigit():
                raise S3Error("InvalidArgument", "Content-Length must be a number.")
            if int(length) > MAX_PART_SIZE:
                raise S3Error("EntityTooLarge", "Your proposed upload exceeds the maximum allowed size.")

    def _small_body_follows(self) -> bool:
        """Whether the client sends a small body whatever the answer: not one that waits for
        ``100 Continue``, which an answer sent now spares (tornado sends 100 only to a request
        still unanswered once its headers are handled)."""
        if self.request.headers.get("Expect", "").lower() == "100-continue":
            return False
        length = self.request.headers.get("Content-Length", "")
        return length.isdigit() and 0 < int(length) <= DRAIN_LIMIT

    def _stop_stall_watch(self) -> None:
        if self._stall is not None:
            self._stall.stop()
            self._stall = None

    def _discard_staging(self) -> None:
        if self.staging is not None:
            self.staging.discard()
            self.staging = None
