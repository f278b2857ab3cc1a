"""Warehouses: a warehouse is a bucket of the object store that the catalog manages."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ..store import BucketAlreadyOwnedByYou, BucketNotEmpty, NoSuchBucket
from . import layout
from .containers import DELETING
from .context import CatalogContext
from .errors import (
    AlreadyExistsException,
    BadRequestException,
    CommitFailedException,
    NoSuchWarehouseException,
    WarehouseNotEmptyException,
)
from .json_files import Doc, split_location
from .names import check_warehouse_name
from .pagination import list_page
from .table_metadata import check_properties

# The table and view locations a force delete purges, recorded on the marked warehouse so a retry finds them.
PURGING = "purging-locations"


class Content(NamedTuple):
    """One thing a force delete removes: a namespace (``name`` None), a table or a view."""

    kind: str  # "namespace", "table" or "view"
    namespace: list[str]
    name: str | None
    uuid: str | None
    location: str | None
    key: str


def _public(body: dict) -> dict:
    return {
        "name": body["name"],
        "uuid": body["uuid"],
        "created-ms": body["created-ms"],
        "properties": body["properties"],
    }


class Warehouses:
    def __init__(self, ctx: CatalogContext):
        self.ctx = ctx

    def create(self, request: dict, *, idempotency_key: str | None = None) -> dict:
        """Register a warehouse and create its bucket. A bucket of that name that is no warehouse yet is
        refused unless the request says ``upgrade-existing``: it may hold data of someone else's that
        the warehouse's purges would then reach."""
        if not isinstance(request, dict):
            raise BadRequestException("Invalid request: expected an object with a name")
        warehouse = check_warehouse_name(request.get("name"))
        if self.ctx.store.is_system_bucket(warehouse):  # on a remote cluster its name is an ordinary one
            raise BadRequestException(f"Invalid warehouse name {warehouse!r}: reserved by this server")
        properties = check_properties(request.get("properties"))
        upgrade = request.get("upgrade-existing") is True
        return self.ctx.idempotency.run(
            idempotency_key, f"create-warehouse {warehouse}", lambda: self._create(warehouse, properties, upgrade)
        )

    def _create(self, warehouse: str, properties: dict, upgrade_existing: bool) -> dict:
        try:
            self.ctx.store.create_bucket(warehouse)
        except BucketAlreadyOwnedByYou:
            if self.ctx.docs.get(layout.warehouse_key(warehouse)) is not None:
                raise AlreadyExistsException(f"Warehouse already exists: {warehouse}") from None
            if not upgrade_existing:
                raise AlreadyExistsException(
                    f"Bucket {warehouse} already exists and is not a warehouse: create the warehouse with "
                    "upgrade-existing to make the bucket one") from None
        body = {
            "name": warehouse,
            "uuid": self.ctx.new_location(warehouse)[0],
            "created-ms": self.ctx.now_ms(),
            "properties": properties,
        }
        if self.ctx.docs.create(layout.warehouse_key(warehouse), body) is None:
            raise AlreadyExistsException(f"Warehouse already exists: {warehouse}")
        return _public(body)

    def get(self, warehouse: str) -> dict:
        check_warehouse_name(warehouse)
        return _public(self.ctx.warehouse(warehouse).body)

    def list(self, page_token: str | None = None, page_size: int | None = None) -> dict:
        def select(key: str) -> str | None:
            return layout.warehouse_from_key(key) if key.endswith(".json") else None

        names, token = list_page(self.ctx.docs, layout.warehouses_prefix(), select, page_token, page_size)
        return {"warehouses": names, "next-page-token": token}

    def delete(self, warehouse: str, *, idempotency_key: str | None = None) -> None:
        """Unregister a warehouse (refused while it holds namespaces). Its bucket is deleted too when
        empty; a bucket that still holds objects is kept: the catalog never deletes data it did not
        write as part of a table."""
        check_warehouse_name(warehouse)
        self.ctx.idempotency.run(
            idempotency_key, f"delete-warehouse {warehouse}", lambda: self._delete(warehouse)
        )

    def _delete(self, warehouse: str) -> None:
        def is_empty() -> bool:
            return not self.ctx.docs.list(layout.catalog_prefix(warehouse), max_keys=1).objects

        self.ctx.containers.drop(
            layout.warehouse_key(warehouse),
            lambda: NoSuchWarehouseException(f"Warehouse does not exist: {warehouse}"),
            is_empty,
            lambda: WarehouseNotEmptyException(f"Warehouse is not empty: {warehouse}"),
        )
        self._delete_bucket_if_empty(warehouse)

    def _delete_bucket_if_empty(self, warehouse: str) -> None:
        try:
            self.ctx.store.delete_bucket(warehouse)
        except (BucketNotEmpty, NoSuchBucket):
            pass

    def purge(
        self,
        warehouse: str,
        *,
        authorize: Callable[[list[Content]], None],
        idempotency_key: str | None = None,
    ) -> None:
        """Delete a warehouse with all it holds: namespaces, and tables and views with their files
        purged (as a purging table drop does); then its bucket, if that is left empty.

        All or nothing as far as the catalog is concerned. One conditional write decides: it marks
        the warehouse document as being deleted, after which the warehouse answers as absent and
        nothing can be created in it (context.confirm_warehouse), so what it holds is fixed.
        ``authorize`` then sees all of that; if it raises, the mark is taken back and nothing has
        changed. Otherwise the locations of the tables and views are recorded on the mark, their
        catalog documents deleted, then their files, then the warehouse document. A failure midway
        leaves a marked warehouse, absent for clients, whose deletion a retry of this call finishes
        (an entry already loaded may be read until its document goes, a moment later)."""
        check_warehouse_name(warehouse)
        self.ctx.idempotency.run(
            idempotency_key, f"purge-warehouse {warehouse}", lambda: self._purge(warehouse, authorize)
        )

    def _purge(self, warehouse: str, authorize: Callable[[list[Content]], None]) -> None:
        key = layout.warehouse_key(warehouse)
        doc = self.ctx.docs.get(key)
        if doc is None:
            raise NoSuchWarehouseException(f"Warehouse does not exist: {warehouse}")
        resumed = DELETING in doc.body  # an earlier force delete stopped midway
        if not resumed:
            doc = self._replace(key, doc, {**doc.body, DELETING: self.ctx.now_ms()})
        contents = self._contents(warehouse)
        try:
            authorize(contents)
        except BaseException:
            if not resumed:
                self.ctx.docs.replace(key, {k: v for k, v in doc.body.items() if k != DELETING}, doc.etag)
            raise
        locations = {*doc.body.get(PURGING, ()), *(c.location for c in contents if c.kind != "namespace")}
        doc = self._replace(key, doc, {**doc.body, PURGING: sorted(locations)})
        for content in contents:
            self.ctx.docs.delete(content.key)
        for location in doc.body[PURGING]:
            bucket, prefix = split_location(location)
            self.ctx.files.delete_prefix(bucket, prefix.rstrip("/") + "/")
        self.ctx.docs.delete(key, doc.etag)
        self._delete_bucket_if_empty(warehouse)

    def _replace(self, key: str, doc: Doc, body: dict) -> Doc:
        etag = self.ctx.docs.replace(key, body, doc.etag)
        if etag is None:
            raise CommitFailedException("The warehouse changed concurrently while being deleted; retry")
        return Doc(body, etag)

    def _contents(self, warehouse: str) -> list[Content]:
        contents = []
        for key in self.ctx.docs.keys(layout.catalog_prefix(warehouse)):
            kind, namespace, name = layout.catalog_item(warehouse, key)
            body: dict = {}
            if name is not None:
                pointer = self.ctx.pointers.current(key)
                if pointer is None:  # dropped meanwhile
                    continue
                body = pointer.body
            contents.append(Content(kind, namespace, name, body.get("uuid"), body.get("location"), key))
        return contents
