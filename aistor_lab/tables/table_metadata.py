"""Table metadata JSON (format versions 1-3): reading any valid file into one internal form,
writing it back in the Java reference's field order, and creating a new table's first metadata
(TableMetadata.newTableMetadata: fresh column ids, spec id 0, sort order id 1 or 0)."""

from __future__ import annotations

import uuid as uuidlib

from . import partitioning, schemas
from .errors import BadRequestException

SUPPORTED_FORMAT_VERSIONS = (1, 2, 3)
DEFAULT_FORMAT_VERSION = 2
ROW_LINEAGE_FORMAT_VERSION = 3
# Properties that describe the metadata itself; never stored as table properties at creation.
RESERVED_PROPERTIES = frozenset(
    {
        "format-version",
        "uuid",
        "snapshot-count",
        "current-snapshot-id",
        "current-snapshot-summary",
        "current-snapshot-timestamp-ms",
        "current-schema",
        "default-partition-spec",
        "default-sort-order",
    }
)
# Set on every new table, as the Java reference does since 1.4.
NEW_TABLE_DEFAULTS = {"write.parquet.compression-codec": "zstd"}


def check_format_version(version: object) -> int:
    if isinstance(version, str) and version.isdigit():
        version = int(version)
    if version not in SUPPORTED_FORMAT_VERSIONS:
        raise BadRequestException(f"Unsupported format version: {version!r} (supported: 1, 2, 3)")
    return version  # type: ignore[return-value]


def check_properties(properties: object) -> dict[str, str]:
    if properties is None:
        return {}
    if not isinstance(properties, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in properties.items()
    ):
        raise BadRequestException("Invalid properties: must be a map of strings to strings")
    return dict(properties)


def by_id(items: list[dict], id_key: str) -> dict[int, dict]:
    return {item[id_key]: item for item in items}


def normalize(raw: dict) -> dict:
    """Any valid v1-v3 metadata file -> the internal form (every list and map present)."""
    m = dict(raw)
    version = m["format-version"] = check_format_version(m.get("format-version"))
    if not m.get("table-uuid"):
        if version > 1:
            raise BadRequestException("Invalid table metadata: table-uuid is required")
        m["table-uuid"] = str(uuidlib.uuid4())
    if not isinstance(m.get("location"), str):
        raise BadRequestException("Invalid table metadata: location is required")
    if "schemas" not in m:
        if not isinstance(m.get("schema"), dict):
            raise BadRequestException("Invalid table metadata: schemas are required")
        m["schemas"] = [{"schema-id": 0, **m["schema"]}]
        m.setdefault("current-schema-id", m["schemas"][0]["schema-id"])
    if "partition-specs" not in m:
        m["partition-specs"] = [{"spec-id": 0, "fields": m.get("partition-spec", [])}]
        m.setdefault("default-spec-id", 0)
    if "last-partition-id" not in m:
        m["last-partition-id"] = max(partitioning.last_field_id(s) for s in m["partition-specs"])
    if "sort-orders" not in m:
        m["sort-orders"] = [{"order-id": partitioning.UNSORTED_ORDER_ID, "fields": []}]
        m.setdefault("default-sort-order-id", partitioning.UNSORTED_ORDER_ID)
    m.pop("schema", None)
    m.pop("partition-spec", None)
    m.setdefault("last-column-id", max(schemas.highest_field_id(s) for s in m["schemas"]))
    m.setdefault("last-sequence-number", 0)
    m.setdefault("last-updated-ms", 0)
    m["properties"] = dict(m.get("properties") or {})
    current = m.get("current-snapshot-id")
    m["current-snapshot-id"] = None if current in (None, -1) else current
    for key in (
        "snapshots",
        "snapshot-log",
        "metadata-log",
        "statistics",
        "partition-statistics",
        "encryption-keys",
    ):
        m[key] = list(m.get(key) or [])
    if m.get("refs") is None:
        current = m["current-snapshot-id"]
        m["refs"] = {} if current is None else {"main": {"snapshot-id": current, "type": "branch"}}
    if version >= ROW_LINEAGE_FORMAT_VERSION:
        m.setdefault("next-row-id", 0)
    for field in ("current-schema-id", "default-spec-id", "default-sort-order-id", "last-column-id"):
        if not isinstance(m.get(field), int):
            raise BadRequestException(f"Invalid table metadata: {field} must be an integer")
    return m


def serialize(m: dict, *, snapshots: list[dict] | None = None) -> dict:
    """The metadata file / REST ``metadata`` object, in TableMetadataParser's order."""
    version = m["format-version"]
    out: dict = {"format-version": version, "table-uuid": m["table-uuid"], "location": m["location"]}
    if version > 1:
        out["last-sequence-number"] = m["last-sequence-number"]
    out["last-updated-ms"] = m["last-updated-ms"]
    out["last-column-id"] = m["last-column-id"]
    current_schema = by_id(m["schemas"], "schema-id")[m["current-schema-id"]]
    if version == 1:
        out["schema"] = current_schema
    out["current-schema-id"] = m["current-schema-id"]
    out["schemas"] = m["schemas"]
    if version == 1:
        out["partition-spec"] = by_id(m["partition-specs"], "spec-id")[m["default-spec-id"]]["fields"]
    out["default-spec-id"] = m["default-spec-id"]
    out["partition-specs"] = m["partition-specs"]
    out["last-partition-id"] = m["last-partition-id"]
    out["default-sort-order-id"] = m["default-sort-order-id"]
    out["sort-orders"] = m["sort-orders"]
    out["properties"] = m["properties"]
    current = m["current-snapshot-id"]
    out["current-snapshot-id"] = current if current is not None else (None if version >= 3 else -1)
    if version >= ROW_LINEAGE_FORMAT_VERSION:
        out["next-row-id"] = m["next-row-id"]
    if m["encryption-keys"]:
        out["encryption-keys"] = m["encryption-keys"]
    out["refs"] = m["refs"]
    out["snapshots"] = m["snapshots"] if snapshots is None else snapshots
    out["statistics"] = m["statistics"]
    out["partition-statistics"] = m["partition-statistics"]
    out["snapshot-log"] = m["snapshot-log"]
    out["metadata-log"] = m["metadata-log"]
    return out


def referenced_snapshots(m: dict) -> list[dict]:
    """Only the snapshots a branch or tag points at (``snapshots=refs`` loads)."""
    ids = {ref["snapshot-id"] for ref in m["refs"].values()}
    return [s for s in m["snapshots"] if s["snapshot-id"] in ids]


def new_table_metadata(request: dict, location: str, table_uuid: str, now_ms: int) -> dict:
    """The first metadata of a table from a CreateTableRequest, with every id assigned afresh."""
    properties = check_properties(request.get("properties"))
    version = check_format_version(properties.get("format-version", DEFAULT_FORMAT_VERSION))
    schema = schemas.check_schema(request.get("schema"), version)
    fresh_schema, id_map, last_column_id = schemas.assign_fresh_ids(schema)

    def remap(field: dict, what: str) -> dict:
        field = dict(field)
        try:
            if "source-ids" in field:
                field["source-ids"] = [id_map[i] for i in partitioning.source_ids(field)]
            else:
                field["source-id"] = id_map[partitioning.source_ids(field)[0]]
        except KeyError as exc:
            raise BadRequestException(f"Cannot find source column {exc.args[0]} of {what} {field!r}") from exc
        return field

    spec = request.get("partition-spec") or {"fields": []}
    spec_fields = [
        remap(f, "partition field") for f in partitioning.normalize_spec_fields(spec.get("fields"), None)
    ]
    spec_fields = [
        {
            **{k: v for k, v in f.items() if k != "field-id"},
            "field-id": partitioning.UNPARTITIONED_LAST_ID + 1 + i,
        }
        for i, f in enumerate(spec_fields)
    ]
    fresh_spec = {"spec-id": 0, "fields": spec_fields}
    partitioning.check_spec_against(fresh_spec, fresh_schema)

    order = request.get("write-order") or {"fields": []}
    order_fields = [
        remap(f, "sort field") for f in partitioning.normalize_sort_fields(order.get("fields"), None)
    ]
    order_id = 1 if order_fields else partitioning.UNSORTED_ORDER_ID
    fresh_order = {"order-id": order_id, "fields": order_fields}
    partitioning.check_order_against(fresh_order, fresh_schema)

    stored = dict(NEW_TABLE_DEFAULTS)
    stored.update({k: v for k, v in properties.items() if k not in RESERVED_PROPERTIES})
    m = {
        "format-version": version,
        "table-uuid": table_uuid,
        "location": location,
        "last-sequence-number": 0,
        "last-updated-ms": now_ms,
        "last-column-id": last_column_id,
        "current-schema-id": 0,
        "schemas": [fresh_schema],
        "default-spec-id": 0,
        "partition-specs": [fresh_spec],
        "last-partition-id": partitioning.last_field_id(fresh_spec),
        "default-sort-order-id": order_id,
        "sort-orders": [fresh_order],
        "properties": stored,
        "current-snapshot-id": None,
        "refs": {},
        "snapshots": [],
        "statistics": [],
        "partition-statistics": [],
        "snapshot-log": [],
        "metadata-log": [],
        "encryption-keys": [],
    }
    if version >= ROW_LINEAGE_FORMAT_VERSION:
        m["next-row-id"] = 0
    return m
