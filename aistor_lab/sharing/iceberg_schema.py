"""Iceberg schemas as Delta schemas (delta-io/delta PROTOCOL.md, "Schema Serialization Format").

Types map as Spark's Iceberg and Delta integrations agree: timestamp (without zone) is Delta's
``timestamp_ntz`` and timestamptz is ``timestamp`` (the nanosecond variants of v3 map alike: Delta has
one precision); uuid and fixed(L) are ``binary``, which is what their Parquet columns hold (fixed-length
byte arrays). Iceberg ``time`` and the v3 types unknown, geometry and geography have no Delta type: a
table using them is refused. A field's nullability is the negation of ``required``; its doc becomes the
``comment`` Spark keeps in column metadata.
"""

from __future__ import annotations

from pyiceberg.schema import Schema
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
    UUIDType,
)

from .errors import UnsupportedOperation

TIMESTAMP_NTZ = "timestamp_ntz"
_PRIMITIVES: dict[type, str] = {
    BooleanType: "boolean",
    IntegerType: "integer",
    LongType: "long",
    FloatType: "float",
    DoubleType: "double",
    DateType: "date",
    TimestampType: TIMESTAMP_NTZ,
    TimestampNanoType: TIMESTAMP_NTZ,
    TimestamptzType: "timestamp",
    TimestamptzNanoType: "timestamp",
    StringType: "string",
    BinaryType: "binary",
    UUIDType: "binary",
    FixedType: "binary",
}


def parse_schema(schema_json: dict) -> Schema:
    """An Iceberg schema from table metadata JSON."""
    return Schema.model_validate(schema_json)


def delta_type(iceberg_type: IcebergType) -> str | dict:
    if isinstance(iceberg_type, StructType):
        return {"type": "struct", "fields": [_delta_field(f) for f in iceberg_type.fields]}
    if isinstance(iceberg_type, ListType):
        return {
            "type": "array",
            "elementType": delta_type(iceberg_type.element_type),
            "containsNull": not iceberg_type.element_required,
        }
    if isinstance(iceberg_type, MapType):
        return {
            "type": "map",
            "keyType": delta_type(iceberg_type.key_type),
            "valueType": delta_type(iceberg_type.value_type),
            "valueContainsNull": not iceberg_type.value_required,
        }
    if isinstance(iceberg_type, DecimalType):
        return f"decimal({iceberg_type.precision},{iceberg_type.scale})"
    name = _PRIMITIVES.get(type(iceberg_type))
    if name is None:
        raise UnsupportedOperation(f"The Iceberg type {iceberg_type} has no Delta equivalent")
    return name


def _delta_field(field: NestedField) -> dict:
    return {
        "name": field.name,
        "type": delta_type(field.field_type),
        "nullable": not field.required,
        "metadata": {"comment": field.doc} if field.doc else {},
    }


def delta_schema(schema: Schema) -> dict:
    """The Delta schema (a struct) of an Iceberg schema."""
    return delta_type(schema.as_struct())  # type: ignore[return-value]


def uses_timestamp_ntz(delta: str | dict) -> bool:
    """Whether a Delta type (or schema) contains ``timestamp_ntz`` (the timestampNtz table feature)."""
    if isinstance(delta, str):
        return delta == TIMESTAMP_NTZ
    if delta["type"] == "struct":
        return any(uses_timestamp_ntz(f["type"]) for f in delta["fields"])
    if delta["type"] == "array":
        return uses_timestamp_ntz(delta["elementType"])
    return uses_timestamp_ntz(delta["keyType"]) or uses_timestamp_ntz(delta["valueType"])
