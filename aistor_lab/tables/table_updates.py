"""Applying TableUpdate actions to table metadata, with the Java reference's semantics
(TableMetadata.Builder): id reuse for schemas, specs and sort orders, ``-1`` meaning "the last one
added in this commit", snapshot log and metadata log upkeep, and v3 row lineage.

Errors: malformed or impossible updates raise BadRequestException (400); updates that are stale
against the current metadata (an old sequence number or first-row-id, which a retry with fresh
metadata fixes) raise CommitFailedException (409).
"""

from __future__ import annotations

import copy
import uuid as uuidlib
from collections.abc import Callable

from . import partitioning, schemas
from .errors import BadRequestException, CommitFailedException
from .table_metadata import (
    DEFAULT_FORMAT_VERSION,
    ROW_LINEAGE_FORMAT_VERSION,
    by_id,
    check_format_version,
    check_properties,
)

LAST_ADDED = -1
MAIN = "main"
_PREVIOUS_VERSIONS_MAX = "write.metadata.previous-versions-max"
_PREVIOUS_VERSIONS_MAX_DEFAULT = 100


def empty_metadata(format_version: int = DEFAULT_FORMAT_VERSION) -> dict:
    """What a create transaction starts from (Java's TableMetadata.buildFromEmpty)."""
    m = {
        "format-version": format_version,
        "table-uuid": str(uuidlib.uuid4()),
        "location": None,
        "last-sequence-number": 0,
        "last-updated-ms": 0,
        "last-column-id": 0,
        "current-schema-id": 0,
        "schemas": [],
        "default-spec-id": 0,
        "partition-specs": [],
        "last-partition-id": partitioning.UNPARTITIONED_LAST_ID,
        "default-sort-order-id": 0,
        "sort-orders": [],
        "properties": {},
        "current-snapshot-id": None,
        "refs": {},
        "snapshots": [],
        "statistics": [],
        "partition-statistics": [],
        "snapshot-log": [],
        "metadata-log": [],
        "encryption-keys": [],
    }
    if format_version >= ROW_LINEAGE_FORMAT_VERSION:
        m["next-row-id"] = 0
    return m


def _require(obj: dict, key: str, kind: type | tuple[type, ...], action: str):
    value = obj.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadRequestException(f"Invalid {action} update: '{key}' is missing or has the wrong type")
    return value


class TableMetadataBuilder:
    """Collects updates on a copy of ``base`` (None: a table being created) and builds the result.

    ``check_location`` vets every location an update sets; ``added_rows_for`` supplies a v3
    snapshot's ``added-rows`` when the client left it out (it reads the manifest list).
    """

    def __init__(
        self,
        base: dict | None,
        base_location: str | None,
        *,
        now_ms: Callable[[], int],
        check_location: Callable[[str], str],
        added_rows_for: Callable[[dict], int],
        format_version: int = DEFAULT_FORMAT_VERSION,
        is_create: bool = False,
    ):
        # The builder takes ownership of ``base`` (callers pass a freshly parsed copy) and changes it
        # in place; what the metadata log needs of the old version is kept aside first.
        self.base_location = base_location
        self._base_log = None if base is None else (list(base["metadata-log"]), base["last-updated-ms"])
        self.m = base if base is not None else empty_metadata(format_version)
        self.is_create = is_create
        self._now_ms = now_ms
        self._check_location = check_location
        self._added_rows_for = added_rows_for
        self.changed = False
        self._last_updated_ms: int | None = None
        self._added_schema_ids: set[int] = set()
        self._added_spec_ids: set[int] = set()
        self._added_order_ids: set[int] = set()
        self._added_snapshot_ids: set[int] = set()
        self._main_set_to: list[int] = []
        self._removed_snapshots = False
        self._last_added_schema: int | None = None
        self._last_added_spec: int | None = None
        self._last_added_order: int | None = None

    # -- dispatch ------------------------------------------------------------------------
    def apply_all(self, updates: object) -> None:
        if not isinstance(updates, list):
            raise BadRequestException("Invalid commit: updates must be a list")
        for update in updates:
            self.apply(update)

    def apply(self, update: object) -> None:
        if not isinstance(update, dict):
            raise BadRequestException(f"Invalid update: {update!r}")
        action = update.get("action")
        handler = _HANDLERS.get(action) if isinstance(action, str) else None
        if handler is None:
            raise BadRequestException(f"Unknown table update action: {update.get('action')!r}")
        handler(self, update)

    # -- identity and format -------------------------------------------------------------
    def _assign_uuid(self, update: dict) -> None:
        new_uuid = str(_require(update, "uuid", str, "assign-uuid"))
        if new_uuid == self.m["table-uuid"]:
            return
        if not self.is_create:
            raise BadRequestException("Cannot reassign the UUID of an existing table")
        self.m["table-uuid"] = new_uuid
        self.changed = True

    def _upgrade_format_version(self, update: dict) -> None:
        version = check_format_version(_require(update, "format-version", int, "upgrade-format-version"))
        current = self.m["format-version"]
        if version < current:
            raise BadRequestException(f"Cannot downgrade v{current} table to v{version}")
        if version == current:
            return
        self.m["format-version"] = version
        if version >= ROW_LINEAGE_FORMAT_VERSION:
            self.m.setdefault("next-row-id", 0)
        self.changed = True

    # -- schemas -------------------------------------------------------------------------
    def _add_schema(self, update: dict) -> None:
        schema = copy.deepcopy(schemas.check_schema(update.get("schema"), self.m["format-version"]))
        new_last = max(self.m["last-column-id"], schemas.highest_field_id(schema))
        new_id = self._reuse_or_new_schema_id(schema)
        found = new_id in by_id(self.m["schemas"], "schema-id")
        if found and new_last == self.m["last-column-id"]:
            self._last_added_schema = new_id if new_id in self._added_schema_ids else None
            return
        self.m["last-column-id"] = new_last
        if not found:
            schema["schema-id"] = new_id
            schema.setdefault("type", "struct")
            self.m["schemas"].append(schema)
        self._added_schema_ids.add(new_id)
        self._last_added_schema = new_id
        self.changed = True

    def _reuse_or_new_schema_id(self, schema: dict) -> int:
        new_id = self.m["current-schema-id"]
        for existing in self.m["schemas"]:
            if schemas.same_schema(existing, schema):
                return existing["schema-id"]
            if existing["schema-id"] >= new_id:
                new_id = existing["schema-id"] + 1
        return new_id

    def _set_current_schema(self, update: dict) -> None:
        schema_id = _require(update, "schema-id", int, "set-current-schema")
        if schema_id == LAST_ADDED:
            if self._last_added_schema is None:
                raise BadRequestException("Cannot set last added schema: no schema has been added")
            schema_id = self._last_added_schema
        if schema_id == self.m["current-schema-id"] and self.m["schemas"]:
            return
        if schema_id not in by_id(self.m["schemas"], "schema-id"):
            raise BadRequestException(f"Cannot set current schema to unknown schema: {schema_id}")
        self.m["current-schema-id"] = schema_id
        self.changed = True

    def _remove_schemas(self, update: dict) -> None:
        ids = set(_require(update, "schema-ids", list, "remove-schemas"))
        if self.m["current-schema-id"] in ids:
            raise BadRequestException("Cannot remove the current schema")
        if ids:
            self.m["schemas"] = [s for s in self.m["schemas"] if s["schema-id"] not in ids]
            self.changed = True

    def _current_schema(self) -> dict | None:
        return by_id(self.m["schemas"], "schema-id").get(self.m["current-schema-id"])

    # -- partition specs -----------------------------------------------------------------
    def _add_spec(self, update: dict) -> None:
        spec = _require(update, "spec", dict, "add-spec")
        fields = partitioning.normalize_spec_fields(spec.get("fields"), self._current_schema())
        fields = partitioning.assign_partition_field_ids(fields, self.m["last-partition-id"])
        new_spec = {"spec-id": 0, "fields": fields}
        new_id = self._reuse_or_new_spec_id(new_spec)
        if new_id in by_id(self.m["partition-specs"], "spec-id"):
            self._last_added_spec = new_id if new_id in self._added_spec_ids else None
            return
        if self.m["format-version"] == 1 and not partitioning.has_sequential_ids(new_spec):
            raise BadRequestException(f"Spec does not use sequential ids that are required in v1: {new_spec}")
        new_spec["spec-id"] = new_id
        self.m["partition-specs"].append(new_spec)
        self.m["last-partition-id"] = max(self.m["last-partition-id"], partitioning.last_field_id(new_spec))
        self._added_spec_ids.add(new_id)
        self._last_added_spec = new_id
        self.changed = True

    def _reuse_or_new_spec_id(self, spec: dict) -> int:
        new_id = 0
        for existing in self.m["partition-specs"]:
            if partitioning.compatible_specs(spec, existing):
                return existing["spec-id"]
            if new_id <= existing["spec-id"]:
                new_id = existing["spec-id"] + 1
        return new_id

    def _set_default_spec(self, update: dict) -> None:
        spec_id = _require(update, "spec-id", int, "set-default-spec")
        if spec_id == LAST_ADDED:
            if self._last_added_spec is None:
                raise BadRequestException("Cannot set last added spec: no spec has been added")
            spec_id = self._last_added_spec
        if spec_id not in by_id(self.m["partition-specs"], "spec-id"):
            raise BadRequestException(f"Cannot set default spec to unknown spec: {spec_id}")
        if spec_id != self.m["default-spec-id"]:
            self.m["default-spec-id"] = spec_id
            self.changed = True

    def _remove_partition_specs(self, update: dict) -> None:
        ids = set(_require(update, "spec-ids", list, "remove-partition-specs"))
        if self.m["default-spec-id"] in ids:
            raise BadRequestException("Cannot remove the default partition spec")
        if ids:
            self.m["partition-specs"] = [s for s in self.m["partition-specs"] if s["spec-id"] not in ids]
            self.changed = True

    # -- sort orders ---------------------------------------------------------------------
    def _add_sort_order(self, update: dict) -> None:
        order = _require(update, "sort-order", dict, "add-sort-order")
        fields = partitioning.normalize_sort_fields(order.get("fields"), self._current_schema())
        new_order = {"order-id": 0, "fields": fields}
        new_id = self._reuse_or_new_order_id(new_order)
        if new_id in by_id(self.m["sort-orders"], "order-id"):
            self._last_added_order = new_id if new_id in self._added_order_ids else None
            return
        new_order["order-id"] = new_id
        self.m["sort-orders"].append(new_order)
        self._added_order_ids.add(new_id)
        self._last_added_order = new_id
        self.changed = True

    def _reuse_or_new_order_id(self, order: dict) -> int:
        if not order["fields"]:
            return partitioning.UNSORTED_ORDER_ID
        new_id = 1
        for existing in self.m["sort-orders"]:
            if partitioning.same_order(existing, order):
                return existing["order-id"]
            if new_id <= existing["order-id"]:
                new_id = existing["order-id"] + 1
        return new_id

    def _set_default_sort_order(self, update: dict) -> None:
        order_id = _require(update, "sort-order-id", int, "set-default-sort-order")
        if order_id == LAST_ADDED:
            if self._last_added_order is None:
                raise BadRequestException("Cannot set last added sort order: no sort order has been added")
            order_id = self._last_added_order
        if order_id not in by_id(self.m["sort-orders"], "order-id"):
            raise BadRequestException(f"Cannot set default sort order to unknown order: {order_id}")
        if order_id != self.m["default-sort-order-id"]:
            self.m["default-sort-order-id"] = order_id
            self.changed = True

    # -- snapshots and refs --------------------------------------------------------------
    def _add_snapshot(self, update: dict) -> None:
        snapshot = copy.deepcopy(_require(update, "snapshot", dict, "add-snapshot"))
        snapshot_id = _require(snapshot, "snapshot-id", int, "add-snapshot")
        _require(snapshot, "timestamp-ms", int, "add-snapshot")
        if not self.m["schemas"] or not self.m["partition-specs"] or not self.m["sort-orders"]:
            raise BadRequestException(
                "Attempting to add a snapshot before a schema, spec and sort order are added"
            )
        if snapshot_id in by_id(self.m["snapshots"], "snapshot-id"):
            raise BadRequestException(f"Snapshot already exists for id: {snapshot_id}")
        version = self.m["format-version"]
        sequence_number = snapshot.get("sequence-number") or 0
        if version > 1:
            if (
                snapshot.get("parent-snapshot-id") is not None
                and sequence_number <= self.m["last-sequence-number"]
            ):
                raise CommitFailedException(
                    f"Cannot add snapshot with sequence number {sequence_number} older than last sequence "
                    f"number {self.m['last-sequence-number']}; retry with fresh metadata"
                )
            self.m["last-sequence-number"] = max(self.m["last-sequence-number"], sequence_number)
        if version >= ROW_LINEAGE_FORMAT_VERSION:
            self._assign_row_lineage(snapshot)
        self.m["snapshots"].append(snapshot)
        self._added_snapshot_ids.add(snapshot_id)
        self.changed = True

    def _assign_row_lineage(self, snapshot: dict) -> None:
        """v3: the snapshot's first-row-id is the table's next-row-id (assigned when the client
        left it out); next-row-id then moves past every row id the snapshot can have assigned."""
        next_row_id = self.m["next-row-id"]
        if snapshot.get("first-row-id") is None:
            snapshot["first-row-id"] = next_row_id
        first_row_id = snapshot["first-row-id"]
        if not isinstance(first_row_id, int):
            raise BadRequestException(f"Invalid first-row-id: {first_row_id!r}")
        if first_row_id < next_row_id:
            raise CommitFailedException(
                "Cannot add a snapshot, first-row-id is behind table next-row-id: "
                f"{first_row_id} < {next_row_id}; retry with fresh metadata"
            )
        if snapshot.get("added-rows") is None:
            snapshot["added-rows"] = self._added_rows_for(snapshot)
        added_rows = snapshot["added-rows"]
        if not isinstance(added_rows, int) or added_rows < 0:
            raise BadRequestException(f"Invalid added-rows: {added_rows!r}")
        self.m["next-row-id"] = first_row_id + added_rows

    def _set_snapshot_ref(self, update: dict) -> None:
        name = _require(update, "ref-name", str, "set-snapshot-ref")
        snapshot_id = _require(update, "snapshot-id", int, "set-snapshot-ref")
        ref_type = update.get("type")
        if ref_type not in ("branch", "tag"):
            raise BadRequestException(f"Invalid ref type: {ref_type!r}")
        ref = {"snapshot-id": snapshot_id, "type": ref_type}
        for key in ("min-snapshots-to-keep", "max-snapshot-age-ms", "max-ref-age-ms"):
            value = update.get(key)
            if value is None:
                continue
            if not isinstance(value, int) or value <= 0:
                raise BadRequestException(f"Invalid {key}: {value!r} (must be positive)")
            if ref_type == "tag" and key != "max-ref-age-ms":
                raise BadRequestException(f"Tags do not support {key}")
            ref[key] = value
        if self.m["refs"].get(name) == ref:
            return
        snapshot = by_id(self.m["snapshots"], "snapshot-id").get(snapshot_id)
        if snapshot is None:
            raise BadRequestException(f"Cannot set {name} to unknown snapshot: {snapshot_id}")
        if name == MAIN:
            if ref_type != "branch":
                raise BadRequestException("Cannot set main to a tag, it must be a branch")
            self.m["current-snapshot-id"] = snapshot_id
            if self._last_updated_ms is None:
                self._last_updated_ms = self._now_ms()
            # a rollback to an existing snapshot is logged at the time of the change
            when = (
                snapshot["timestamp-ms"] if snapshot_id in self._added_snapshot_ids else self._last_updated_ms
            )
            self.m["snapshot-log"].append({"timestamp-ms": when, "snapshot-id": snapshot_id})
            self._main_set_to.append(snapshot_id)
        self.m["refs"][name] = ref
        self.changed = True

    def _remove_snapshot_ref(self, update: dict) -> None:
        self._remove_ref(_require(update, "ref-name", str, "remove-snapshot-ref"))

    def _remove_ref(self, name: str) -> None:
        if name == MAIN and self.m["current-snapshot-id"] is not None:
            self.m["current-snapshot-id"] = None
            self.changed = True
        if self.m["refs"].pop(name, None) is not None:
            self.changed = True

    def _remove_snapshots(self, update: dict) -> None:
        ids = set(_require(update, "snapshot-ids", list, "remove-snapshots"))
        kept = [s for s in self.m["snapshots"] if s["snapshot-id"] not in ids]
        if len(kept) == len(self.m["snapshots"]):
            return
        self.m["snapshots"] = kept
        self.m["statistics"] = [s for s in self.m["statistics"] if s.get("snapshot-id") not in ids]
        self.m["partition-statistics"] = [
            s for s in self.m["partition-statistics"] if s.get("snapshot-id") not in ids
        ]
        live = {s["snapshot-id"] for s in kept}
        for name in [n for n, ref in self.m["refs"].items() if ref["snapshot-id"] not in live]:
            self._remove_ref(name)
        self._removed_snapshots = True
        self.changed = True

    # -- location and properties ---------------------------------------------------------
    def _set_location(self, update: dict) -> None:
        location = self._check_location(_require(update, "location", str, "set-location"))
        if location != self.m["location"]:
            self.m["location"] = location
            self.changed = True

    def _set_properties(self, update: dict) -> None:
        updates = check_properties(_require(update, "updates", dict, "set-properties"))
        if updates:
            self.m["properties"].update(updates)
            self.changed = True

    def _remove_properties(self, update: dict) -> None:
        removals = _require(update, "removals", list, "remove-properties")
        if removals:
            for key in removals:
                self.m["properties"].pop(key, None)
            self.changed = True

    # -- statistics and encryption keys --------------------------------------------------
    def _set_statistics_in(self, list_key: str, statistics: object, action: str) -> None:
        if (
            not isinstance(statistics, dict)
            or not isinstance(statistics.get("snapshot-id"), int)
            or not isinstance(statistics.get("statistics-path"), str)
        ):
            raise BadRequestException(
                f"Invalid {action} update: statistics need snapshot-id and statistics-path"
            )
        others = [s for s in self.m[list_key] if s.get("snapshot-id") != statistics["snapshot-id"]]
        self.m[list_key] = others + [statistics]
        self.changed = True

    def _remove_statistics_in(self, list_key: str, update: dict, action: str) -> None:
        snapshot_id = _require(update, "snapshot-id", int, action)
        kept = [s for s in self.m[list_key] if s.get("snapshot-id") != snapshot_id]
        if len(kept) != len(self.m[list_key]):
            self.m[list_key] = kept
            self.changed = True

    def _set_statistics(self, update: dict) -> None:
        self._set_statistics_in("statistics", update.get("statistics"), "set-statistics")

    def _remove_statistics(self, update: dict) -> None:
        self._remove_statistics_in("statistics", update, "remove-statistics")

    def _set_partition_statistics(self, update: dict) -> None:
        self._set_statistics_in(
            "partition-statistics", update.get("partition-statistics"), "set-partition-statistics"
        )

    def _remove_partition_statistics(self, update: dict) -> None:
        self._remove_statistics_in("partition-statistics", update, "remove-partition-statistics")

    def _add_encryption_key(self, update: dict) -> None:
        key = _require(update, "encryption-key", dict, "add-encryption-key")
        if not isinstance(key.get("key-id"), str) or not isinstance(key.get("encrypted-key-metadata"), str):
            raise BadRequestException(
                "Invalid encryption key: key-id and encrypted-key-metadata are required"
            )
        if any(k["key-id"] == key["key-id"] for k in self.m["encryption-keys"]):
            return
        self.m["encryption-keys"].append(copy.deepcopy(key))
        self.changed = True

    def _remove_encryption_key(self, update: dict) -> None:
        key_id = _require(update, "key-id", str, "remove-encryption-key")
        kept = [k for k in self.m["encryption-keys"] if k["key-id"] != key_id]
        if len(kept) != len(self.m["encryption-keys"]):
            self.m["encryption-keys"] = kept
            self.changed = True

    # -- build ---------------------------------------------------------------------------
    def build(self) -> dict | None:
        """The new metadata (internal form), or None when the updates changed nothing."""
        if not self.changed:
            return None
        m = self.m
        schema = self._current_schema()
        if schema is None:
            raise BadRequestException("Invalid table metadata: the current schema does not exist")
        spec = by_id(m["partition-specs"], "spec-id").get(m["default-spec-id"])
        order = by_id(m["sort-orders"], "order-id").get(m["default-sort-order-id"])
        if spec is None or order is None:
            raise BadRequestException(
                "Invalid table metadata: a default partition spec and sort order are required"
            )
        partitioning.check_spec_against(spec, schema)
        partitioning.check_order_against(order, schema)
        if m["location"] is None:
            raise BadRequestException("Invalid table metadata: a location is required")
        m["last-updated-ms"] = self._last_updated_ms if self._last_updated_ms is not None else self._now_ms()
        if self._base_log is not None and self.base_location is not None:
            m["metadata-log"] = self._metadata_log()
        m["snapshot-log"] = self._snapshot_log()
        return m

    def _metadata_log(self) -> list[dict]:
        try:
            keep = max(
                1, int(self.m["properties"].get(_PREVIOUS_VERSIONS_MAX, _PREVIOUS_VERSIONS_MAX_DEFAULT))
            )
        except ValueError:
            keep = _PREVIOUS_VERSIONS_MAX_DEFAULT
        base_log, base_updated_ms = self._base_log  # type: ignore[misc]
        log = base_log[-(keep - 1) :] if keep > 1 else []
        return log + [{"timestamp-ms": base_updated_ms, "metadata-file": self.base_location}]

    def _snapshot_log(self) -> list[dict]:
        """Drop entries of snapshots added and superseded within this commit, and (after removals)
        everything before a removed snapshot so the history has no gaps (Java's updateSnapshotLog)."""
        current = self.m["current-snapshot-id"]
        intermediate = {
            sid for sid in self._main_set_to if sid in self._added_snapshot_ids and sid != current
        }
        log = self.m["snapshot-log"]
        if not intermediate and not self._removed_snapshots:
            return log
        live = {s["snapshot-id"] for s in self.m["snapshots"]}
        new_log: list[dict] = []
        for entry in log:
            if entry["snapshot-id"] in live:
                if entry["snapshot-id"] not in intermediate:
                    new_log.append(entry)
            elif self._removed_snapshots:
                new_log.clear()
        if current in live and (not new_log or new_log[-1]["snapshot-id"] != current):
            raise BadRequestException(
                "Cannot set invalid snapshot log: latest entry is not the current snapshot"
            )
        return new_log


_HANDLERS: dict[str, Callable[[TableMetadataBuilder, dict], None]] = {
    "assign-uuid": TableMetadataBuilder._assign_uuid,
    "upgrade-format-version": TableMetadataBuilder._upgrade_format_version,
    "add-schema": TableMetadataBuilder._add_schema,
    "set-current-schema": TableMetadataBuilder._set_current_schema,
    "remove-schemas": TableMetadataBuilder._remove_schemas,
    "add-spec": TableMetadataBuilder._add_spec,
    "set-default-spec": TableMetadataBuilder._set_default_spec,
    "remove-partition-specs": TableMetadataBuilder._remove_partition_specs,
    "add-sort-order": TableMetadataBuilder._add_sort_order,
    "set-default-sort-order": TableMetadataBuilder._set_default_sort_order,
    "add-snapshot": TableMetadataBuilder._add_snapshot,
    "set-snapshot-ref": TableMetadataBuilder._set_snapshot_ref,
    "remove-snapshot-ref": TableMetadataBuilder._remove_snapshot_ref,
    "remove-snapshots": TableMetadataBuilder._remove_snapshots,
    "set-location": TableMetadataBuilder._set_location,
    "set-properties": TableMetadataBuilder._set_properties,
    "remove-properties": TableMetadataBuilder._remove_properties,
    "set-statistics": TableMetadataBuilder._set_statistics,
    "remove-statistics": TableMetadataBuilder._remove_statistics,
    "set-partition-statistics": TableMetadataBuilder._set_partition_statistics,
    "remove-partition-statistics": TableMetadataBuilder._remove_partition_statistics,
    "add-encryption-key": TableMetadataBuilder._add_encryption_key,
    "remove-encryption-key": TableMetadataBuilder._remove_encryption_key,
}


def check_update_actions(updates: object) -> None:
    """Unknown actions are a 400 before anything is applied."""
    if not isinstance(updates, list):
        raise BadRequestException("Invalid commit: updates must be a list")
    for update in updates:
        action = update.get("action") if isinstance(update, dict) else update
        if not isinstance(action, str) or action not in _HANDLERS:
            raise BadRequestException(f"Unknown table update action: {action!r}")
