"""Iceberg schemas as JSON: validation, field-id bookkeeping, fresh ids and equality.

Mirrors the Java reference (TypeUtil.assignFreshIds, Schema.sameSchema, Schema.checkCompatibility)
on the JSON form, so the catalog never needs a typed model of every schema.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterator

from .errors import BadRequestException

_PRIMITIVE_RE = re.compile(
    r"^(boolean|int|long|float|double|date|time|timestamp|timestamptz|timestamp_ns|timestamptz_ns|string|uuid"
    r"|binary|variant|unknown|decimal\(\s*\d+\s*,\s*\d+\s*\)|fixed\[\s*\d+\s*\]"
    r"|geometry(\(.*\))?|geography(\(.*\))?)$"
)
_V3_TYPE_RE = re.compile(r"^(variant|unknown|timestamp_ns|timestamptz_ns|geometry|geography)")


def _children(type_: object) -> Iterator[tuple[int, dict | None, object]]:
    """(id, struct field or None, type) of the direct children of a nested type."""
    if not isinstance(type_, dict):
        return
    kind = type_.get("type")
    if kind == "struct":
        for field in type_.get("fields", []):
            yield field.get("id"), field, field.get("type")
    elif kind == "list":
        yield type_.get("element-id"), None, type_.get("element")
    elif kind == "map":
        yield type_.get("key-id"), None, type_.get("key")
        yield type_.get("value-id"), None, type_.get("value")


def walk(type_: object) -> Iterator[tuple[int, dict | None, object]]:
    """Every (id, struct field or None, type) in a schema or type, depth first."""
    for child in _children(type_):
        yield child
        yield from walk(child[2])


def field_ids(schema: dict) -> list[int]:
    return [field_id for field_id, _, _ in walk(schema)]


def highest_field_id(schema: dict) -> int:
    return max(field_ids(schema), default=0)


def primitive_type_of(schema: dict, field_id: int) -> str | None:
    """The primitive type name of a field, None when absent or nested."""
    for found_id, _, type_ in walk(schema):
        if found_id == field_id:
            return type_ if isinstance(type_, str) else None
    return None


def check_schema(schema: object, format_version: int) -> dict:
    """Validate the JSON form of a schema; raises BadRequestException."""
    if (
        not isinstance(schema, dict)
        or schema.get("type", "struct") != "struct"
        or not isinstance(schema.get("fields"), list)
    ):
        raise BadRequestException("Invalid schema: must be a struct with a list of fields")
    _check_type({**schema, "type": "struct"}, format_version)
    ids = field_ids(schema)
    duplicates = {i for i, count in Counter(ids).items() if count > 1}
    if duplicates:
        raise BadRequestException(f"Invalid schema: duplicate field ids {sorted(duplicates)}")
    identifiers = schema.get("identifier-field-ids") or []
    if not isinstance(identifiers, list):
        raise BadRequestException("Invalid schema: identifier-field-ids must be a list of field ids")
    for field_id in identifiers:
        if field_id not in ids:
            raise BadRequestException(f"Invalid schema: identifier field {field_id} does not exist")
    return schema


def _check_type(type_: object, format_version: int) -> None:
    if isinstance(type_, str):
        if not _PRIMITIVE_RE.match(type_.strip()):
            raise BadRequestException(f"Invalid schema: unknown type {type_!r}")
        if format_version < 3 and _V3_TYPE_RE.match(type_.strip()):
            raise BadRequestException(f"Invalid schema: type {type_} requires format version 3")
        return
    if not isinstance(type_, dict) or type_.get("type") not in ("struct", "list", "map"):
        raise BadRequestException(f"Invalid schema: unknown type {type_!r}")
    if type_["type"] == "struct":
        if not isinstance(type_.get("fields"), list):
            raise BadRequestException("Invalid schema: the fields of a struct must be a list")
        for field in type_["fields"]:
            _check_field(field, format_version)
    elif type_["type"] == "list":
        _check_ints(type_, "element-id")
        _check_type(type_.get("element"), format_version)
    else:
        _check_ints(type_, "key-id", "value-id")
        _check_type(type_.get("key"), format_version)
        _check_type(type_.get("value"), format_version)


def _check_field(field: object, format_version: int) -> None:
    if not isinstance(field, dict) or not isinstance(field.get("name"), str) or not field["name"]:
        raise BadRequestException(f"Invalid schema field: {field!r}")
    _check_ints(field, "id")
    if not isinstance(field.get("required"), bool):
        raise BadRequestException(f"Invalid schema field {field['name']!r}: 'required' must be a boolean")
    for default in ("initial-default", "write-default"):
        if format_version < 3 and field.get(default) is not None:
            raise BadRequestException(
                f"Invalid schema field {field['name']!r}: {default} requires format version 3"
            )
    _check_type(field.get("type"), format_version)


def _check_ints(obj: dict, *keys: str) -> None:
    for key in keys:
        if not isinstance(obj.get(key), int) or isinstance(obj.get(key), bool):
            raise BadRequestException(f"Invalid schema: {key} must be an integer in {obj!r}")


def assign_fresh_ids(schema: dict, schema_id: int = 0) -> tuple[dict, dict[int, int], int]:
    """Renumber every field from 1 the way Java's TypeUtil.assignFreshIds does (a struct's own
    fields first, then their children; list element and map key/value ids before recursing).
    Returns (fresh schema, old id -> new id, last column id)."""
    counter = itertools.count(1)
    id_map: dict[int, int] = {}

    def next_id(old: int) -> int:
        new = next(counter)
        id_map[old] = new
        return new

    fresh = _refresh({**schema, "type": "struct"}, next_id)
    fresh["schema-id"] = schema_id
    identifiers = schema.get("identifier-field-ids") or []
    fresh["identifier-field-ids"] = [id_map[i] for i in identifiers]
    return fresh, id_map, len(id_map)


def _refresh(type_: object, next_id: Callable[[int], int]) -> object:
    if not isinstance(type_, dict):
        return type_
    out = copy.copy(type_)
    if type_["type"] == "struct":
        new_ids = [next_id(field["id"]) for field in type_["fields"]]
        out["fields"] = [
            {**field, "id": new_id, "type": _refresh(field["type"], next_id)}
            for field, new_id in zip(type_["fields"], new_ids)
        ]
    elif type_["type"] == "list":
        out["element-id"] = next_id(type_["element-id"])
        out["element"] = _refresh(type_["element"], next_id)
    else:
        out["key-id"] = next_id(type_["key-id"])
        out["value-id"] = next_id(type_["value-id"])
        out["key"] = _refresh(type_["key"], next_id)
        out["value"] = _refresh(type_["value"], next_id)
    return out


def _comparable(type_: object) -> object:
    if isinstance(type_, str):
        return re.sub(r"\s+", "", type_)
    if isinstance(type_, list):
        return [_comparable(item) for item in type_]
    if isinstance(type_, dict):
        return {
            key: _comparable(value)
            for key, value in type_.items()
            if value is not None and key != "schema-id"
        }
    return type_


def same_schema(one: dict, two: dict) -> bool:
    """Equal fields and identifier fields, ignoring schema ids (Java's Schema.sameSchema)."""
    return _comparable(one.get("fields")) == _comparable(two.get("fields")) and sorted(
        one.get("identifier-field-ids") or []
    ) == sorted(two.get("identifier-field-ids") or [])
