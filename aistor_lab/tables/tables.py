"""Tables: create (and stage-create), load, commit, drop (with purge), rename, register, metrics."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from ..store import StoreError
from . import layout
from .commits import Planned, commit_with_retries, metadata_file_location, write_metadata
from .context import CatalogContext
from .entries import TABLE, Entries
from .errors import AlreadyExistsException, BadRequestException, CommitFailedException
from .foreign_metadata import parse_foreign_metadata
from .json_files import split_location
from .loaded_metadata import LoadedMetadata
from .manifests import assigned_row_ids, read_manifest_list
from .names import check_name, check_namespace
from .pointers import Pointer
from .requirements import check_table_requirement_types, check_table_requirements, is_create
from .table_metadata import (
    DEFAULT_FORMAT_VERSION,
    check_format_version,
    new_table_metadata,
    normalize,
    referenced_snapshots,
    serialize,
)
from .table_result import TableResult, etag_matches, table_etag
from .table_updates import TableMetadataBuilder, check_update_actions

log = logging.getLogger(__name__)
SNAPSHOT_MODES = ("all", "refs")


def pointer_body(metadata: dict, metadata_location: str) -> dict:
    return {
        "kind": TABLE,
        "uuid": metadata["table-uuid"],
        "metadata-location": metadata_location,
        "location": metadata["location"],
    }


def _result(metadata_location: str | None, metadata: dict, metadata_json: str | None = None) -> TableResult:
    body = {"metadata-location": metadata_location, "metadata": metadata, "config": {}}
    return TableResult(body, table_etag(metadata_location, "all", metadata), metadata_json=metadata_json)


class Tables:
    def __init__(self, ctx: CatalogContext, entries: Entries):
        self.ctx = ctx
        self.entries = entries
        self.loaded = LoadedMetadata()

    # -- reading -------------------------------------------------------------------------
    def list(
        self,
        warehouse: str,
        namespace: list[str],
        page_token: str | None = None,
        page_size: int | None = None,
    ) -> dict:
        """ListTablesResponse."""
        return self.entries.list(warehouse, namespace, TABLE, page_token, page_size)

    def load(
        self,
        warehouse: str,
        namespace: list[str],
        table: str,
        *,
        snapshots: str = "all",
        if_none_match: str | None = None,
        kept_only: bool = False,
    ) -> TableResult | None:
        """LoadTableResult and its ETag; ``body`` is None when ``if_none_match`` names the current
        version (HTTP 304), decided from the pointer alone without reading the metadata file.
        ``kept_only``: None rather than reading a metadata file that is not kept in memory."""
        if snapshots not in SNAPSHOT_MODES:
            raise BadRequestException(f"Invalid snapshots mode: {snapshots!r} (all or refs)")
        pointer = self.entries.current(warehouse, namespace, table, TABLE)
        etag = table_etag(pointer.metadata_location, snapshots)
        if etag_matches(if_none_match, etag):
            return TableResult(None, etag)
        # Pointers older than today's location rules are held to them too before the service reads.
        self.ctx.location_checker(warehouse)(pointer.metadata_location)

        def read() -> dict:
            metadata = normalize(self.ctx.files.read_json_or_fail(pointer.metadata_location))
            shown = metadata["snapshots"] if snapshots == "all" else referenced_snapshots(metadata)
            return serialize(metadata, snapshots=shown)

        kept = self.loaded.get(pointer.metadata_location, snapshots, None if kept_only else read)
        if kept is None:
            return None
        metadata, text = kept
        body = {"metadata-location": pointer.metadata_location, "metadata": metadata, "config": {}}
        return TableResult(body, etag, metadata_json=text)

    def exists(self, warehouse: str, namespace: list[str], table: str) -> None:
        """Returns when the table exists; raises NoSuchTableException otherwise."""
        self.entries.current(warehouse, namespace, table, TABLE)

    # -- creating ------------------------------------------------------------------------
    def create(
        self, warehouse: str, namespace: list[str], request: dict, *, idempotency_key: str | None = None
    ) -> TableResult:
        """CreateTableResponse. With ``stage-create`` the metadata is returned without a
        metadata-location and nothing is written: the client commits it with assert-create."""
        return self.ctx.named_request(
            idempotency_key, "create-table", warehouse, namespace, request, "table",
            lambda namespace, name: self._create(warehouse, namespace, name, request))

    def _create(self, warehouse: str, namespace: list[str], table: str, request: dict) -> TableResult:
        self.entries.check_free(warehouse, namespace, table)
        table_uuid, location = self.ctx.new_location(warehouse)
        if request.get("location"):
            location = self.ctx.location_checker(warehouse)(request["location"])
        metadata = new_table_metadata(request, location, table_uuid, self.ctx.now_ms())
        if request.get("stage-create"):
            return _result(None, serialize(metadata))
        return self._write_new(warehouse, namespace, table, metadata)

    def _write_new(self, warehouse: str, namespace: list[str], table: str, metadata: dict) -> TableResult:
        checker = self.ctx.location_checker(warehouse)
        metadata_location = metadata_file_location(
            metadata["location"], metadata["properties"], None, checker
        )
        serialized = serialize(metadata)
        text = write_metadata(self.ctx, metadata_location, serialized)
        try:
            self.entries.create(warehouse, namespace, table, TABLE, pointer_body(metadata, metadata_location))
        except BaseException:
            self.ctx.files.delete(metadata_location)
            raise
        return _result(metadata_location, serialized, text)

    def register(
        self, warehouse: str, namespace: list[str], request: dict, *, idempotency_key: str | None = None
    ) -> TableResult:
        """Register an existing metadata file (inside the warehouse) as a table; with ``overwrite``
        an existing table of that name is re-pointed."""
        return self.ctx.named_request(
            idempotency_key, "register-table", warehouse, namespace, request, "table",
            lambda namespace, name: self._register(warehouse, namespace, name, request))

    def _register(self, warehouse: str, namespace: list[str], table: str, request: dict) -> TableResult:
        metadata_location, data = self.ctx.registered_file(warehouse, namespace, request)
        metadata = parse_foreign_metadata(data, metadata_location)
        metadata["location"] = self.ctx.location_checker(warehouse)(metadata["location"])
        body = pointer_body(metadata, metadata_location)
        key = self.entries.key(warehouse, namespace, table, TABLE)
        if request.get("overwrite"):
            existing = self.ctx.pointers.settled(key)
            if existing is not None:
                if self.ctx.pointers.swap(existing, body) is None:
                    raise CommitFailedException("Table changed concurrently while being re-registered; retry")
                return _result(metadata_location, serialize(metadata))
        self.entries.create(warehouse, namespace, table, TABLE, body)
        return _result(metadata_location, serialize(metadata))

    # -- committing ----------------------------------------------------------------------
    def commit(
        self,
        warehouse: str,
        namespace: list[str],
        table: str,
        request: dict,
        *,
        idempotency_key: str | None = None,
    ) -> TableResult:
        """CommitTableResponse. A create transaction (assert-create) creates the table."""
        namespace = check_namespace(namespace)
        table = check_name(table, "table name")
        if not isinstance(request, dict):
            raise BadRequestException("Invalid request: expected an object")
        requirements, updates = request.get("requirements") or [], request.get("updates") or []
        check_table_requirement_types(requirements)
        check_update_actions(updates)
        if is_create(requirements):
            action = lambda: self._commit_create(warehouse, namespace, table, updates)
        else:
            action = lambda: self._commit(warehouse, namespace, table, requirements, updates)
        return self.ctx.idempotency.run(
            idempotency_key, f"commit-table {warehouse} {namespace} {table}", action
        )

    def _commit_create(self, warehouse: str, namespace: list[str], table: str, updates: list) -> TableResult:
        version = check_format_version(
            next(
                (u.get("format-version") for u in updates if u.get("action") == "upgrade-format-version"),
                DEFAULT_FORMAT_VERSION,
            )
        )
        builder = self._builder(warehouse, None, None, format_version=version, is_create=True)
        builder.apply_all(updates)
        if builder.m["location"] is None:
            builder.m["location"] = self.ctx.new_location(warehouse)[1]
        metadata = builder.build()
        if metadata is None:
            raise BadRequestException("A create transaction must carry the table's initial updates")
        try:
            return self._write_new(warehouse, namespace, table, metadata)
        except AlreadyExistsException as exc:
            raise CommitFailedException("Requirement failed: table already exists") from exc

    def _commit(
        self, warehouse: str, namespace: list[str], table: str, requirements: list, updates: list
    ) -> TableResult:
        planned = commit_with_retries(
            self.ctx,
            self.entries.key(warehouse, namespace, table, TABLE),
            self.entries.missing(TABLE, namespace, table),
            lambda pointer: self.plan(warehouse, pointer, requirements, updates),
        )
        return _result(planned.metadata_location, planned.metadata, planned.metadata_json)

    def plan(self, warehouse: str, pointer: Pointer, requirements: list, updates: list) -> Planned:
        """Check the requirements against the pointer's metadata, apply the updates and write the new
        metadata file (not yet committed). Used by single commits and multi-table transactions."""
        base = normalize(self.ctx.files.read_json_or_fail(pointer.metadata_location))
        check_table_requirements(requirements, base)
        builder = self._builder(warehouse, base, pointer.metadata_location)
        builder.apply_all(updates)
        metadata = builder.build()
        if metadata is None:
            return Planned(pointer.metadata_location, serialize(base), None)
        checker = self.ctx.location_checker(warehouse)
        location = metadata_file_location(
            metadata["location"], metadata["properties"], pointer.metadata_location, checker
        )
        serialized = serialize(metadata)
        text = write_metadata(self.ctx, location, serialized)
        return Planned(location, serialized, pointer_body(metadata, location), text)

    def _builder(
        self, warehouse: str, base: dict | None, base_location: str | None, **kwargs
    ) -> TableMetadataBuilder:
        return TableMetadataBuilder(
            base,
            base_location,
            now_ms=self.ctx.now_ms,
            check_location=self.ctx.location_checker(warehouse),
            added_rows_for=lambda snapshot: self._added_rows_for(warehouse, snapshot),
            **kwargs,
        )

    def _added_rows_for(self, warehouse: str, snapshot: dict) -> int:
        """A v3 snapshot sent without ``added-rows``: count the row ids its manifest list assigned (read
        by the service, so only inside the warehouse)."""
        location = snapshot.get("manifest-list")
        if not isinstance(location, str):
            raise BadRequestException("A v3 snapshot needs added-rows or a manifest-list")
        location = self.ctx.location_checker(warehouse)(location)
        try:
            manifests = read_manifest_list(location, self.ctx.files.read_bytes(location))
        except (StoreError, OSError, ValueError) as exc:
            raise BadRequestException(
                f"added-rows is missing and the manifest list is unreadable: {exc}"
            ) from exc
        return assigned_row_ids(manifests, snapshot["first-row-id"])

    # -- removing and renaming -----------------------------------------------------------
    def drop(
        self,
        warehouse: str,
        namespace: list[str],
        table: str,
        *,
        purge: bool = False,
        idempotency_key: str | None = None,
    ) -> None:
        """Remove the table from the catalog; with ``purge`` also delete every file under its location
        (skipped, with a warning, if another table's location overlaps it)."""
        namespace = check_namespace(namespace)
        self.ctx.idempotency.run(
            idempotency_key,
            f"drop-table {warehouse} {namespace} {table}",
            lambda: self._drop(warehouse, namespace, table, purge),
        )

    def _drop(self, warehouse: str, namespace: list[str], table: str, purge: bool) -> None:
        body = self.entries.drop(warehouse, namespace, table, TABLE)
        if purge:
            self._purge(warehouse, body["location"])

    def _purge(self, warehouse: str, location: str) -> None:
        bucket, key = split_location(location)
        prefix = key.rstrip("/") + "/"
        for other in self.table_locations(warehouse):
            other_bucket, other_key = split_location(other)
            other_prefix = other_key.rstrip("/") + "/"
            if other_bucket == bucket and (
                other_prefix.startswith(prefix) or prefix.startswith(other_prefix)
            ):
                log.warning("not purging %s: it overlaps the location of another table (%s)", location, other)
                return
        self.ctx.files.delete_prefix(bucket, prefix)

    def table_locations(self, warehouse: str) -> list[str]:
        """The location of every table of a warehouse (reads every table pointer)."""
        return [pointer.body["location"] for pointer in self.table_pointers(warehouse)]

    def table_pointers(self, warehouse: str) -> list[Pointer]:
        return [pointer for _, _, pointer in self.table_entries(warehouse)]

    def table_entries(self, warehouse: str) -> Iterator[tuple[list[str], str, Pointer]]:
        """(namespace, name, pointer) of every table of a warehouse."""
        for key in self.ctx.docs.keys(layout.catalog_prefix(warehouse)):
            if layout.is_table_pointer_key(key):
                pointer = self.ctx.pointers.current(key)
                if pointer is not None:
                    _, namespace, name = layout.catalog_item(warehouse, key)
                    yield namespace, name, pointer

    def rename(self, warehouse: str, request: dict, *, idempotency_key: str | None = None) -> None:
        """RenameTableRequest: ``source`` and ``destination`` identifiers (namespaces may differ)."""
        self.ctx.idempotency.run(
            idempotency_key,
            f"rename-table {warehouse} {request!r}",
            lambda: self.entries.rename(warehouse, request, TABLE),
        )

    def report_metrics(self, warehouse: str, namespace: list[str], table: str, request: dict) -> None:
        """Accept a ScanReport or CommitReport; it is only logged. The table need not exist yet: a staged
        create (Spark's CREATE TABLE AS SELECT) reports its commit before the table is there, and the
        reference catalog accepts every report."""
        if not isinstance(request, dict) or not isinstance(request.get("report-type"), str):
            raise BadRequestException("Invalid metrics report: report-type is required")
        self.ctx.namespace(warehouse, check_namespace(namespace))
        check_name(table, "table name")
        log.debug("metrics report for %s.%s: %s", ".".join(namespace), table, request.get("report-type"))
