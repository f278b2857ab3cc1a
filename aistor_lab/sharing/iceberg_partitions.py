"""Iceberg partitioning as Delta partition columns and partition values.

A Delta partition column is a top-level column whose value is the same for the whole file. Iceberg's
identity transform is exactly that; other transforms (day, bucket, truncate, ...) are not, so their
files are listed without partition values and readers take the column from the data (Iceberg writes
partition source columns into the data files, identity ones included). A column is a partition
column only if every partition spec the version's files were written with partitions it by identity,
so each file has a value for it. Binary-like columns (binary, fixed, uuid) are left out: the released
Delta Sharing client cannot read them as partition values.

Values are serialized as delta-io/delta PROTOCOL.md, "Partition Value Serialization" says: numbers as
their decimal string, dates as yyyy-MM-dd, timestamps without zone as ``yyyy-MM-dd HH:mm:ss.SSSSSS``,
timestamps with zone as ISO 8601 in UTC (``yyyy-MM-ddTHH:mm:ss.SSSSSSZ``), booleans as true/false.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass
from decimal import Decimal

from pyiceberg.schema import Schema
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    PrimitiveType,
    StringType,
    TimestampNanoType,
    TimestampType,
    TimestamptzNanoType,
    TimestamptzType,
)

from .iceberg_files import ManifestRow

EPOCH = datetime.datetime(1970, 1, 1)
_NUMBERS = (IntegerType, LongType, DecimalType)
_FLOATS = (FloatType, DoubleType)
TIMESTAMP_TYPES = (TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType)
_PARTITIONABLE = (BooleanType, StringType, DateType, *_NUMBERS, *_FLOATS, *TIMESTAMP_TYPES)


def micros(iceberg_type: PrimitiveType, value: int) -> int:
    """A timestamp value (micro- or nanoseconds since the epoch) in microseconds, rounded down."""
    return value // 1000 if isinstance(iceberg_type, (TimestampNanoType, TimestamptzNanoType)) else value


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def partition_value(iceberg_type: PrimitiveType, value: object) -> str | None:
    """An identity partition value (as PyIceberg reads it from a manifest) as Delta serializes it."""
    if value is None:
        return None
    if isinstance(iceberg_type, BooleanType):
        return "true" if value else "false"
    if isinstance(iceberg_type, DecimalType):
        return format(Decimal(value), "f")  # type: ignore[arg-type]
    if isinstance(iceberg_type, _FLOATS):
        return _float_text(float(value))  # type: ignore[arg-type]
    if isinstance(iceberg_type, DateType):
        return (EPOCH + datetime.timedelta(days=value)).date().isoformat()  # type: ignore[arg-type]
    if isinstance(iceberg_type, TIMESTAMP_TYPES):
        moment = EPOCH + datetime.timedelta(microseconds=micros(iceberg_type, value))  # type: ignore[arg-type]
        if isinstance(iceberg_type, (TimestamptzType, TimestamptzNanoType)):
            return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return moment.strftime("%Y-%m-%d %H:%M:%S.%f")
    return str(value)


@dataclass(frozen=True)
class PartitionColumn:
    name: str
    source_id: int
    type: PrimitiveType


def _identity_sources(spec: dict) -> set[int]:
    return {f["source-id"] for f in spec["fields"] if f.get("transform") == "identity" and "source-id" in f}


class DeltaPartitioning:
    """The Delta partition columns of one table version, and each file's values for them."""

    def __init__(self, schema: Schema, specs: dict[int, dict], spec_ids: set[int]):
        self._specs = specs
        common = set.intersection(*(_identity_sources(specs[i]) for i in spec_ids)) if spec_ids else set()
        self.columns = [
            PartitionColumn(field.name, field.field_id, field.field_type)
            for field in schema.fields
            if field.field_id in common and isinstance(field.field_type, _PARTITIONABLE)
        ]
        self._positions: dict[int, dict[int, int]] = {}  # spec id -> source id -> position in the tuple

    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def values(self, row: ManifestRow) -> dict[str, str | None]:
        if not self.columns:
            return {}
        positions = self._positions.get(row.spec_id)
        if positions is None:
            fields = self._specs[row.spec_id]["fields"]
            positions = self._positions[row.spec_id] = {
                f["source-id"]: i for i, f in enumerate(fields) if f.get("transform") == "identity"
            }
        return {c.name: partition_value(c.type, row.partition[positions[c.source_id]]) for c in self.columns}
