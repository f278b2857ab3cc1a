"""Partition specs and sort orders as JSON: validation against a schema, id reuse and equality."""

from __future__ import annotations

import re

from . import schemas
from .errors import BadRequestException, ValidationException
from .transform_types import unfit_reason

# Partition field ids start after this (Java's PartitionSpec.PARTITION_DATA_ID_START - 1).
UNPARTITIONED_LAST_ID = 999
UNSORTED_ORDER_ID = 0
_DIRECTIONS = ("asc", "desc")
_NULL_ORDERS = ("nulls-first", "nulls-last")


def transform_name(transform: object) -> str:
    if not isinstance(transform, str) or not transform.strip():
        raise BadRequestException(f"Invalid transform: {transform!r}")
    return re.sub(r"\s+", "", transform).lower()


def source_ids(field: dict) -> list[int]:
    """``source-ids`` (multi-argument transforms, v3) or the single ``source-id``."""
    ids = field.get("source-ids")
    if ids is None:
        ids = [field.get("source-id")]
    if (
        not isinstance(ids, list)
        or not ids
        or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids)
    ):
        raise BadRequestException(f"Invalid source id in {field!r}")
    return ids


def _check_sources(field: dict, schema: dict | None, what: str) -> None:
    transform = transform_name(field.get("transform"))
    if schema is None or transform == "void":
        return  # void fields may point at dropped columns (v1 specs keep them)
    ids = source_ids(field)
    for source_id in ids:
        type_name = schemas.primitive_type_of(schema, source_id)
        if type_name is None:
            raise BadRequestException(f"Cannot find primitive source column {source_id} for {what} {field!r}")
        reason = unfit_reason(transform, type_name) if len(ids) == 1 else None
        if reason:
            named = f" {field['name']!r}" if field.get("name") else ""
            raise ValidationException(
                f"Invalid source type {type_name} for transform: {transform} ({what}{named} on column "
                f"{_column_name(schema, source_id)!r}): {reason}")


def _column_name(schema: dict, field_id: int) -> str:
    return next((field["name"] for found, field, _ in schemas.walk(schema) if found == field_id and field),
                str(field_id))


def normalize_spec_fields(fields: object, schema: dict | None) -> list[dict]:
    """Validated copies of partition fields (``field-id`` kept when given)."""
    if not isinstance(fields, list):
        raise BadRequestException("Invalid partition spec: fields must be a list")
    out, names = [], set()
    for field in fields:
        if not isinstance(field, dict) or not isinstance(field.get("name"), str) or not field["name"]:
            raise BadRequestException(f"Invalid partition field: {field!r}")
        if field["name"] in names:
            raise BadRequestException(f"Invalid partition spec: duplicate field name {field['name']!r}")
        names.add(field["name"])
        _check_sources(field, schema, "partition field")
        clean = {key: value for key, value in field.items() if value is not None}
        clean["transform"] = transform_name(field["transform"])
        out.append(clean)
    return out


def assign_partition_field_ids(fields: list[dict], last_assigned: int) -> list[dict]:
    """Give fields without a ``field-id`` the next free ids after ``last_assigned``."""
    next_id = max([last_assigned, UNPARTITIONED_LAST_ID] + [f["field-id"] for f in fields if "field-id" in f])
    out = []
    for field in fields:
        if "field-id" not in field:
            next_id += 1
            field = {**field, "field-id": next_id}
        out.append(field)
    return out


def last_field_id(spec: dict) -> int:
    return max([UNPARTITIONED_LAST_ID] + [f["field-id"] for f in spec.get("fields", [])])


def has_sequential_ids(spec: dict) -> bool:
    """v1 specs must number their fields 1000, 1001, ... in order."""
    return all(
        f.get("field-id") == UNPARTITIONED_LAST_ID + 1 + i for i, f in enumerate(spec.get("fields", []))
    )


def compatible_specs(one: dict, two: dict) -> bool:
    """Same sources, transforms and names in the same order (Java's PartitionSpec.compatibleWith)."""
    a, b = one.get("fields", []), two.get("fields", [])
    return len(a) == len(b) and all(
        source_ids(x) == source_ids(y)
        and transform_name(x["transform"]) == transform_name(y["transform"])
        and x["name"] == y["name"]
        for x, y in zip(a, b)
    )


def check_spec_against(spec: dict, schema: dict) -> None:
    for field in spec.get("fields", []):
        _check_sources(field, schema, "partition field")


def normalize_sort_fields(fields: object, schema: dict | None) -> list[dict]:
    if not isinstance(fields, list):
        raise BadRequestException("Invalid sort order: fields must be a list")
    out = []
    for field in fields:
        if not isinstance(field, dict):
            raise BadRequestException(f"Invalid sort field: {field!r}")
        if field.get("direction") not in _DIRECTIONS or field.get("null-order") not in _NULL_ORDERS:
            raise BadRequestException(f"Invalid sort field direction or null order: {field!r}")
        _check_sources(field, schema, "sort field")
        clean = {key: value for key, value in field.items() if value is not None}
        clean["transform"] = transform_name(field.get("transform"))
        out.append(clean)
    return out


def same_order(one: dict, two: dict) -> bool:
    """Same sort fields, ignoring the order id (Java's SortOrder.sameOrder)."""

    def key(field: dict) -> tuple:
        return (
            tuple(source_ids(field)),
            transform_name(field["transform"]),
            field["direction"],
            field["null-order"],
        )

    a, b = one.get("fields", []), two.get("fields", [])
    return len(a) == len(b) and all(key(x) == key(y) for x, y in zip(a, b))


def check_order_against(order: dict, schema: dict) -> None:
    for field in order.get("fields", []):
        _check_sources(field, schema, "sort field")
