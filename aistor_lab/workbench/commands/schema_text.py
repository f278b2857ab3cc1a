"""Iceberg schemas and partition specs as users type them.

A schema is either the Iceberg JSON of the product documentation::

    {"type":"struct","fields":[{"id":1,"name":"id","type":"long","required":true}, ...]}

or a column list, one column per comma or line, types in Iceberg's (or SQL's) words::

    id long not null, name string, price decimal(10, 2), created timestamptz

Partition fields are transform expressions over column names: ``region``, ``day(created)``,
``bucket(16, id)``, ``truncate(4, name)``.
"""

from __future__ import annotations

import json
import re

PRIMITIVES = {
    "boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
    "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary",
}
SQL_SYNONYMS = {
    "bool": "boolean", "integer": "int", "bigint": "long", "real": "float", "varchar": "string",
    "text": "string", "bytes": "binary", "timestamp_ntz": "timestamp", "timestamp_ltz": "timestamptz",
}
_DECIMAL = re.compile(r"decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_FIXED = re.compile(r"fixed\s*[\[(]\s*(\d+)\s*[\])]")
_COLUMN = re.compile(r"(?P<name>`[^`]+`|\S+)\s+(?P<type>.+?)(?P<required>\s+not\s+null)?", re.IGNORECASE)
_TRANSFORM = re.compile(r"(?P<fn>\w+)\s*\(\s*(?:(?P<arg>\d+)\s*,\s*)?(?P<col>[^()\s,]+)\s*\)")
_TIME_TRANSFORMS = {"year", "month", "day", "hour"}
# Spark's names for partition fields: id_bucket, name_trunc, created_day.
_FIELD_SUFFIX = {"bucket": "bucket", "truncate": "trunc", "void": "null"}


class SchemaTextError(ValueError):
    """The text is not a schema or partition expression; the message says what is wrong."""


def _split_top_level(text: str) -> list[str]:
    """Split on commas and newlines that are not inside parentheses (``decimal(10, 2)``)."""
    parts, depth, current = [], 0, []
    for char in text:
        depth += char == "("
        depth -= char == ")"
        if char in ",\n" and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip() and not p.strip().startswith("#")]


def _column_type(text: str) -> str:
    lowered = " ".join(text.lower().split())
    lowered = SQL_SYNONYMS.get(lowered, lowered)
    if lowered in PRIMITIVES:
        return lowered
    if match := _DECIMAL.fullmatch(lowered):
        return f"decimal({match[1]}, {match[2]})"
    if match := _FIXED.fullmatch(lowered):
        return f"fixed[{match[1]}]"
    raise SchemaTextError(
        f"unknown column type {text!r}: use one of {', '.join(sorted(PRIMITIVES))}, decimal(P, S), fixed[N] "
        "(nested types: give the schema as Iceberg JSON)"
    )


def parse_columns(text: str) -> dict:
    """``id long not null, name string`` -> an Iceberg struct schema with ids 1, 2, ..."""
    fields = []
    for i, column in enumerate(_split_top_level(text), start=1):
        match = _COLUMN.fullmatch(column)
        if not match:
            raise SchemaTextError(f"bad column {column!r}: expected NAME TYPE [NOT NULL]")
        fields.append({
            "id": i,
            "name": match["name"].strip("`"),
            "type": _column_type(match["type"]),
            "required": bool(match["required"]),
        })
    if not fields:
        raise SchemaTextError("the schema has no columns")
    return {"type": "struct", "schema-id": 0, "fields": fields}


def parse_schema(text: str) -> dict:
    """A schema from Iceberg JSON (an object starting with ``{``) or a column list."""
    if text.lstrip().startswith("{"):
        try:
            schema = json.loads(text)
        except ValueError as exc:
            raise SchemaTextError(f"the schema is not valid JSON: {exc}") from None
        if not isinstance(schema, dict) or schema.get("type") != "struct" or not isinstance(schema.get("fields"), list):
            raise SchemaTextError('the schema must be an Iceberg struct: {"type": "struct", "fields": [...]}')
        return schema
    return parse_columns(text)


def _field_id(schema: dict, column: str) -> int:
    for field in schema.get("fields", []):
        if field.get("name") == column:
            return field["id"]
    raise SchemaTextError(f"partition column {column!r} is not in the schema")


def parse_partition(expressions: list[str], schema: dict) -> dict:
    """``["region", "day(created)", "bucket(16, id)"]`` -> an Iceberg partition spec over ``schema``."""
    fields = []
    for expression in expressions:
        text = expression.strip()
        match = _TRANSFORM.fullmatch(text)
        if match is None:
            fn, arg, column = "identity", None, text
        else:
            fn, arg, column = match["fn"].lower(), match["arg"], match["col"]
        if fn in ("bucket", "truncate"):
            if arg is None:
                raise SchemaTextError(f"{fn} needs a width: {fn}(N, column), got {expression!r}")
            transform = f"{fn}[{arg}]"
        elif fn in _TIME_TRANSFORMS | {"identity", "void"} and arg is None:
            transform = fn
        else:
            raise SchemaTextError(
                f"bad partition field {expression!r}: use COLUMN, year|month|day|hour(COLUMN), "
                "bucket(N, COLUMN), truncate(W, COLUMN) or void(COLUMN)"
            )
        suffix = "" if fn == "identity" else "_" + _FIELD_SUFFIX.get(fn, fn)
        fields.append({
            "source-id": _field_id(schema, column),
            "field-id": 1000 + len(fields),
            "name": column + suffix,
            "transform": transform,
        })
    return {"spec-id": 0, "fields": fields}


def parse_properties(pairs: list[str]) -> dict[str, str]:
    """``["k=v", ...]`` -> ``{"k": "v", ...}``."""
    properties = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SchemaTextError(f"bad property {pair!r}: expected KEY=VALUE")
        properties[key.strip()] = value.strip()
    return properties
