"""Views: create, register, load, replace (commit view updates), drop, rename."""

from __future__ import annotations

from .commits import Planned, commit_with_retries, metadata_file_location, write_metadata
from .context import CatalogContext
from .entries import VIEW, Entries
from .errors import BadRequestException
from .foreign_metadata import parse_foreign_view
from .names import check_namespace
from .pointers import Pointer
from .requirements import check_view_requirements
from .view_metadata import ViewMetadataBuilder, new_view_metadata, normalize_view, serialize_view


def _pointer_body(metadata: dict, metadata_location: str) -> dict:
    return {
        "kind": VIEW,
        "uuid": metadata["view-uuid"],
        "metadata-location": metadata_location,
        "location": metadata["location"],
    }


def _result(metadata_location: str, metadata: dict) -> dict:
    return {"metadata-location": metadata_location, "metadata": metadata, "config": {}}


class Views:
    def __init__(self, ctx: CatalogContext, entries: Entries):
        self.ctx = ctx
        self.entries = entries

    def list(
        self,
        warehouse: str,
        namespace: list[str],
        page_token: str | None = None,
        page_size: int | None = None,
    ) -> dict:
        """ListTablesResponse of the views in a namespace."""
        return self.entries.list(warehouse, namespace, VIEW, page_token, page_size)

    def create(
        self, warehouse: str, namespace: list[str], request: dict, *, idempotency_key: str | None = None
    ) -> dict:
        """LoadViewResult of a new view (schema id 0, version id 1)."""
        return self.ctx.named_request(
            idempotency_key, "create-view", warehouse, namespace, request, "view",
            lambda namespace, name: self._create(warehouse, namespace, name, request))

    def _create(self, warehouse: str, namespace: list[str], view: str, request: dict) -> dict:
        self.entries.check_free(warehouse, namespace, view)
        checker = self.ctx.location_checker(warehouse)
        view_uuid, location = self.ctx.new_location(warehouse)
        if request.get("location"):
            location = checker(request["location"])
        metadata = new_view_metadata(request, location, view_uuid, self.ctx.now_ms())
        metadata_location = metadata_file_location(location, {}, None, checker)
        serialized = serialize_view(metadata)
        write_metadata(self.ctx, metadata_location, serialized)
        try:
            self.entries.create(warehouse, namespace, view, VIEW, _pointer_body(metadata, metadata_location))
        except BaseException:
            self.ctx.files.delete(metadata_location)
            raise
        return _result(metadata_location, serialized)

    def register(
        self, warehouse: str, namespace: list[str], request: dict, *, idempotency_key: str | None = None
    ) -> dict:
        """LoadViewResult of an existing view metadata file (inside the warehouse) registered as a view."""
        return self.ctx.named_request(
            idempotency_key, "register-view", warehouse, namespace, request, "view",
            lambda namespace, name: self._register(warehouse, namespace, name, request))

    def _register(self, warehouse: str, namespace: list[str], view: str, request: dict) -> dict:
        metadata_location, data = self.ctx.registered_file(warehouse, namespace, request)
        metadata = parse_foreign_view(data, metadata_location)
        metadata["location"] = self.ctx.location_checker(warehouse)(metadata["location"])
        self.entries.create(warehouse, namespace, view, VIEW, _pointer_body(metadata, metadata_location))
        return _result(metadata_location, serialize_view(metadata))

    def load(self, warehouse: str, namespace: list[str], view: str) -> dict:
        """LoadViewResult."""
        pointer = self.entries.current(warehouse, namespace, view, VIEW)
        metadata = normalize_view(self.ctx.files.read_json_or_fail(pointer.metadata_location))
        return _result(pointer.metadata_location, serialize_view(metadata))

    def exists(self, warehouse: str, namespace: list[str], view: str) -> None:
        """Returns when the view exists; raises NoSuchViewException otherwise."""
        self.entries.current(warehouse, namespace, view, VIEW)

    def replace(
        self,
        warehouse: str,
        namespace: list[str],
        view: str,
        request: dict,
        *,
        idempotency_key: str | None = None,
    ) -> dict:
        """CommitViewRequest (requirements: assert-view-uuid) -> LoadViewResult."""
        namespace = check_namespace(namespace)
        if not isinstance(request, dict):
            raise BadRequestException("Invalid request: expected an object")
        requirements, updates = request.get("requirements") or [], request.get("updates") or []

        def replace() -> dict:
            planned = commit_with_retries(
                self.ctx,
                self.entries.key(warehouse, namespace, view, VIEW),
                self.entries.missing(VIEW, namespace, view),
                lambda pointer: self._plan(warehouse, pointer, requirements, updates),
            )
            return _result(planned.metadata_location, planned.metadata)

        return self.ctx.idempotency.run(
            idempotency_key, f"replace-view {warehouse} {namespace} {view}", replace
        )

    def _plan(self, warehouse: str, pointer: Pointer, requirements: list, updates: list) -> Planned:
        base = normalize_view(self.ctx.files.read_json_or_fail(pointer.metadata_location))
        check_view_requirements(requirements, base)
        checker = self.ctx.location_checker(warehouse)
        builder = ViewMetadataBuilder(base, now_ms=self.ctx.now_ms, check_location=checker)
        builder.apply_all(updates)
        metadata = builder.build()
        if metadata is None:
            return Planned(pointer.metadata_location, serialize_view(base), None)
        location = metadata_file_location(metadata["location"], {}, pointer.metadata_location, checker)
        serialized = serialize_view(metadata)
        write_metadata(self.ctx, location, serialized)
        return Planned(location, serialized, _pointer_body(metadata, location))

    def drop(
        self, warehouse: str, namespace: list[str], view: str, *, idempotency_key: str | None = None
    ) -> None:
        namespace = check_namespace(namespace)
        self.ctx.idempotency.run(
            idempotency_key,
            f"drop-view {warehouse} {namespace} {view}",
            lambda: self.entries.drop(warehouse, namespace, view, VIEW),
        )

    def rename(self, warehouse: str, request: dict, *, idempotency_key: str | None = None) -> None:
        self.ctx.idempotency.run(
            idempotency_key,
            f"rename-view {warehouse} {request!r}",
            lambda: self.entries.rename(warehouse, request, VIEW),
        )
