"""A table of the Iceberg catalog ("uniform") shared as a Delta table.

Versions are the main branch's snapshots numbered by sequence number (iceberg_history); the files of a
version are the live data files of its snapshot's manifests, with their partition values
(iceberg_partitions), statistics (iceberg_stats) and row-level deletes as Delta deletion vectors
(iceberg_deletes); the metadata is the snapshot's schema as a Delta schema (iceberg_schema).

The change data feed of a version comes from its snapshot's own manifests: the data files it ADDED are
``add`` actions, those it DELETED are ``remove`` actions (an overwrite has both), and a data file whose
deletion vector changed is removed with its old DV and added with its new one, as Delta writes it. A
snapshot of operation ``replace`` (compaction) changes no data: its actions have ``data_change`` false.

The catalog's metadata is loaded once per source: the service makes one source per request, so every
answer of a request describes the same metadata.

Every file the source reads (manifest lists, manifests, delete files) or serves (data files) must lie
inside the table's location, itself inside its warehouse: metadata naming another table's files, or
another bucket's, fails the query (source.inside) rather than leaking or silently dropping them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from pyiceberg.schema import Schema

from ..store import ObjectStore
from ..store.locations import OutsideScope, Scope, table_scope
from ..tables import Catalog, IcebergError, normalize_metadata
from .errors import InternalError, NotFound, UnsupportedOperation
from .iceberg_deletes import DeleteIndex, DeletionVectors, same_deletes
from .iceberg_files import ADDED, DATA, DELETED, ManifestRow, ScopedFiles, table_files
from .iceberg_history import History, Version
from .iceberg_partitions import DeltaPartitioning
from .iceberg_schema import delta_schema, parse_schema, uses_timestamp_ntz
from .iceberg_stats import DeltaStats
from .source import FileAction, TableSource, TableVersion, VersionChanges, inside

_DATA_CHANGE_FREE_OPERATIONS = ("replace",)  # Iceberg's compaction / rewrite operation


@dataclass(frozen=True)
class _Snapshot:
    """What one version's snapshot holds: live data files, live deletes, and its Delta description."""

    version: Version
    stats: DeltaStats
    partitioning: DeltaPartitioning
    data: list[ManifestRow]
    deletes: DeleteIndex | None
    protocol: dict
    metadata: dict


class IcebergSource(TableSource):
    def __init__(self, catalog: Catalog, store: ObjectStore, warehouse: str, namespace: list[str], table: str):
        self._catalog = catalog
        self._store = store
        self._warehouse = warehouse
        self._namespace = list(namespace)
        self._table = table
        self._snapshots: dict[tuple[int, bool], _Snapshot] = {}  # (version, with data) -> snapshot

    # -- the table's metadata ------------------------------------------------------------------
    @cached_property
    def _metadata(self) -> dict:
        try:
            result = self._catalog.tables.load(self._warehouse, self._namespace, self._table)
        except IcebergError as exc:
            if exc.code == 404:
                raise NotFound(f"Iceberg table not found: {self._name}") from exc
            raise InternalError(f"The Iceberg table {self._name} cannot be loaded") from exc
        return normalize_metadata(result.body["metadata"])  # type: ignore[index]

    @cached_property
    def scope(self) -> Scope:
        location = self._metadata["location"]
        try:
            scope = table_scope(self._store, location)
        except OutsideScope as exc:
            raise UnsupportedOperation(f"The Iceberg table {self._name} cannot be shared: {exc}") from None
        if scope.bucket != self._warehouse:
            raise UnsupportedOperation(f"The Iceberg table {self._name} cannot be shared: its location {location} "
                                       f"is outside its warehouse")
        return scope

    @cached_property
    def _files(self) -> ScopedFiles:
        return ScopedFiles(table_files(self._store), self.scope)

    @property
    def _name(self) -> str:
        return ".".join([self._warehouse, *self._namespace, self._table])

    @cached_property
    def _history(self) -> History:
        return History(self._metadata)

    @cached_property
    def _deletion_vectors(self) -> DeletionVectors:
        return DeletionVectors(self._files, self.scope.root)

    @cached_property
    def _commit_times(self) -> dict[int, int]:
        return {s["snapshot-id"]: s["timestamp-ms"] for s in self._metadata["snapshots"]}

    # -- TableSource ---------------------------------------------------------------------------
    def latest_version(self) -> int:
        return self._history.latest.number

    def earliest_version(self) -> int:
        return self._history.earliest.number

    def version_at(self, timestamp_ms: int) -> int:
        return self._history.at_timestamp(timestamp_ms).number

    def version_timestamp(self, version: int) -> int:
        return self._history.as_of(version).timestamp

    def version_of_snapshot(self, snapshot_id: int) -> int | None:
        version = self._history.of_snapshot(snapshot_id)
        return None if version is None else version.number

    def table_version(self, version: int | None = None) -> TableVersion:
        number = self.latest_version() if version is None else version
        state = self._snapshot(self._history.as_of(number), with_data=True)
        files = [self._action("add", row, state, self._dv(row, state.deletes)) for row in state.data]
        return TableVersion(number, state.version.timestamp, state.protocol, state.metadata, files)

    def changes(self, starting_version: int, ending_version: int | None = None) -> Iterator[VersionChanges]:
        end = self.latest_version() if ending_version is None else ending_version
        for previous, version in self._history.between(starting_version, end):
            yield self._changes(previous, version)

    # -- one version ---------------------------------------------------------------------------
    def _schema(self, version: Version) -> Schema:
        """The schema a version's snapshot was written with; version 0 has the first snapshot's (an
        empty table the current one)."""
        schemas = {s["schema-id"]: s for s in self._metadata["schemas"]}
        schema_id = (version.snapshot or self._history.first_snapshot or {}).get("schema-id")
        return parse_schema(schemas.get(schema_id, schemas[self._metadata["current-schema-id"]]))

    def _snapshot(self, version: Version, *, with_data: bool) -> _Snapshot:
        """A version's snapshot (its live data files only ``with_data``), made once per source."""
        key = (version.number, with_data)
        if key not in self._snapshots:
            self._snapshots[key] = self._load_snapshot(version, with_data)
        return self._snapshots[key]

    def _load_snapshot(self, version: Version, with_data: bool) -> _Snapshot:
        specs = {s["spec-id"]: s for s in self._metadata["partition-specs"]}
        data: list[ManifestRow] = []
        delete_rows: list[ManifestRow] = []
        spec_ids: set[int] = set()
        if version.snapshot is not None:
            for manifest in self._manifests(version.snapshot):
                if manifest.content == DATA:
                    spec_ids.add(manifest.partition_spec_id)
                else:
                    delete_rows.extend(r for r in self._files.manifest(manifest) if r.status != DELETED)
            if with_data:
                data = self._live_data(version.snapshot)
        schema = self._schema(version)
        partitioning = DeltaPartitioning(schema, specs, spec_ids or {self._metadata["default-spec-id"]})
        deletes = DeleteIndex(delete_rows, self._files) if delete_rows else None
        delta = delta_schema(schema)
        features = (["deletionVectors"] if delete_rows else []) + (
            ["timestampNtz"] if uses_timestamp_ntz(delta) else []
        )
        # Writer version 4 (or the changeDataFeed writer feature) goes with delta.enableChangeDataFeed:
        # delta-kernel reads no change data feed without it.
        protocol = (
            {
                "minReaderVersion": 3,
                "minWriterVersion": 7,
                "readerFeatures": features,
                "writerFeatures": [*features, "changeDataFeed"],
            }
            if features
            else {"minReaderVersion": 1, "minWriterVersion": 4}
        )
        metadata = {
            "id": self._metadata["table-uuid"],
            "name": self._table,
            "description": self._metadata["properties"].get("comment"),
            "format": {"provider": "parquet", "options": {}},
            "schemaString": json.dumps(delta, separators=(",", ":")),
            "partitionColumns": partitioning.names(),
            # the change data feed of every version is derived from its snapshot (module doc)
            "configuration": {"delta.enableChangeDataFeed": "true"},
            "createdTime": self._history.created_ms,
        }
        return _Snapshot(version, DeltaStats(schema), partitioning, data, deletes, protocol, metadata)

    def _manifests(self, snapshot: dict):
        if "manifest-list" not in snapshot:
            raise UnsupportedOperation("Snapshots without a manifest list (early v1 tables) cannot be shared")
        return self._files.manifest_list(snapshot["manifest-list"])

    def _live_data(self, snapshot: dict) -> list[ManifestRow]:
        return [
            row
            for manifest in self._manifests(snapshot)
            if manifest.content == DATA
            for row in self._files.manifest(manifest)
            if row.status != DELETED
        ]

    def _dv(self, row: ManifestRow, deletes: DeleteIndex | None) -> dict | None:
        return self._deletion_vectors.descriptor(row.path, deletes.applicable(row)) if deletes else None

    def _action(
        self,
        kind: str,
        row: ManifestRow,
        state: _Snapshot,
        dv: dict | None,
        *,
        data_change: bool = True,
        when: int | None = None,
    ) -> FileAction:
        if row.file_format != "PARQUET":
            raise UnsupportedOperation(f"The table has {row.file_format} data files; only Parquet can be shared")
        if when is None:
            when = self._commit_times.get(row.snapshot_id, state.version.timestamp)  # type: ignore[arg-type]
        return FileAction(
            kind=kind,
            path=inside(self.scope, row.path),
            size=row.size,
            partition_values=state.partitioning.values(row),
            stats=state.stats(row, tight=dv is None),
            modification_time=when,
            data_change=data_change,
            deletion_vector=dv,
        )

    # -- what one version changed --------------------------------------------------------------
    def _changes(self, previous: Version | None, version: Version) -> VersionChanges:
        state = self._snapshot(version, with_data=False)
        before = self._snapshot(previous, with_data=False) if previous else None
        if version.snapshot is None:  # version 0: the table's creation
            return VersionChanges(version.number, version.timestamp, [], state.metadata, state.protocol)
        snapshot = version.snapshot
        data_change = snapshot.get("summary", {}).get("operation") not in _DATA_CHANGE_FREE_OPERATIONS
        added: list[ManifestRow] = []
        removed: list[ManifestRow] = []
        for manifest in self._manifests(snapshot):
            if manifest.content != DATA or manifest.added_snapshot_id != snapshot["snapshot-id"]:
                continue
            for row in self._files.manifest(manifest):
                if row.snapshot_id != snapshot["snapshot-id"]:
                    continue  # EXISTING entries carried over (or rewritten) from earlier snapshots
                if row.status == ADDED:
                    added.append(row)
                elif row.status == DELETED:
                    removed.append(row)
        old_deletes = before.deletes if before else None
        when = version.timestamp
        actions = [
            self._action("remove", row, state, self._dv(row, old_deletes), data_change=data_change, when=when)
            for row in removed
        ]
        actions += [
            self._action("add", row, state, self._dv(row, state.deletes), data_change=data_change, when=when)
            for row in added
        ]
        touched = {r.path for r in added + removed}
        actions += self._deletion_vector_changes(state, old_deletes, touched, data_change, when)
        return VersionChanges(
            version.number,
            version.timestamp,
            actions,
            state.metadata if before is None or before.metadata != state.metadata else None,
            state.protocol if before is None or before.protocol != state.protocol else None,
        )

    def _deletion_vector_changes(
        self, state: _Snapshot, old: DeleteIndex | None, touched: set[str], data_change: bool, when: int
    ) -> list[FileAction]:
        """remove + add of the data files (not otherwise added or removed) whose deletes changed."""
        new = state.deletes
        changed = {
            path
            for path in (new.data_files() if new else set()) | (old.data_files() if old else set())
            if not same_deletes(old.naming(path) if old else (), new.naming(path) if new else ())
        } - touched
        if not changed:
            return []
        actions: list[FileAction] = []
        for row in self._live_data(state.version.snapshot):  # type: ignore[arg-type]
            if row.path not in changed:
                continue
            before, after = self._dv(row, old), self._dv(row, new)
            if before != after:
                actions.append(self._action("remove", row, state, before, data_change=data_change, when=when))
                actions.append(self._action("add", row, state, after, data_change=data_change, when=when))
        return actions
