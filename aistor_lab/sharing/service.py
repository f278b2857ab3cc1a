"""The sharing service: shares, tokens, OAuth clients and the audit log, and the recipient-facing
operations the protocol handlers call. Everything here blocks; handlers run it in a thread pool.

A recipient is a live token: it sees exactly one share (the one it was made for, by id, so a share
removed and created again under the same name does not take old tokens back). Other shares do not
exist for it (404), as the reference server answers for shares it does not serve.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from threading import Lock
from typing import Any

from ..settings import Settings
from ..store.base import ObjectStore
from .audit import AuditLog
from .delta_checkpoint import write_checkpoint
from .delta_log import DeltaLogSource
from .errors import InvalidParameter, NotFound, SharingError, Unauthenticated, UnsupportedOperation
from .oauth import OAuthClients
from .presign import Presigner
from .protocol import Capabilities, PageTokens, max_results
from .queries import Answer, TableQueries
from .shares import DELTA, Share, ShareRegistry, TableSpec
from .source import TableSource
from .tokens import BEARER, Token, TokenRegistry, iso_time, parse_duration

log = logging.getLogger(__name__)

SHARING_PATH = "/delta-sharing"
_CACHED_SOURCES = 64


@dataclass(frozen=True)
class Recipient:
    token: Token
    share: Share


@dataclass(frozen=True)
class TableRef:
    share: Share
    schema: str
    spec: TableSpec


def sharing_endpoint(settings: Settings) -> str:
    """The Delta Sharing endpoint recipients use: configured, else the public or own address."""
    if settings.delta_sharing_endpoint:
        return settings.delta_sharing_endpoint.rstrip("/")
    return (settings.public_endpoint or settings.endpoint).rstrip("/") + SHARING_PATH


class SharingService:
    def __init__(self, store: ObjectStore, catalog: Any, settings: Settings, *,
                 clock: Callable[[], float] = time.time):
        self._store = store
        self._catalog = catalog
        self.endpoint = sharing_endpoint(settings)
        # Data URLs go to the same host as the sharing endpoint: the S3 API answers at its root.
        self.presigner = Presigner(self.endpoint, settings.root_user, settings.root_password,
                                   region=settings.region, expiry_seconds=settings.delta_sharing_url_expiry_seconds)
        self.page_tokens = PageTokens(settings.root_password.encode())
        self.shares = ShareRegistry(store, clock=clock)
        self.tokens = TokenRegistry(store, clock=clock)
        self.clients = OAuthClients(store, self.tokens, self.shares, clock=clock)
        self.audit = AuditLog(store, clock=clock)
        self.queries = TableQueries(self.presigner, self.page_tokens, clock=clock)
        self._clock = clock
        self._sources: OrderedDict[tuple, DeltaLogSource] = OrderedDict()
        self._sources_lock = Lock()

    # -- recipients ---------------------------------------------------------------------------
    def authenticate(self, authorization: str | None) -> Recipient:
        scheme, _, secret = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            raise Unauthenticated("a bearer token is required (Authorization: Bearer <token>)")
        token = self.tokens.authenticate(secret.strip())
        try:
            share = self.shares.get(token.share)
        except NotFound:
            raise Unauthenticated("the bearer token's share no longer exists") from None
        if share.id != token.share_id:
            raise Unauthenticated("the bearer token's share no longer exists")
        return Recipient(token, share)

    def share_of(self, recipient: Recipient, name: str) -> Share:
        if name.lower() != recipient.share.name.lower():
            raise NotFound(f"share {name!r} does not exist")
        return recipient.share

    def table(self, recipient: Recipient, share: str, schema: str, table: str) -> TableRef:
        found = self.share_of(recipient, share)
        stored_schema, spec = found.table(schema, table)
        return TableRef(found, stored_schema, spec)

    def list_shares(self, recipient: Recipient, params: dict[str, str]) -> dict:
        items = [_share_item(recipient.share)]
        return self._page(items, params, "shares", recipient.share.id)

    def get_share(self, recipient: Recipient, share: str) -> dict:
        return {"share": _share_item(self.share_of(recipient, share))}

    def list_schemas(self, recipient: Recipient, share: str, params: dict[str, str]) -> dict:
        found = self.share_of(recipient, share)
        items = [{"name": schema, "share": found.name} for schema in found.schemas]
        return self._page(items, params, "schemas", found.id)

    def list_tables(self, recipient: Recipient, share: str, schema: str, params: dict[str, str]) -> dict:
        found = self.share_of(recipient, share)
        stored, tables = found.schema(schema)
        items = [_table_item(found, stored, spec) for spec in tables.values()]
        return self._page(items, params, "tables", f"{found.id}/{stored.lower()}")

    def list_all_tables(self, recipient: Recipient, share: str, params: dict[str, str]) -> dict:
        found = self.share_of(recipient, share)
        items = [_table_item(found, schema, spec) for schema, spec in found.all_tables()]
        return self._page(items, params, "all-tables", found.id)

    def _page(self, items: list[dict], params: dict[str, str], kind: str, scope: str) -> dict:
        limit = max_results(params.get("maxResults"))
        offset = 0
        if params.get("pageToken"):
            payload = self.page_tokens.decode(params["pageToken"], kind)
            if payload.get("s") != scope:
                raise InvalidParameter("the page token belongs to another listing")
            offset = int(payload["o"])
        page: dict = {"items": items[offset:offset + limit]}
        if offset + limit < len(items):
            page["nextPageToken"] = self.page_tokens.encode({"k": kind, "s": scope, "o": offset + limit})
        return page

    # -- table operations, audited ------------------------------------------------------------
    def table_version(self, recipient: Recipient, ref: TableRef, starting_timestamp: str | None) -> int:
        def run() -> tuple[int, dict]:
            version = self.queries.version(self.source(ref.spec), starting_timestamp)
            return version, {"version": version}

        return self._audited(recipient, ref, "version", run)

    def metadata(self, recipient: Recipient, ref: TableRef, params: dict[str, str], caps: Capabilities) -> Answer:
        return self._audited(recipient, ref, "metadata",
                             lambda: _with_audit(self.queries.metadata(self.source(ref.spec), params, caps)))

    def query(self, recipient: Recipient, ref: TableRef, body: object, caps: Capabilities,
              file_id_hash: str | None) -> Answer:
        # The share's id with the table's: a page or refresh token of one share is no token of another.
        return self._audited(recipient, ref, "query", lambda: _with_audit(
            self.queries.query(self.source(ref.spec), f"{ref.share.id}/{ref.spec.id}", body, caps, file_id_hash)))

    def changes(self, recipient: Recipient, ref: TableRef, params: dict[str, str], caps: Capabilities,
                file_id_hash: str | None) -> Answer:
        return self._audited(recipient, ref, "changes", lambda: _with_audit(
            self.queries.changes(self.source(ref.spec), ref.spec.id, params, caps, file_id_hash)))

    def _audited(self, recipient: Recipient, ref: TableRef, operation: str, run: Callable[[], tuple[Any, dict]]):
        entry = {"tokenId": recipient.token.id, "tokenKind": recipient.token.kind, "schema": ref.schema,
                 "table": ref.spec.name, "operation": operation}
        if recipient.token.client_id:
            entry["clientId"] = recipient.token.client_id
        try:
            result, details = run()
        except SharingError as exc:
            self.audit.record(recipient.share.name, {**entry, "status": exc.status, "error": exc.code})
            raise
        except Exception:
            self.audit.record(recipient.share.name, {**entry, "status": 500, "error": "INTERNAL_ERROR"})
            raise
        self.audit.record(recipient.share.name, {**entry, "status": 200, **details})
        return result

    def source(self, spec: TableSpec) -> TableSource:
        if spec.kind == DELTA:
            return self._delta_source(spec)
        try:
            from .iceberg_source import IcebergSource
        except ImportError:
            raise UnsupportedOperation("UniForm (Iceberg) tables cannot be served by this server yet") from None
        return IcebergSource(self._catalog, self._store, spec.warehouse, list(spec.namespace), spec.table)

    def _delta_source(self, spec: TableSpec) -> DeltaLogSource:
        key = (spec.bucket, spec.path)
        with self._sources_lock:
            source = self._sources.get(key)
            if source is None:
                source = self._sources[key] = DeltaLogSource(self._store, spec.bucket, spec.path)
                while len(self._sources) > _CACHED_SOURCES:
                    self._sources.popitem(last=False)
            else:
                self._sources.move_to_end(key)
        return source

    def table_versions(self, share_name: str, schema: str, table: str, limit: int) -> dict:
        """The versions of a shared table its recipients may read (what ``version`` and ``timestamp``
        of their queries choose from), newest first, at most ``limit``, with their commit times."""
        _, spec = self.shares.get(share_name).table(schema, table)
        source = self.source(spec)
        earliest, latest = source.earliest_version(), source.latest_version()
        newest = range(latest, max(earliest, latest - limit + 1) - 1, -1)
        return {"earliest": earliest, "latest": latest,
                "versions": [{"version": n, "timestamp": source.version_timestamp(n)} for n in newest]}

    def checkpoint_table(self, share_name: str, schema: str, table: str) -> dict:
        """Write a Delta checkpoint of a shared Delta table's latest version (delta_checkpoint.py):
        ``{version, path, written, addFiles, bytes}``, ``written`` false when the version had one."""
        _, spec = self.shares.get(share_name).table(schema, table)
        if spec.kind != DELTA:
            raise InvalidParameter(f"table {spec.name!r} is an Iceberg (uniform) table: checkpoints are for "
                                   "Delta tables, whose logs they shorten")
        return write_checkpoint(self._delta_source(spec), int(self._clock() * 1000)).info()

    def delta_table_locations(self) -> list[str]:
        """Where every shared Delta table lives (``s3://BUCKET/PATH``): lifecycle rules leave them alone."""
        return sorted({spec.location for share in self.shares.list() for _, spec in share.all_tables()
                       if spec.kind == DELTA})

    # -- administration -----------------------------------------------------------------------
    def remove_share(self, name: str) -> dict:
        """Remove a share with its tokens and OAuth clients."""
        share = self.shares.delete(name)
        self.tokens.revoke_where(lambda t: t.share_id != share.id)
        self.clients.delete_all(share.id)
        return share.info()

    def create_token(self, share_name: str, expires: object = None, description: str = "") -> dict:
        share = self.shares.get(share_name)
        expires_in = None if expires in (None, "") else parse_duration(expires)
        token, secret = self.tokens.create(share, expires_in=expires_in, description=description)
        profile = {"shareCredentialsVersion": 1, "endpoint": self.endpoint, "bearerToken": secret}
        if token.expires is not None:
            profile["expirationTime"] = iso_time(token.expires)
        return {**token.info(), "token": secret, "endpoint": self.endpoint, "profile": profile}

    def list_tokens(self, share_name: str) -> list[dict]:
        share = self.shares.get(share_name)
        return [t.info() for t in self.tokens.list(share.name, kind=BEARER)]

    def create_client(self, share_name: str, description: str = "") -> dict:
        share = self.shares.get(share_name)
        client, secret = self.clients.create(share, description)
        profile = {"shareCredentialsVersion": 2, "type": "oauth_client_credentials", "endpoint": self.endpoint,
                   "tokenEndpoint": f"{self.endpoint}/oauth/token", "clientId": client.id, "clientSecret": secret}
        return {**client.info(), "clientSecret": secret, "profile": profile}

    def list_clients(self, share_name: str) -> list[dict]:
        share = self.shares.get(share_name)
        return [c.info() for c in self.clients.list(share.name)]


def _with_audit(answer: Answer) -> tuple[Answer, dict]:
    return answer, answer.audit


def _share_item(share: Share) -> dict:
    item = {"name": share.name, "id": share.id}
    if share.description:
        item["comment"] = share.description
    return item


def _table_item(share: Share, schema: str, spec: TableSpec) -> dict:
    return {"name": spec.name, "schema": schema, "share": share.name, "shareId": share.id, "id": spec.id}
