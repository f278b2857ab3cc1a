"""Namespaces: multi-level, each with string properties; a child needs its parent to exist."""

from __future__ import annotations

from . import layout
from .context import CatalogContext, no_such_namespace
from .errors import (
    AlreadyExistsException,
    BadRequestException,
    CommitFailedException,
    NamespaceNotEmptyException,
    NoSuchWarehouseException,
    UnprocessableEntityException,
)
from .names import check_namespace
from .pagination import list_page
from .table_metadata import check_properties

_UPDATE_ATTEMPTS = 10


class Namespaces:
    def __init__(self, ctx: CatalogContext):
        self.ctx = ctx

    def list(
        self,
        warehouse: str,
        parent: list[str] | None = None,
        page_token: str | None = None,
        page_size: int | None = None,
    ) -> dict:
        """ListNamespacesResponse: the direct children of ``parent`` (top level when empty)."""
        parent = check_namespace(parent or [], allow_empty=True)
        if parent:
            self.ctx.namespace(warehouse, parent)
        else:
            self.ctx.warehouse(warehouse)
        prefix = layout.namespace_prefix(warehouse, parent)

        def select(common_prefix: str) -> list[str] | None:
            level = layout.child_level(common_prefix, prefix) if common_prefix.endswith("/") else None
            if level is None or not self.ctx.docs.exists(common_prefix + layout.NAMESPACE_DOC):
                return None
            return [*parent, level]

        namespaces, token = list_page(self.ctx.docs, prefix, select, page_token, page_size, delimiter="/")
        return {"namespaces": namespaces, "next-page-token": token}

    def create(self, warehouse: str, request: dict, *, idempotency_key: str | None = None) -> dict:
        """CreateNamespaceResponse."""
        if not isinstance(request, dict):
            raise BadRequestException("Invalid request: expected an object")
        namespace = check_namespace(request.get("namespace"))
        properties = check_properties(request.get("properties"))
        return self.ctx.idempotency.run(
            idempotency_key,
            f"create-namespace {warehouse} {namespace}",
            lambda: self._create(warehouse, namespace, properties),
        )

    def _create(self, warehouse: str, namespace: list[str], properties: dict) -> dict:
        self.ctx.warehouse(warehouse)
        parent = namespace[:-1]
        if parent:
            container = layout.namespace_key(warehouse, parent)
            missing = lambda: no_such_namespace(parent)
        else:
            container = layout.warehouse_key(warehouse)
            missing = lambda: NoSuchWarehouseException(f"Warehouse does not exist: {warehouse}")
        key = layout.namespace_key(warehouse, namespace)
        body = {"namespace": namespace, "properties": properties}
        etag = self.ctx.containers.create_inside(
            container,
            missing,
            lambda: self.ctx.docs.create(key, body),
            lambda: AlreadyExistsException(f"Namespace already exists: {'.'.join(namespace)}"),
            lambda etag: self.ctx.docs.delete(key, etag),
        )
        self.ctx.confirm_warehouse(warehouse, lambda: self.ctx.docs.delete(key, etag))
        return {"namespace": namespace, "properties": properties}

    def load(self, warehouse: str, namespace: list[str]) -> dict:
        """GetNamespaceResponse."""
        namespace = check_namespace(namespace)
        doc = self.ctx.namespace(warehouse, namespace)
        return {"namespace": namespace, "properties": doc.body.get("properties", {})}

    def exists(self, warehouse: str, namespace: list[str]) -> None:
        """Returns when the namespace exists; raises NoSuchNamespaceException otherwise."""
        self.ctx.namespace(warehouse, check_namespace(namespace))

    def drop(self, warehouse: str, namespace: list[str], *, idempotency_key: str | None = None) -> None:
        """Refused with NamespaceNotEmptyException while it holds tables, views or namespaces."""
        namespace = check_namespace(namespace)
        self.ctx.idempotency.run(
            idempotency_key,
            f"drop-namespace {warehouse} {namespace}",
            lambda: self._drop(warehouse, namespace),
        )

    def _drop(self, warehouse: str, namespace: list[str]) -> None:
        self.ctx.warehouse(warehouse)
        prefix = layout.namespace_prefix(warehouse, namespace)
        own = prefix + layout.NAMESPACE_DOC

        def is_empty() -> bool:
            return all(obj.key == own for obj in self.ctx.docs.list(prefix, max_keys=2).objects)

        self.ctx.containers.drop(
            own,
            lambda: no_such_namespace(namespace),
            is_empty,
            lambda: NamespaceNotEmptyException(f"Namespace is not empty: {'.'.join(namespace)}"),
        )

    def update_properties(
        self, warehouse: str, namespace: list[str], request: dict, *, idempotency_key: str | None = None
    ) -> dict:
        """UpdateNamespacePropertiesResponse: ``updated``, ``removed`` and ``missing`` keys."""
        namespace = check_namespace(namespace)
        if not isinstance(request, dict):
            raise BadRequestException("Invalid request: expected an object")
        updates = check_properties(request.get("updates"))
        removals = request.get("removals") or []
        if not isinstance(removals, list) or not all(isinstance(k, str) for k in removals):
            raise BadRequestException("Invalid removals: must be a list of strings")
        both = sorted(set(updates) & set(removals))
        if both:
            raise UnprocessableEntityException(f"Properties are both updated and removed: {both}")
        return self.ctx.idempotency.run(
            idempotency_key,
            f"update-namespace-properties {warehouse} {namespace}",
            lambda: self._update_properties(warehouse, namespace, updates, removals),
        )

    def _update_properties(self, warehouse: str, namespace: list[str], updates: dict, removals: list) -> dict:
        key = layout.namespace_key(warehouse, namespace)
        for _ in range(_UPDATE_ATTEMPTS):
            doc = self.ctx.namespace(warehouse, namespace)
            properties = dict(doc.body.get("properties", {}))
            missing = sorted({k for k in removals if k not in properties})
            for k in removals:
                properties.pop(k, None)
            properties.update(updates)
            if self.ctx.docs.replace(key, {**doc.body, "properties": properties}, doc.etag) is not None:
                return {
                    "updated": sorted(updates),
                    "removed": sorted({k for k in removals if k not in missing}),
                    "missing": missing,
                }
        raise CommitFailedException("Namespace properties changed concurrently too often; retry")
