"""Table and view metadata files the catalog did not write: the file a client registers. Any writer of the
warehouse may have put anything there, so it is read as strictly as a request body (common/json_input.py)
and checked in every part the catalog relies on when it later loads or commits the table; what does
not hold is a BadRequestException, never a failure of the catalog itself."""

from __future__ import annotations

from ..common import json_input
from . import bodies, partitioning, schemas
from .errors import BadRequestException
from .table_metadata import by_id, check_properties, normalize, referenced_snapshots, serialize
from .view_metadata import normalize_view, serialize_view

_SNAPSHOTS = bodies.list_of(bodies.SNAPSHOT)
_REFS = bodies.map_of(bodies.obj({"snapshot-id": bodies.INTEGER, "type": bodies.STRING}))
_VIEW_VERSIONS = bodies.list_of(bodies.VIEW_VERSION)
# View schemas may use every type the newest table format allows (as view_metadata.py checks them).
_VIEW_SCHEMA_TYPES_VERSION = 3
_CURRENT = (
    ("schemas", "schema-id", "current-schema-id"),
    ("partition-specs", "spec-id", "default-spec-id"),
    ("sort-orders", "order-id", "default-sort-order-id"),
)


def _parse_object(data: bytes, location: str) -> dict:
    try:
        raw = json_input.parse(data)
    except json_input.JSONInputError as exc:
        raise BadRequestException(f"Not a JSON metadata file: {location}: {exc.message}") from None
    if not isinstance(raw, dict):
        raise BadRequestException(f"Not a JSON metadata file: {location}")
    return raw


def parse_foreign_view(data: bytes, location: str) -> dict:
    """The internal form (view_metadata.normalize_view) of a view metadata file's bytes, checked in
    every part a load or a replace of the view reads."""
    view = normalize_view(_parse_object(data, location))
    try:
        if not isinstance(view["location"], str) or not isinstance(view["view-uuid"], str):
            raise BadRequestException(f"Invalid view metadata file {location}: location and view-uuid are strings")
        for schema in view["schemas"]:
            schemas.check_schema(schema, _VIEW_SCHEMA_TYPES_VERSION)
        _VIEW_VERSIONS(view["versions"], "versions")
        check_properties(view["properties"])
        versions = by_id(view["versions"], "version-id")
        current = versions.get(view["current-version-id"])
        if current is None:
            raise BadRequestException(f"Invalid view metadata file {location}: current-version-id is not in versions")
        if current["schema-id"] not in by_id(view["schemas"], "schema-id"):
            raise BadRequestException(f"Invalid view metadata file {location}: the current version's schema is missing")
        serialize_view(view)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise BadRequestException(f"Invalid view metadata file {location}: {type(exc).__name__} {exc}") from None
    return view


def parse_foreign_metadata(data: bytes, location: str) -> dict:
    """The internal form (table_metadata.normalize) of a metadata file's bytes."""
    raw = _parse_object(data, location)
    try:
        metadata = normalize(raw)
        for schema in metadata["schemas"]:
            schemas.check_schema(schema, metadata["format-version"])
        fields = [
            *(field for spec in metadata["partition-specs"]
              for field in partitioning.normalize_spec_fields(spec.get("fields"), None)),
            *(field for order in metadata["sort-orders"]
              for field in partitioning.normalize_sort_fields(order.get("fields"), None)),
        ]
        for field in fields:
            partitioning.source_ids(field)
        for items, id_key, current in _CURRENT:
            if metadata[current] not in by_id(metadata[items], id_key):
                raise BadRequestException(f"Invalid table metadata file {location}: {current} is not in {items}")
        _SNAPSHOTS(metadata["snapshots"], "snapshots")
        _REFS(metadata["refs"], "refs")
        # What loads do with it: every id the file names must resolve.
        serialize(metadata, snapshots=referenced_snapshots(metadata))
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        # A part of the wrong shape that the checks above do not name, met where it is first used.
        raise BadRequestException(f"Invalid table metadata file {location}: {type(exc).__name__} {exc}") from None
    return metadata
