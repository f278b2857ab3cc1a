"""The Iceberg REST catalog over HTTP at /_iceberg: routes, SigV4 (signing name s3tables) or OAuth2
bearer tokens (oauth.py), the s3tables IAM actions, vended credentials (vending.py), and the spec's
error model. Each handler maps one route to catalog calls.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Sequence
from typing import NamedTuple
from urllib.parse import parse_qs, quote

from tornado.ioloop import IOLoop

from ...auth import AuthError, StagedVerification
from ...common.json_input import JSONInputError, parse_object
from ...http.small_body import BodyRefused, SmallBodyHandler
from ...iam import ALL_WAREHOUSES, TABLE, VIEW, entry_arns, namespace_arns, warehouse_arn
from .. import bodies
from ..errors import BadRequestException, IcebergError, ServiceUnavailableException
from ..table_result import TableResult
from ..vending import CredentialVendor, wants_vended_credentials
from .oauth import OAuthTokensHandler

log = logging.getLogger(__name__)

SIGNING_NAME = "s3tables"
NAMESPACE_SEPARATOR = "\x1f"  # multi-level namespaces travel as one path segment joined by %1F
# The AIStor condition keys of catalog requests; the namespace is dotted, as in ARNs.
NAMESPACE_KEY = "s3tables:namespace"
NAME_KEYS = {TABLE: "s3tables:tableName", VIEW: "s3tables:viewName"}


class Scope(NamedTuple):
    """What a request is authorized against: every name of its resource, and its condition keys."""

    resources: tuple[str, ...]
    context: dict[str, str]


class NotAuthorized(IcebergError):
    type = "NotAuthorizedException"
    code = 401


class Forbidden(IcebergError):
    type = "ForbiddenException"
    code = 403


class NoSuchEndpoint(IcebergError):
    type = "NoSuchEndpointException"
    code = 404


class CatalogHandler(SmallBodyHandler):
    """Authenticates every request, runs catalog calls on the thread pool, speaks the ErrorModel."""

    SUPPORTED_METHODS = ("GET", "HEAD", "POST", "DELETE")

    def initialize(self, services) -> None:
        self.services = services
        self.catalog = services.catalog
        self.vendor = CredentialVendor(services.iam, services.settings)

    def set_default_headers(self) -> None:
        self.set_header("Server", "aistor-lab")
        self.set_header("Content-Type", "application/json")

    async def admit(self) -> None:
        """Who is asking: an OAuth2 bearer token of ours (oauth.py) or a SigV4 signature, checked on the
        headers before any body is read (http/small_body.py). Temporary session credentials are for data
        only, never for the catalog."""
        headers = self.request.headers
        self.access_key: str | None = None
        self._verification: StagedVerification | None = None
        scheme, _, token = headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer":
            user = self.services.iam.bearer_tokens.user_of(token.strip())
            if user is None or self.services.iam.secret_for(user) is None:
                self._refuse(NotAuthorized("The bearer token is unknown or expired"))
                return
            self.access_key = user
            return
        if "x-amz-security-token" in headers or "X-Amz-Security-Token" in self.request.query_arguments:
            self._refuse(NotAuthorized("Session credentials are not accepted by the catalog"))
            return
        try:
            self._verification = StagedVerification(
                self.request.method, self.request.path, self.request.query, headers,
                self.services.iam.secret_for, service=SIGNING_NAME,
                max_skew=self.services.settings.max_clock_skew_seconds, has_body=self.has_body,
            )
        except AuthError as exc:
            self._refuse(NotAuthorized(f"{exc.code}: {exc.message}"))
            return
        if self._verification.pending:
            self.hold_unverified()

    async def accept_body(self, body: bytes) -> None:
        """The signature is whole once the body is in: only then does the caller have a name."""
        if self._verification is not None:
            try:
                body = self._verification.finish(body)
            except AuthError as exc:
                self._refuse(NotAuthorized(f"{exc.code}: {exc.message}"))
                return
            self.access_key = self._verification.access_key
        await super().accept_body(body)

    def _refuse(self, error: IcebergError) -> None:
        self.refuse(functools.partial(self.send_catalog_error, error))

    def send_body_refusal(self, refusal: BodyRefused) -> None:
        error = (ServiceUnavailableException if refusal.status == 503 else BadRequestException)(refusal.message)
        error.code = refusal.status
        self.send_catalog_error(error)

    def allowed(self, action: str, scope: Scope | str) -> bool:
        """May the caller do ``action`` on ``scope`` (a Scope, or one ARN without condition keys)?"""
        resources, context = ((scope,), {}) if isinstance(scope, str) else scope
        return self.services.iam.is_allowed(self.access_key, action, resources[0],
                                            {**context, "aws:username": self.access_key},
                                            other_names=resources[1:])

    def authorize(self, action: str, scope: Scope | str) -> None:
        if not self.allowed(action, scope):
            resource = scope if isinstance(scope, str) else scope.resources[0]
            raise Forbidden(f"Access denied: {action} on {resource}")

    async def entry_scope(self, warehouse: str, namespace: Sequence[str], name: str, kind: str, *,
                          existing: bool = True) -> Scope:
        """A table's or view's Scope: by name and, when ``existing``, also by its uuid. The root user is
        allowed everything, so its requests (the benchmarked hot path) read no uuid."""
        dotted_namespace = dotted(namespace)
        uuid = None
        if existing and not self.services.iam.is_root(self.access_key):
            uuid = await self.call(self.catalog.entry_uuid, warehouse, list(namespace), name, kind)
        return Scope(entry_arns(warehouse, kind, dotted_namespace, name, uuid),
                     {NAMESPACE_KEY: dotted_namespace, NAME_KEYS[kind]: name})

    async def authorize_entry(self, action: str, warehouse: str, namespace: Sequence[str], name: str, kind: str, *,
                              existing: bool = True) -> Scope:
        scope = await self.entry_scope(warehouse, namespace, name, kind, existing=existing)
        self.authorize(action, scope)
        return scope

    def authorize_contents(self, warehouse: str, contents: list) -> None:
        """A force delete of a warehouse does in one call what the caller could do with one call per
        thing it holds, so it needs the same rights: DeleteNamespace, DeleteTable and DeleteView on
        each (a Deny on any one of them refuses the whole delete), besides DeleteWarehouse."""
        for content in contents:
            if content.kind == "namespace":
                self.authorize("s3tables:DeleteNamespace", namespace_scope(warehouse, content.namespace))
                continue
            dotted_namespace = dotted(content.namespace)
            action = "s3tables:DeleteTable" if content.kind == TABLE else "s3tables:DeleteView"
            arns = entry_arns(warehouse, content.kind, dotted_namespace, content.name, content.uuid)
            self.authorize(action, Scope(arns, {NAMESPACE_KEY: dotted_namespace, NAME_KEYS[content.kind]: content.name}))

    def vend(self, scope: Scope, location: str, *, fresh: bool = False) -> list[dict]:
        """Storage credentials for a table the caller may read: read-write when it may also commit.
        Vending never fails a request: what goes wrong is logged and nothing is vended."""
        try:
            writable = self.allowed("s3tables:UpdateTableMetadataLocation", scope)
            # In place: sealing a session is CPU work alone (the key is loaded at startup).
            return self.vendor.storage_credentials(self.access_key, location, writable=writable, fresh=fresh)
        except Exception:  # see the docstring
            log.exception("could not vend credentials for %s", scope.resources[0])
            return []

    def json_body(self, shape: bodies.Check) -> dict:
        """The request body, decoded strictly and of the route's shape (bodies.py). Handlers call it
        before authorizing, so nothing malformed reaches authorization or the catalog."""
        try:
            body = parse_object(self.request.body)
        except JSONInputError as exc:
            raise BadRequestException(f"Malformed JSON request body: {exc.message}") from None
        return bodies.check(shape, body)

    def query(self, name: str, default: str | None = None) -> str | None:
        """A query parameter, decoded as sent: tornado's own accessors turn control characters such as
        the %1F namespace separator into spaces."""
        values = parse_qs(self.request.query, keep_blank_values=True).get(name)
        return values[-1] if values else default

    @property
    def idempotency_key(self) -> str | None:
        return self.request.headers.get("Idempotency-Key")

    def page(self) -> dict:
        size = self.query("pageSize")
        if size is not None and (not size.isdigit() or int(size) < 1):
            raise BadRequestException(f"Invalid pageSize: {size!r}")
        return {"page_token": self.query("pageToken"), "page_size": int(size) if size else None}

    async def call(self, fn, *args, **kwargs):
        return await IOLoop.current().run_in_executor(self.services.executor, functools.partial(fn, *args, **kwargs))

    async def load_table(self, warehouse: str, namespace: list[str], table: str, **options) -> TableResult:
        """Tables.load in place when the store reads fast and the metadata is kept in memory (a thread
        hop costs more than the whole load then), else on the pool: a big file is never parsed here."""
        if self.services.store.fast_reads:
            result = self.catalog.tables.load(warehouse, namespace, table, kept_only=True, **options)
            if result is not None:
                return result
        return await self.call(self.catalog.tables.load, warehouse, namespace, table, **options)

    def reply(self, body: dict | None, status: int = 200) -> None:
        self.set_status(status)
        if body is None or status == 204:
            self.clear_header("Content-Type")
            self.finish()
        else:
            self.finish(json.dumps(body))

    def send_catalog_error(self, error: IcebergError) -> None:
        self.clear()
        self.set_status(error.code)
        if self.request.method == "HEAD":
            self.clear_header("Content-Type")
            self.finish()
        else:
            self.finish(json.dumps(error.to_json()))

    def write_error(self, status_code: int, **kwargs) -> None:
        exc = kwargs.get("exc_info", (None, None))[1]
        if isinstance(exc, IcebergError):
            self.send_catalog_error(exc)
            return
        if status_code >= 500:
            log.error("catalog request failed: %s %s", self.request.method, self.request.path, exc_info=kwargs.get("exc_info"))
        error = IcebergError("Internal server error") if status_code >= 500 else BadRequestException(self._reason)
        error.code = status_code
        self.send_catalog_error(error)

    def log_exception(self, typ, value, tb) -> None:
        if not isinstance(value, IcebergError):
            super().log_exception(typ, value, tb)


def split_namespace(joined_namespace: str) -> list[str]:
    return joined_namespace.split(NAMESPACE_SEPARATOR)


def dotted(namespace: Sequence[str]) -> str:
    return ".".join(namespace)


def namespace_scope(warehouse: str, namespace: Sequence[str]) -> Scope:
    dotted_namespace = dotted(namespace)
    return Scope(namespace_arns(warehouse, dotted_namespace), {NAMESPACE_KEY: dotted_namespace})


class ConfigHandler(CatalogHandler):
    async def get(self) -> None:
        """With a warehouse, GetConfig on it; without, the server's defaults name no warehouse, so any
        caller the catalog admits may read them."""
        warehouse = self.query("warehouse")
        if warehouse:
            self.authorize("s3tables:GetConfig", warehouse_arn(warehouse))
        self.reply(await self.call(self.catalog.config, warehouse))


class WarehousesHandler(CatalogHandler):
    async def get(self) -> None:
        self.authorize("s3tables:ListWarehouses", ALL_WAREHOUSES)
        self.reply(await self.call(self.catalog.warehouses.list, **self.page()))

    async def post(self) -> None:
        body = self.json_body(bodies.CREATE_WAREHOUSE)
        self.authorize("s3tables:CreateWarehouse", warehouse_arn(body["name"]))
        self.reply(await self.call(self.catalog.warehouses.create, body, idempotency_key=self.idempotency_key))


class WarehouseHandler(CatalogHandler):
    async def get(self, warehouse: str) -> None:
        self.authorize("s3tables:GetWarehouse", warehouse_arn(warehouse))
        self.reply(await self.call(self.catalog.warehouses.get, warehouse))

    async def delete(self, warehouse: str) -> None:
        self.authorize("s3tables:DeleteWarehouse", warehouse_arn(warehouse))
        if self.query("force", "false").strip().lower() == "true":
            authorize = functools.partial(self.authorize_contents, warehouse)
            await self.call(self.catalog.warehouses.purge, warehouse, authorize=authorize,
                            idempotency_key=self.idempotency_key)
        else:
            await self.call(self.catalog.warehouses.delete, warehouse, idempotency_key=self.idempotency_key)
        self.reply(None, 204)


class NamespacesHandler(CatalogHandler):
    async def get(self, warehouse: str) -> None:
        parent = self.query("parent")
        context = {NAMESPACE_KEY: dotted(split_namespace(parent))} if parent else {}
        self.authorize("s3tables:ListNamespaces", Scope((warehouse_arn(warehouse),), context))
        result = await self.call(
            self.catalog.namespaces.list, warehouse, split_namespace(parent) if parent else None, **self.page()
        )
        self.reply(result)

    async def post(self, warehouse: str) -> None:
        body = self.json_body(bodies.CREATE_NAMESPACE)
        self.authorize("s3tables:CreateNamespace",
                       Scope((warehouse_arn(warehouse),), {NAMESPACE_KEY: dotted(body["namespace"])}))
        self.reply(await self.call(self.catalog.namespaces.create, warehouse, body, idempotency_key=self.idempotency_key))


class NamespaceHandler(CatalogHandler):
    async def get(self, warehouse: str, joined_namespace: str) -> None:
        namespace = split_namespace(joined_namespace)
        self.authorize("s3tables:GetNamespace", namespace_scope(warehouse, namespace))
        self.reply(await self.call(self.catalog.namespaces.load, warehouse, namespace))

    async def head(self, warehouse: str, joined_namespace: str) -> None:
        namespace = split_namespace(joined_namespace)
        self.authorize("s3tables:GetNamespace", namespace_scope(warehouse, namespace))
        await self.call(self.catalog.namespaces.exists, warehouse, namespace)
        self.reply(None, 204)

    async def delete(self, warehouse: str, joined_namespace: str) -> None:
        namespace = split_namespace(joined_namespace)
        self.authorize("s3tables:DeleteNamespace", namespace_scope(warehouse, namespace))
        await self.call(self.catalog.namespaces.drop, warehouse, namespace, idempotency_key=self.idempotency_key)
        self.reply(None, 204)


class NamespacePropertiesHandler(CatalogHandler):
    async def post(self, warehouse: str, joined_namespace: str) -> None:
        namespace = split_namespace(joined_namespace)
        body = self.json_body(bodies.UPDATE_NAMESPACE_PROPERTIES)
        self.authorize("s3tables:UpdateNamespaceProperties", namespace_scope(warehouse, namespace))
        result = await self.call(
            self.catalog.namespaces.update_properties, warehouse, namespace, body,
            idempotency_key=self.idempotency_key,
        )
        self.reply(result)


class TablesHandler(CatalogHandler):
    async def get(self, warehouse: str, joined_namespace: str) -> None:
        namespace = split_namespace(joined_namespace)
        self.authorize("s3tables:ListTables", namespace_scope(warehouse, namespace))
        self.reply(await self.call(self.catalog.tables.list, warehouse, namespace, **self.page()))

    async def post(self, warehouse: str, joined_namespace: str) -> None:
        namespace = split_namespace(joined_namespace)
        body = self.json_body(bodies.CREATE_TABLE)
        scope = await self.authorize_entry("s3tables:CreateTable", warehouse, namespace, body["name"], TABLE, existing=False)
        result = await self.call(self.catalog.tables.create, warehouse, namespace, body, idempotency_key=self.idempotency_key)
        self.send_table(result, warehouse, namespace, body["name"], scope)

    def send_table(self, result, warehouse: str, namespace: list[str], table: str, scope: Scope) -> None:
        """A LoadTableResult, with vended credentials when the client asked for them."""
        body = result.body
        if wants_vended_credentials(self.request.headers):
            credentials = self.vend(scope, body["metadata"].get("location", ""))
            if credentials:
                refresh = "v1/" + "/".join(quote(part, safe="") for part in (
                    warehouse, "namespaces", NAMESPACE_SEPARATOR.join(namespace), "tables", table, "credentials"))
                config = self.vendor.table_config(credentials, self.s3_endpoint(), refresh)
                body = {**body, "config": {**body.get("config", {}), **config}, "storage-credentials": credentials}
        self.set_header("ETag", result.etag)
        self.finish(result.encoded(body))  # a load's metadata comes encoded already

    def s3_endpoint(self) -> str:
        """Where this client reaches the S3 API: the address its catalog request came to, since both share
        one listener (the public endpoint may name an address only outside clients can reach)."""
        return f"{self.request.protocol}://{self.request.host}"


class TableHandler(TablesHandler):
    async def get(self, warehouse: str, joined_namespace: str, table: str) -> None:
        namespace = split_namespace(joined_namespace)
        scope = await self.authorize_entry("s3tables:GetTable", warehouse, namespace, table, TABLE)
        # Vended credentials are new at every load: a client asking for them gets no 304.
        vending = wants_vended_credentials(self.request.headers)
        result = await self.load_table(
            warehouse, namespace, table, snapshots=self.query("snapshots", "all"),
            if_none_match=None if vending else self.request.headers.get("If-None-Match"),
        )
        if result.body is None:
            self.set_header("ETag", result.etag)
            self.reply(None, 304)
            return
        self.send_table(result, warehouse, namespace, table, scope)

    async def head(self, warehouse: str, joined_namespace: str, table: str) -> None:
        namespace = split_namespace(joined_namespace)
        await self.authorize_entry("s3tables:GetTable", warehouse, namespace, table, TABLE)
        await self.call(self.catalog.tables.exists, warehouse, namespace, table)
        self.reply(None, 204)

    async def post(self, warehouse: str, joined_namespace: str, table: str) -> None:
        namespace = split_namespace(joined_namespace)
        body = self.json_body(bodies.COMMIT_TABLE)
        await self.authorize_entry("s3tables:UpdateTableMetadataLocation", warehouse, namespace, table, TABLE)
        result = await self.call(
            self.catalog.tables.commit, warehouse, namespace, table, body, idempotency_key=self.idempotency_key
        )
        self.set_header("ETag", result.etag)
        self.finish(result.encoded(result.body))  # the new metadata file's text, spliced in

    async def delete(self, warehouse: str, joined_namespace: str, table: str) -> None:
        namespace = split_namespace(joined_namespace)
        await self.authorize_entry("s3tables:DeleteTable", warehouse, namespace, table, TABLE)
        # PyIceberg sends purgeRequested=True (Python's spelling); take any case of true.
        purge = self.query("purgeRequested", "false").strip().lower() == "true"
        await self.call(
            self.catalog.tables.drop, warehouse, namespace, table, purge=purge, idempotency_key=self.idempotency_key
        )
        self.reply(None, 204)


class CredentialsHandler(CatalogHandler):
    """loadCredentials: fresh vended credentials for a table the caller may read."""

    async def get(self, warehouse: str, joined_namespace: str, table: str) -> None:
        namespace = split_namespace(joined_namespace)
        scope = await self.authorize_entry("s3tables:GetTable", warehouse, namespace, table, TABLE)
        result = await self.load_table(warehouse, namespace, table, snapshots="refs")
        credentials = self.vend(scope, result.body["metadata"]["location"], fresh=True)
        self.reply({"storage-credentials": credentials})


class MetricsHandler(CatalogHandler):
    async def post(self, warehouse: str, joined_namespace: str, table: str) -> None:
        namespace = split_namespace(joined_namespace)
        body = self.json_body(bodies.REPORT_METRICS)
        await self.authorize_entry("s3tables:TableMetrics", warehouse, namespace, table, TABLE)
        await self.call(self.catalog.tables.report_metrics, warehouse, namespace, table, body)
        self.reply(None, 204)


class RegisterHandler(TablesHandler):
    async def post(self, warehouse: str, joined_namespace: str) -> None:
        namespace = split_namespace(joined_namespace)
        body = self.json_body(bodies.REGISTER_TABLE)
        scope = await self.authorize_entry("s3tables:RegisterTable", warehouse, namespace, body["name"], TABLE,
                                           existing=False)
        result = await self.call(self.catalog.tables.register, warehouse, namespace, body, idempotency_key=self.idempotency_key)
        self.send_table(result, warehouse, namespace, body["name"], scope)


class RenameHandler(CatalogHandler):
    """Tables and views share one name space: renaming needs the right on both names."""

    def initialize(self, services, kind: str) -> None:
        super().initialize(services)
        self.kind = kind

    async def post(self, warehouse: str) -> None:
        body = self.json_body(bodies.RENAME)
        action = "s3tables:RenameTable" if self.kind == TABLE else "s3tables:RenameView"
        for identifier, existing in ((body["source"], True), (body["destination"], False)):
            await self.authorize_entry(action, warehouse, identifier["namespace"], identifier["name"], self.kind,
                                       existing=existing)
        service = self.catalog.tables if self.kind == TABLE else self.catalog.views
        await self.call(service.rename, warehouse, body, idempotency_key=self.idempotency_key)
        self.reply(None, 204)


class TransactionsHandler(CatalogHandler):
    async def post(self, warehouse: str) -> None:
        body = self.json_body(bodies.COMMIT_TRANSACTION)
        for change in body["table-changes"]:
            identifier = change["identifier"]
            await self.authorize_entry("s3tables:UpdateTableMetadataLocation", warehouse, identifier["namespace"],
                                       identifier["name"], TABLE)
        await self.call(self.catalog.transactions.commit, warehouse, body, idempotency_key=self.idempotency_key)
        self.reply(None, 204)


class ViewsHandler(CatalogHandler):
    async def get(self, warehouse: str, joined_namespace: str) -> None:
        namespace = split_namespace(joined_namespace)
        self.authorize("s3tables:ListViews", namespace_scope(warehouse, namespace))
        self.reply(await self.call(self.catalog.views.list, warehouse, namespace, **self.page()))

    async def post(self, warehouse: str, joined_namespace: str) -> None:
        namespace = split_namespace(joined_namespace)
        body = self.json_body(bodies.CREATE_VIEW)
        await self.authorize_entry("s3tables:CreateView", warehouse, namespace, body["name"], VIEW, existing=False)
        self.reply(await self.call(self.catalog.views.create, warehouse, namespace, body, idempotency_key=self.idempotency_key))


class RegisterViewHandler(CatalogHandler):
    async def post(self, warehouse: str, joined_namespace: str) -> None:
        namespace = split_namespace(joined_namespace)
        body = self.json_body(bodies.REGISTER_VIEW)
        await self.authorize_entry("s3tables:RegisterView", warehouse, namespace, body["name"], VIEW, existing=False)
        self.reply(await self.call(self.catalog.views.register, warehouse, namespace, body,
                                   idempotency_key=self.idempotency_key))


class ViewHandler(CatalogHandler):
    async def get(self, warehouse: str, joined_namespace: str, view: str) -> None:
        namespace = split_namespace(joined_namespace)
        await self.authorize_entry("s3tables:GetView", warehouse, namespace, view, VIEW)
        self.reply(await self.call(self.catalog.views.load, warehouse, namespace, view))

    async def head(self, warehouse: str, joined_namespace: str, view: str) -> None:
        namespace = split_namespace(joined_namespace)
        await self.authorize_entry("s3tables:GetView", warehouse, namespace, view, VIEW)
        await self.call(self.catalog.views.exists, warehouse, namespace, view)
        self.reply(None, 204)

    async def post(self, warehouse: str, joined_namespace: str, view: str) -> None:
        namespace = split_namespace(joined_namespace)
        body = self.json_body(bodies.COMMIT_VIEW)
        await self.authorize_entry("s3tables:UpdateView", warehouse, namespace, view, VIEW)
        result = await self.call(
            self.catalog.views.replace, warehouse, namespace, view, body, idempotency_key=self.idempotency_key
        )
        self.reply(result)

    async def delete(self, warehouse: str, joined_namespace: str, view: str) -> None:
        namespace = split_namespace(joined_namespace)
        await self.authorize_entry("s3tables:DeleteView", warehouse, namespace, view, VIEW)
        await self.call(self.catalog.views.drop, warehouse, namespace, view, idempotency_key=self.idempotency_key)
        self.reply(None, 204)


class UnknownEndpointHandler(CatalogHandler):
    def _unknown(self, *_args) -> None:
        raise NoSuchEndpoint(f"No such catalog endpoint: {self.request.method} {self.request.path}")

    get = head = post = delete = _unknown


def routes(services) -> list:
    base = r"/_iceberg/v1"
    # The spec calls this path segment {prefix}; here it is always a warehouse's name (/v1/config
    # answers the warehouse as the prefix), so handlers receive it as ``warehouse``.
    prefix = base + r"/(?P<warehouse>[^/]+)"
    namespace = prefix + r"/namespaces/(?P<joined_namespace>[^/]+)"
    kwargs = {"services": services}
    table = [
        (base + r"/oauth/tokens", OAuthTokensHandler),
        (base + r"/config", ConfigHandler),
        (base + r"/warehouses", WarehousesHandler),
        (base + r"/warehouses/(?P<warehouse>[^/]+)", WarehouseHandler),
        (prefix + r"/namespaces", NamespacesHandler),
        (namespace, NamespaceHandler),
        (namespace + r"/properties", NamespacePropertiesHandler),
        (namespace + r"/tables", TablesHandler),
        (namespace + r"/tables/(?P<table>[^/]+)", TableHandler),
        (namespace + r"/tables/(?P<table>[^/]+)/metrics", MetricsHandler),
        (namespace + r"/tables/(?P<table>[^/]+)/credentials", CredentialsHandler),
        (namespace + r"/register", RegisterHandler),
        (prefix + r"/transactions/commit", TransactionsHandler),
        (namespace + r"/views", ViewsHandler),
        (namespace + r"/views/(?P<view>[^/]+)", ViewHandler),
        (namespace + r"/register-view", RegisterViewHandler),
    ]
    specs = [(pattern, handler, kwargs) for pattern, handler in table]
    specs.append((prefix + r"/tables/rename", RenameHandler, {**kwargs, "kind": "table"}))
    specs.append((prefix + r"/views/rename", RenameHandler, {**kwargs, "kind": "view"}))
    specs.append((r"/_iceberg(?:/.*)?", UnknownEndpointHandler, kwargs))
    return specs
