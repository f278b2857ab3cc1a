"""The Iceberg REST catalog without HTTP: one object whose services map each REST operation to one
method taking the spec's request JSON (a dict) and returning the spec's response JSON (a dict, or
a TableResult with the ETag), raising IcebergError subclasses that carry the ErrorModel ``type``
and HTTP ``code``. Thread-safe; several processes may share one store."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from ..store import ObjectStore
from .context import CatalogContext
from .entries import Entries
from .errors import IcebergError, NoSuchWarehouseException
from .names import check_warehouse_name
from .namespaces import Namespaces
from .referenced_files import ReferencedFiles
from .tables import Tables
from .transactions import Transactions
from .views import Views
from .warehouses import Warehouses

if TYPE_CHECKING:
    from .scan_planning.service import ScanPlanning

# The endpoints this catalog serves, spelled as in the spec's CatalogConfig ``endpoints``.
ENDPOINTS = (
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
    "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/transactions/commit",
    "GET /v1/{prefix}/namespaces/{namespace}/views",
    "POST /v1/{prefix}/namespaces/{namespace}/views",
    "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/views/rename",
    "POST /v1/{prefix}/namespaces/{namespace}/register-view",
)


class Catalog:
    """``warehouses``, ``namespaces``, ``tables``, ``views``, ``transactions`` and ``scan_planning`` hold
    the operations;
    ``config`` answers /v1/config; ``is_warehouse``, ``table_locations`` and ``is_referenced`` serve the
    S3 API's table-aware protection (s3.protection.ProtectedTables)."""

    def __init__(
        self,
        store: ObjectStore,
        *,
        config_defaults: dict[str, str] | None = None,
        config_overrides: dict[str, str] | None = None,
        idempotency_lifetime_s: float = 30 * 60,
        now: Callable[[], float] = time.time,
    ):
        self.ctx = CatalogContext(store, now=now, idempotency_lifetime_s=idempotency_lifetime_s)
        entries = Entries(self.ctx)
        self.warehouses = Warehouses(self.ctx)
        self.namespaces = Namespaces(self.ctx)
        self.tables = Tables(self.ctx, entries)
        self.views = Views(self.ctx, entries)
        self.transactions = Transactions(self.ctx, self.tables)
        self._entries = entries
        self._referenced = ReferencedFiles(self.ctx)
        self._defaults = dict(config_defaults or {})
        self._overrides = dict(config_overrides or {})

    @cached_property
    def scan_planning(self) -> ScanPlanning:
        # Made at the first plan: planning loads PyIceberg's readers (and pyarrow's datasets, pandas),
        # which a service that is never asked to plan does without.
        from .scan_planning.service import ScanPlanning

        return ScanPlanning(self.ctx, self.tables)

    def config(self, warehouse: str | None) -> dict:
        """The /v1/config response for a warehouse: its name is the ``prefix`` of every route. Without
        one (the spec makes it optional) the server's defaults and overrides, with no prefix."""
        prefix: dict[str, str] = {}
        if warehouse:
            check_warehouse_name(warehouse)
            self.ctx.warehouse(warehouse)
            prefix = {"prefix": warehouse}
        return {
            # Java clients that predate the endpoints list look for this flag before using views.
            "defaults": {"view-endpoints-supported": "true", **self._defaults},
            "overrides": {**self._overrides, **prefix},
            "endpoints": list(ENDPOINTS),
            "idempotency-key-lifetime": self.ctx.idempotency.lifetime_iso,
        }

    def entry_uuid(self, warehouse: str, namespace: list[str], name: str, kind: str) -> str | None:
        """The uuid of a table or view (``kind`` "table" or "view"), which policies may name in ARNs;
        None when there is no such entry."""
        try:
            return self._entries.current(warehouse, namespace, name, kind).body.get("uuid")
        except IcebergError:
            return None

    def is_warehouse(self, bucket: str) -> bool:
        try:
            self.warehouses.get(bucket)
        except NoSuchWarehouseException:
            return False
        return True

    def table_locations(self, warehouse: str) -> list[str]:
        """The location of every table of a warehouse."""
        return self.tables.table_locations(warehouse)

    def is_referenced(self, bucket: str, key: str) -> bool:
        """Whether an object of a warehouse bucket is a metadata file, manifest list, manifest or
        statistics file that some table's current metadata depends on."""
        return self._referenced.is_referenced(bucket, key)
