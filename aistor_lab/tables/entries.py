"""Pointers of tables and views as catalog entries: one name space per namespace shared by both
kinds, listing, creation inside a live namespace, drop and rename."""

from __future__ import annotations

from collections.abc import Callable

from . import layout
from .commits import MAX_ATTEMPTS, backoff
from .context import CatalogContext, no_such_namespace
from .errors import (
    AlreadyExistsException,
    BadRequestException,
    CommitFailedException,
    IcebergError,
    NoSuchTableException,
    NoSuchViewException,
)
from .names import check_name, check_namespace, parse_identifier
from .pagination import list_page
from .pointers import Pointer

TABLE = "table"
VIEW = "view"
_OTHER = {TABLE: VIEW, VIEW: TABLE}


def _dotted(namespace: list[str], name: str) -> str:
    return ".".join([*namespace, name])


def missing_entry(kind: str, namespace: list[str], name: str) -> IcebergError:
    if kind == TABLE:
        return NoSuchTableException(f"Table does not exist: {_dotted(namespace, name)}")
    return NoSuchViewException(f"View does not exist: {_dotted(namespace, name)}")


class Entries:
    def __init__(self, ctx: CatalogContext):
        self.ctx = ctx

    def key(self, warehouse: str, namespace: list[str], name: str, kind: str) -> str:
        return layout.entry_key(warehouse, check_namespace(namespace), check_name(name), kind)

    def missing(self, kind: str, namespace: list[str], name: str) -> Callable[[], IcebergError]:
        return lambda: missing_entry(kind, namespace, name)

    def list(
        self, warehouse: str, namespace: list[str], kind: str, page_token: str | None, page_size: int | None
    ) -> dict:
        namespace = check_namespace(namespace)
        self.ctx.namespace(warehouse, namespace)
        prefix = layout.entries_prefix(warehouse, namespace, kind)

        def select(key: str) -> dict | None:
            return (
                {"namespace": namespace, "name": layout.entry_name(key, prefix)}
                if key.endswith(".json")
                else None
            )

        identifiers, token = list_page(self.ctx.docs, prefix, select, page_token, page_size)
        return {"identifiers": identifiers, "next-page-token": token}

    def current(self, warehouse: str, namespace: list[str], name: str, kind: str) -> Pointer:
        """The entry as readers see it; raises NoSuchTable/NoSuchView, also when the namespace does not
        exist: the spec's load answers say so, and Iceberg clients rely on it to try ``ns.table.files``
        and other metadata tables next. A name no entry can have is not found either (Spark asks for
        ``parquet.`s3a://bucket/path``` in the current catalog before reading it as a file)."""
        try:
            key = self.key(warehouse, namespace, name, kind)
        except BadRequestException:
            key = None
        pointer = self.ctx.pointers.current(key) if key else None
        if pointer is None:
            self.ctx.warehouse(warehouse)
            raise missing_entry(kind, namespace, name)
        return pointer

    def check_free(self, warehouse: str, namespace: list[str], name: str) -> None:
        """Raise unless the namespace exists and no table or view has this name."""
        self.ctx.namespace(warehouse, namespace)
        for kind in (TABLE, VIEW):
            if self.ctx.docs.exists(self.key(warehouse, namespace, name, kind)):
                raise AlreadyExistsException(f"Table or view already exists: {_dotted(namespace, name)}")

    def create(self, warehouse: str, namespace: list[str], name: str, kind: str, body: dict) -> str:
        """Write a new pointer; AlreadyExistsException when a table or view has the name. Writing
        first and then checking the other kind means two racing creators of a table and a view
        cannot both succeed."""
        self.ctx.warehouse(warehouse)
        key = self.key(warehouse, namespace, name, kind)
        other = self.key(warehouse, namespace, name, _OTHER[kind])

        def put() -> str | None:
            if self.ctx.docs.exists(other):
                return None
            etag = self.ctx.pointers.create(key, body)
            if etag is not None and self.ctx.docs.exists(other):
                self.ctx.docs.delete(key, etag)
                return None
            return etag

        etag = self.ctx.containers.create_inside(
            layout.namespace_key(warehouse, namespace),
            lambda: no_such_namespace(namespace),
            put,
            lambda: AlreadyExistsException(f"Table or view already exists: {_dotted(namespace, name)}"),
            lambda etag: self.ctx.docs.delete(key, etag),
        )
        self.ctx.confirm_warehouse(warehouse, lambda: self.ctx.docs.delete(key, etag))
        return etag

    def drop(self, warehouse: str, namespace: list[str], name: str, kind: str) -> dict:
        """Delete the pointer; the body it had (to purge the files it names)."""
        key = self.key(warehouse, namespace, name, kind)
        for attempt in range(MAX_ATTEMPTS):
            pointer = self.ctx.pointers.settled(key)
            if pointer is None:
                self.ctx.namespace(warehouse, namespace)
                raise missing_entry(kind, namespace, name)
            if self.ctx.pointers.delete(pointer):
                return pointer.body
            backoff(attempt)
        raise CommitFailedException("The entry changed concurrently while being dropped; retry")

    def rename(self, warehouse: str, request: dict, kind: str) -> None:
        """Move a pointer to a new identifier (across namespaces too): create the new one, then
        delete the old one on its ETag; if the old one changed meanwhile, undo and retry."""
        if not isinstance(request, dict):
            raise BadRequestException("Invalid rename request")
        src_ns, src_name = parse_identifier(request.get("source"))
        dst_ns, dst_name = parse_identifier(request.get("destination"))
        src_key = self.key(warehouse, src_ns, src_name, kind)
        dst_key = self.key(warehouse, dst_ns, dst_name, kind)
        if src_key == dst_key:
            raise AlreadyExistsException(f"Cannot rename {_dotted(dst_ns, dst_name)} to itself")
        for attempt in range(MAX_ATTEMPTS):
            pointer = self.ctx.pointers.settled(src_key)
            if pointer is None:
                self.ctx.namespace(warehouse, src_ns)
                raise missing_entry(kind, src_ns, src_name)
            etag = self.create(warehouse, dst_ns, dst_name, kind, pointer.body)
            if self.ctx.pointers.delete(pointer):
                return
            self.ctx.docs.delete(dst_key, etag)
            backoff(attempt)
        raise CommitFailedException("The entry changed concurrently while being renamed; retry")
