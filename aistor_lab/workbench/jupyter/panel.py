"""What the side panel shows, built from client calls: one level of the catalog tree, and a table's
details. No HTTP here: handlers.py answers these as JSON."""

from __future__ import annotations

from typing import Any

from ..client import AIStorClient
from ..commands.actions import current_partition_spec, current_schema
from ..explore.overview import explorer_details


def namespace_children(client: AIStorClient, warehouse: str, parent: str | None) -> dict:
    """One level of the panel's tree, loaded when the user opens a warehouse (no ``parent``) or a
    namespace: its namespaces (as level lists), and a namespace's tables and views."""
    children: dict[str, list] = {"namespaces": client.list_namespaces(warehouse, parent), "tables": [], "views": []}
    if parent:
        children["tables"] = client.list_tables(warehouse, parent)
        children["views"] = client.list_views(warehouse, parent)
    return children


# JavaScript numbers hold integers exactly up to 2**53; Iceberg's snapshot ids and long columns go
# beyond, so the panel gets those as text rather than rounded.
_JS_SAFE_INTEGER = 2**53 - 1


def _exact_in_javascript(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _JS_SAFE_INTEGER:
        return str(value)
    if isinstance(value, dict):
        return {key: _exact_in_javascript(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_exact_in_javascript(item) for item in value]
    return value


def _snapshot_entry(snapshot: dict) -> dict:
    """A snapshot with its ids as text, its operation and its schema id at hand."""
    ids = {key: str(snapshot[key]) for key in ("snapshot-id", "parent-snapshot-id") if key in snapshot}
    return {**snapshot, **ids, "operation": (snapshot.get("summary") or {}).get("operation"),
            "schemaId": snapshot.get("schema-id")}


def table_details(client: AIStorClient, warehouse: str, namespace: str, table: str, preview_rows: int) -> dict:
    """What the panel shows of a table: schema, partition spec, properties, snapshots (their ids as
    text), the explorer's overview, schema history and refs, first rows (integers beyond JavaScript's
    exact range as text). One catalog call: all of it comes from one load of the table (the rows from its data files, through S3)."""
    loaded = client.load_table(warehouse, namespace, table)
    metadata = loaded["metadata"]
    current = metadata.get("current-snapshot-id")
    details = {
        "warehouse": warehouse,
        "namespace": namespace,
        "table": table,
        "location": metadata.get("location"),
        "metadataLocation": loaded.get("metadata-location"),
        "formatVersion": metadata.get("format-version"),
        "schema": current_schema(metadata),
        "partitionSpec": current_partition_spec(metadata),
        "properties": metadata.get("properties", {}),
        "currentSnapshotId": None if current is None else str(current),
        "snapshots": [_snapshot_entry(snapshot) for snapshot in metadata.get("snapshots", [])],
        "preview": None,
        **explorer_details(loaded),
    }
    if preview_rows > 0:
        rows = client.first_rows(table, loaded, preview_rows)
        details["preview"] = {"columns": rows.column_names, "rows": _exact_in_javascript(rows.to_pylist())}
    return details
