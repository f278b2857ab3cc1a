"""Warehouses: a warehouse is a bucket of the object store that the catalog manages."""

from __future__ import annotations

from ..store import BucketAlreadyOwnedByYou, BucketNotEmpty, NoSuchBucket
from . import layout
from .context import CatalogContext
from .errors import (
    AlreadyExistsException,
    BadRequestException,
    NoSuchWarehouseException,
    WarehouseNotEmptyException,
)
from .names import check_warehouse_name
from .pagination import list_page
from .table_metadata import check_properties


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
        """Register a warehouse, creating its bucket if absent (an existing bucket is adopted)."""
        if not isinstance(request, dict):
            raise BadRequestException("Invalid request: expected an object with a name")
        name = check_warehouse_name(request.get("name"))
        if self.ctx.store.is_system_bucket(name):  # on a remote cluster its name is an ordinary one
            raise BadRequestException(f"Invalid warehouse name {name!r}: reserved by this server")
        properties = check_properties(request.get("properties"))
        return self.ctx.idempotency.run(
            idempotency_key, f"create-warehouse {name}", lambda: self._create(name, properties)
        )

    def _create(self, name: str, properties: dict) -> dict:
        try:
            self.ctx.store.create_bucket(name)
        except BucketAlreadyOwnedByYou:
            pass
        body = {
            "name": name,
            "uuid": self.ctx.new_location(name)[0],
            "created-ms": self.ctx.now_ms(),
            "properties": properties,
        }
        if self.ctx.docs.create(layout.warehouse_key(name), body) is None:
            raise AlreadyExistsException(f"Warehouse already exists: {name}")
        return _public(body)

    def get(self, name: str) -> dict:
        check_warehouse_name(name)
        return _public(self.ctx.warehouse(name).body)

    def list(self, page_token: str | None = None, page_size: int | None = None) -> dict:
        def select(key: str) -> str | None:
            return layout.warehouse_from_key(key) if key.endswith(".json") else None

        names, token = list_page(self.ctx.docs, layout.warehouses_prefix(), select, page_token, page_size)
        return {"warehouses": names, "next-page-token": token}

    def delete(self, name: str, *, idempotency_key: str | None = None) -> None:
        """Unregister a warehouse (refused while it holds namespaces). Its bucket is deleted too when
        empty; a bucket that still holds objects is kept: the catalog never deletes data it did not
        write as part of a table."""
        check_warehouse_name(name)
        self.ctx.idempotency.run(idempotency_key, f"delete-warehouse {name}", lambda: self._delete(name))

    def _delete(self, name: str) -> None:
        def is_empty() -> bool:
            return not self.ctx.docs.list(layout.catalog_prefix(name), max_keys=1).objects

        self.ctx.containers.drop(
            layout.warehouse_key(name),
            lambda: NoSuchWarehouseException(f"Warehouse does not exist: {name}"),
            is_empty,
            lambda: WarehouseNotEmptyException(f"Warehouse is not empty: {name}"),
        )
        try:
            self.ctx.store.delete_bucket(name)
        except (BucketNotEmpty, NoSuchBucket):
            pass
