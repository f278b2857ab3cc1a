"""What the explorer shows of an Iceberg table besides its rows, computed from the table's metadata
(the catalog's JSON) alone: the overview (size, counts, partitioning, sort order), every schema with
the changes from one to the next, and the branches and tags."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..commands.actions import current_partition_spec


def _current_snapshot(metadata: dict) -> dict | None:
    current = metadata.get("current-snapshot-id")
    return next((s for s in metadata.get("snapshots") or [] if s.get("snapshot-id") == current), None)


def _count(summary: dict, key: str) -> int | None:
    value = summary.get(key)
    return None if value is None else int(value)


def _default_sort_order(metadata: dict) -> dict | None:
    order_id = metadata.get("default-sort-order-id")
    return next((o for o in metadata.get("sort-orders") or [] if o.get("order-id") == order_id), None)


def table_overview(loaded: dict) -> dict:
    """Location, format, sizes and counts (from the current snapshot's summary: null when it does not
    say; zero for a table without snapshots), partitioning, sort order and last update."""
    metadata = loaded["metadata"]
    snapshot = _current_snapshot(metadata)
    summary = (snapshot or {}).get("summary") or {}

    def count(key: str) -> int | None:
        return 0 if snapshot is None else _count(summary, key)

    return {
        "format": "iceberg",
        "location": metadata.get("location"),
        "formatVersion": metadata.get("format-version"),
        "totalSizeBytes": count("total-files-size"),
        "fileCount": count("total-data-files"),
        "rowCount": count("total-records"),
        "deleteFileCount": count("total-delete-files"),
        "partitionSpec": current_partition_spec(metadata),
        "sortOrder": _default_sort_order(metadata),
        "lastUpdated": metadata.get("last-updated-ms"),
    }


def _fields(struct: dict, prefix: str = "") -> Iterator[tuple[int, str, dict]]:
    """Every field of a schema, nested ones too, as (field id, dotted path, field)."""
    for field in struct.get("fields") or []:
        path = f"{prefix}{field['name']}"
        yield field["id"], path, field
        yield from _nested(field.get("type"), path)


def _nested(field_type: Any, path: str) -> Iterator[tuple[int, str, dict]]:
    if not isinstance(field_type, dict):
        return
    kind = field_type.get("type")
    if kind == "struct":
        yield from _fields(field_type, f"{path}.")
    elif kind == "list":
        element = {"name": "element", "type": field_type["element"], "required": field_type.get("element-required")}
        yield field_type["element-id"], f"{path}.element", element
        yield from _nested(field_type["element"], f"{path}.element")
    elif kind == "map":
        for part in ("key", "value"):
            entry = {"name": part, "type": field_type[part],
                     "required": True if part == "key" else field_type.get("value-required")}
            yield field_type[f"{part}-id"], f"{path}.{part}", entry
            yield from _nested(field_type[part], f"{path}.{part}")


def _type_text(field_type: Any) -> str:
    return field_type if isinstance(field_type, str) else str(field_type.get("type"))


def schema_changes(before: dict, after: dict) -> list[dict]:
    """What changed from one schema to the next, field by field (matched by field id)."""
    old = {field_id: (path, field) for field_id, path, field in _fields(before)}
    new = {field_id: (path, field) for field_id, path, field in _fields(after)}
    changes: list[dict] = []
    for field_id, (path, field) in new.items():
        if field_id not in old:
            changes.append({"change": "added", "fieldId": field_id, "path": path, "to": _type_text(field["type"])})
            continue
        old_path, old_field = old[field_id]
        if old_field["name"] != field["name"]:
            changes.append({"change": "renamed", "fieldId": field_id, "path": path, "from": old_path, "to": path})
        old_type, new_type = old_field["type"], field["type"]
        if isinstance(old_type, str) and isinstance(new_type, str) and old_type != new_type:
            changes.append({"change": "type", "fieldId": field_id, "path": path, "from": old_type, "to": new_type})
        if bool(old_field.get("required")) != bool(field.get("required")):
            changes.append({"change": "required" if field.get("required") else "optional", "fieldId": field_id,
                            "path": path})
        if old_field.get("doc") != field.get("doc"):
            changes.append({"change": "doc", "fieldId": field_id, "path": path, "from": old_field.get("doc"),
                            "to": field.get("doc")})
    changes.extend({"change": "removed", "fieldId": field_id, "path": path, "from": _type_text(field["type"])}
                   for field_id, (path, field) in old.items() if field_id not in new)
    return changes


def schema_history(metadata: dict) -> list[dict]:
    """Each schema with its changes from the one before (oldest first; the first lists its fields as added)."""
    schemas = sorted(metadata.get("schemas") or [], key=lambda schema: schema["schema-id"])
    history, previous = [], {"fields": []}
    for schema in schemas:
        history.append({"schemaId": schema["schema-id"], "changes": schema_changes(previous, schema)})
        previous = schema
    return history


def table_refs(metadata: dict) -> dict:
    """Branches and tags, their snapshot ids as text (``main`` is implied by a current snapshot)."""
    refs = dict(metadata.get("refs") or {})
    if "main" not in refs and metadata.get("current-snapshot-id") is not None:
        refs["main"] = {"type": "branch", "snapshot-id": metadata["current-snapshot-id"]}
    return {name: {"type": ref.get("type"), "snapshotId": str(ref["snapshot-id"])} for name, ref in sorted(refs.items())}


def explorer_details(loaded: dict) -> dict:
    """What the table details add for the explorer: overview, schemas, schema history and refs."""
    metadata = loaded["metadata"]
    return {
        "overview": table_overview(loaded),
        "schemas": metadata.get("schemas") or [],
        "currentSchemaId": metadata.get("current-schema-id"),
        "schemaHistory": schema_history(metadata),
        "refs": table_refs(metadata),
    }
