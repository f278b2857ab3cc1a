"""The Delta Sharing protocol over HTTP at ``/delta-sharing`` (delta-io/delta-sharing PROTOCOL.md).

    GET  /shares                                              list shares (the token's one)
    GET  /shares/{share}                                      get share
    GET  /shares/{share}/schemas                              list schemas
    GET  /shares/{share}/schemas/{schema}/tables              list tables
    GET  /shares/{share}/all-tables                           list all tables
    GET  /shares/{share}/schemas/{schema}/tables/{t}/version  table version (HEAD on the table too)
    GET  /shares/{share}/schemas/{schema}/tables/{t}/metadata protocol and metadata
    POST /shares/{share}/schemas/{schema}/tables/{t}/query    files of a snapshot or from a version
    GET  /shares/{share}/schemas/{schema}/tables/{t}/changes  change data feed
    POST /oauth/token                                         OAuth client credentials -> bearer token

Requests carry ``Authorization: Bearer <token>`` (the token endpoint excepted). Errors are
``{"errorCode", "message"}``; anything unexpected is INTERNAL_ERROR with no detail (the client
retries 5xx answers, so expected failures must never be 5xx).
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from tornado.ioloop import IOLoop

from ...auth.oauth2 import OAuthError
from ...common.json_input import JSONInputError, parse_object
from ...http.limits import DEFAULT_BODY_LIMIT
from ...http.small_body import BodyRefused, SmallBodyHandler
from ..errors import InvalidParameter, MalformedRequest, NotFound, SharingError
from ..protocol import CAPABILITIES_HEADER, FILE_ID_HASH_HEADER, TABLE_VERSION_HEADER, Capabilities
from ..queries import Answer
from ..service import SHARING_PATH, Recipient, SharingService

log = logging.getLogger(__name__)

JSON_TYPE = "application/json; charset=utf-8"
NDJSON_TYPE = "application/x-ndjson; charset=utf-8"


class SharingHandler(SmallBodyHandler):
    SUPPORTED_METHODS = ("GET", "HEAD", "POST")

    def initialize(self, services: Any) -> None:
        self.services = services
        self.sharing: SharingService = services.sharing
        self.recipient: Recipient | None = None

    async def admit(self) -> None:
        """The bearer token, before any body is read (http/small_body.py)."""
        try:
            self.recipient = await IOLoop.current().run_in_executor(
                self.services.executor, self.sharing.authenticate, self.request.headers.get("Authorization"))
        except SharingError as exc:
            self.refuse(functools.partial(self.send_sharing_error, exc))

    def send_body_refusal(self, refusal: BodyRefused) -> None:
        error = MalformedRequest(refusal.message)
        error.status = refusal.status
        self.send_sharing_error(error)

    def check_xsrf_cookie(self) -> None:
        """Bearer-token requests: XSRF does not apply."""

    def set_default_headers(self) -> None:
        self.set_header("Server", "aistor-lab")

    def params(self) -> dict[str, str]:
        return {k: v[-1] for k, v in parse_qs(self.request.query, keep_blank_values=True).items()}

    async def serve(self, work: Callable[[Recipient], Any], reply: Callable[[Any], None]) -> None:
        """Run ``work`` for the authenticated recipient on the thread pool, hand its result to ``reply``."""
        try:
            result = await IOLoop.current().run_in_executor(self.services.executor, work, self.recipient)
        except SharingError as exc:
            self.send_sharing_error(exc)
            return
        reply(result)

    def reply_json(self, body: dict) -> None:
        self.set_header("Content-Type", JSON_TYPE)
        self.finish(json.dumps(body, separators=(",", ":")))

    def reply_ndjson(self, answer: tuple[Answer, bytes]) -> None:
        result, body = answer
        capabilities = f"responseformat={result.format}"
        if result.include_end_stream:
            capabilities += ";includeendstreamaction=true"
        self.set_header("Content-Type", NDJSON_TYPE)
        self.set_header(TABLE_VERSION_HEADER, str(result.version))
        self.set_header(CAPABILITIES_HEADER, capabilities)
        if self.file_id_hash():
            self.set_header(FILE_ID_HASH_HEADER, self.file_id_hash())
        self.finish(body)

    def capabilities(self) -> Capabilities:
        return Capabilities.parse(self.request.headers.get(CAPABILITIES_HEADER))

    def file_id_hash(self) -> str | None:
        value = self.request.headers.get(FILE_ID_HASH_HEADER)
        if value is None:
            return None
        value = value.strip().lower()
        if value not in ("parquet", "delta"):
            raise InvalidParameter(f"unsupported fileidhash {value!r}: use parquet or delta")
        return value

    def send_sharing_error(self, exc: SharingError) -> None:
        self.clear()
        self.set_status(exc.status)
        if exc.status == 401:
            self.set_header("WWW-Authenticate", 'Bearer realm="delta-sharing"')
        if self.request.method == "HEAD":
            self.finish()
            return
        self.reply_json(exc.body())

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Failures tornado handles itself: unsupported methods, and unexpected exceptions (whose
        detail stays in the server log)."""
        code = "UNSUPPORTED_OPERATION" if status_code == 405 else "INTERNAL_ERROR"
        message = f"{self.request.method} is not supported here" if status_code == 405 else ""
        if self.request.method == "HEAD":
            self.finish()
        else:
            self.reply_json({"errorCode": code, "message": message})


# One encoder for every line: json.dumps with separators builds a new one per call, which costs as
# much as encoding a file's line.
_LINE_ENCODER = json.JSONEncoder(separators=(",", ":"))


def _ndjson(answer: Answer) -> tuple[Answer, bytes]:
    """Serialize on the thread pool: thousands of lines should not hold the event loop."""
    encode = _LINE_ENCODER.encode
    return answer, "".join([f"{encode(line)}\n" for line in answer.lines]).encode()


class SharesHandler(SharingHandler):
    async def get(self) -> None:
        params = self.params()
        await self.serve(lambda r: self.sharing.list_shares(r, params), self.reply_json)


class ShareHandler(SharingHandler):
    async def get(self, share: str) -> None:
        await self.serve(lambda r: self.sharing.get_share(r, share), self.reply_json)


class SchemasHandler(SharingHandler):
    async def get(self, share: str) -> None:
        params = self.params()
        await self.serve(lambda r: self.sharing.list_schemas(r, share, params), self.reply_json)


class TablesHandler(SharingHandler):
    async def get(self, share: str, schema: str) -> None:
        params = self.params()
        await self.serve(lambda r: self.sharing.list_tables(r, share, schema, params), self.reply_json)


class AllTablesHandler(SharingHandler):
    async def get(self, share: str) -> None:
        params = self.params()
        await self.serve(lambda r: self.sharing.list_all_tables(r, share, params), self.reply_json)


class TableVersionHandler(SharingHandler):
    """GET .../version, and the deprecated HEAD on the table itself."""

    async def get(self, share: str, schema: str, table: str) -> None:
        starting = self.params().get("startingTimestamp")

        def work(recipient: Recipient) -> int:
            ref = self.sharing.table(recipient, share, schema, table)
            return self.sharing.table_version(recipient, ref, starting)

        def reply(version: int) -> None:
            self.set_header(TABLE_VERSION_HEADER, str(version))
            self.finish()

        await self.serve(work, reply)

    head = get


class MetadataHandler(SharingHandler):
    async def get(self, share: str, schema: str, table: str) -> None:
        params, caps = self.params(), self.capabilities()

        def work(recipient: Recipient) -> tuple[Answer, bytes]:
            ref = self.sharing.table(recipient, share, schema, table)
            return _ndjson(self.sharing.metadata(recipient, ref, params, caps))

        await self.serve(work, self.reply_ndjson)


class QueryHandler(SharingHandler):
    async def post(self, share: str, schema: str, table: str) -> None:
        caps = self.capabilities()

        def work(recipient: Recipient) -> tuple[Answer, bytes]:
            try:  # before the table is looked up: a malformed body changes nothing and reveals nothing
                body = parse_object(self.request.body, allow_empty=True)
            except JSONInputError as exc:
                raise MalformedRequest(f"the request body is not valid JSON: {exc.message}") from None
            ref = self.sharing.table(recipient, share, schema, table)
            return _ndjson(self.sharing.query(recipient, ref, body, caps, self.file_id_hash()))

        await self.serve(work, self.reply_ndjson)


class ChangesHandler(SharingHandler):
    async def get(self, share: str, schema: str, table: str) -> None:
        params, caps = self.params(), self.capabilities()

        def work(recipient: Recipient) -> tuple[Answer, bytes]:
            ref = self.sharing.table(recipient, share, schema, table)
            return _ndjson(self.sharing.changes(recipient, ref, params, caps, self.file_id_hash()))

        await self.serve(work, self.reply_ndjson)


class OAuthTokenHandler(SharingHandler):
    """The OAuth 2.0 token endpoint: answers as RFC 6749 says, not in Delta Sharing errors."""

    body_limit = DEFAULT_BODY_LIMIT  # a form of a few fields, sent by anyone

    async def admit(self) -> None:
        """The client authenticates with its form, not with a bearer token."""

    async def post(self) -> None:
        headers = {"Authorization": self.request.headers.get("Authorization", "")}
        try:
            body = await IOLoop.current().run_in_executor(
                self.services.executor, self.sharing.clients.issue, headers, self.request.body)
        except OAuthError as exc:
            self.set_status(exc.status)
            self.set_header("Cache-Control", "no-store")
            self.reply_json(exc.body())
            return
        self.set_header("Cache-Control", "no-store")
        self.reply_json(body)


class UnknownHandler(SharingHandler):
    """Any other path under the prefix: a protocol 404 rather than tornado's HTML page."""

    async def admit(self) -> None:
        self.refuse(functools.partial(self.send_sharing_error, NotFound(f"no Delta Sharing API at {self.request.path}")))


def routes(services: Any) -> list:
    """URL specs for the Application; ``services`` has ``.sharing``, ``.executor``."""
    args = {"services": services}
    name = "([^/]+)"
    table = f"{SHARING_PATH}/shares/{name}/schemas/{name}/tables/{name}"
    return [
        (f"{SHARING_PATH}/oauth/token", OAuthTokenHandler, args),
        (f"{SHARING_PATH}/shares", SharesHandler, args),
        (f"{SHARING_PATH}/shares/{name}", ShareHandler, args),
        (f"{SHARING_PATH}/shares/{name}/schemas", SchemasHandler, args),
        (f"{SHARING_PATH}/shares/{name}/schemas/{name}/tables", TablesHandler, args),
        (f"{SHARING_PATH}/shares/{name}/all-tables", AllTablesHandler, args),
        (table, TableVersionHandler, args),
        (f"{table}/version", TableVersionHandler, args),
        (f"{table}/metadata", MetadataHandler, args),
        (f"{table}/query", QueryHandler, args),
        (f"{table}/changes", ChangesHandler, args),
        (f"{SHARING_PATH}(?:/.*)?", UnknownHandler, args),
    ]
