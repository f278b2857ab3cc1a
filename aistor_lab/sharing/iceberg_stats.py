"""Iceberg manifest metrics as Delta per-file statistics (delta-io/delta PROTOCOL.md, "Per-file
Statistics"): ``numRecords``, and ``minValues`` / ``maxValues`` / ``nullCount`` nested as the schema is.

Bounds are decoded from Iceberg's binary single-value serialization (pyiceberg.conversions.from_bytes,
which also reads bounds written before an int->long or float->double promotion). Only what stays a
valid bound in Delta's JSON form is kept:
- timestamps are in milliseconds, as Delta writes them: minimums rounded down, maximums up;
- decimals become JSON numbers only up to 15 digits, where a double keeps every digit;
- NaN and infinite floats, binary, fixed and uuid bounds are dropped (Delta has no stats for them);
- columns inside lists and maps get no statistics (Delta keeps none there either).
Iceberg's truncated string bounds are valid bounds already (a prefix below, an incremented prefix above).
With a deletion vector the bounds cover deleted rows too, so ``tightBounds`` is false.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Iterator
from decimal import Decimal

from pyiceberg.conversions import from_bytes
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
    StructType,
    TimestamptzNanoType,
    TimestamptzType,
)

from .iceberg_files import ManifestRow
from .iceberg_partitions import EPOCH, TIMESTAMP_TYPES, micros

_DOUBLE_EXACT_DIGITS = 15


def _timestamp(iceberg_type: PrimitiveType, value: int, round_up: bool) -> str:
    us = micros(iceberg_type, value)
    ms = -(-us // 1000) if round_up else us // 1000
    text = (EPOCH + datetime.timedelta(milliseconds=ms)).isoformat(timespec="milliseconds")
    return text + "Z" if isinstance(iceberg_type, (TimestamptzType, TimestamptzNanoType)) else text


def bound(iceberg_type: PrimitiveType, raw: bytes, *, upper: bool) -> object | None:
    """A lower or upper bound as a Delta statistics JSON value; None when it cannot be one."""
    if isinstance(iceberg_type, (BooleanType, IntegerType, LongType)):
        return from_bytes(iceberg_type, raw)
    if isinstance(iceberg_type, (FloatType, DoubleType)):
        value = from_bytes(iceberg_type, raw)
        return value if math.isfinite(value) else None
    if isinstance(iceberg_type, DecimalType):
        value = from_bytes(iceberg_type, raw)
        return float(value) if len(Decimal(value).as_tuple().digits) <= _DOUBLE_EXACT_DIGITS else None
    if isinstance(iceberg_type, StringType):
        try:
            return from_bytes(iceberg_type, raw)
        except UnicodeDecodeError:
            return None
    if isinstance(iceberg_type, DateType):
        return (EPOCH + datetime.timedelta(days=from_bytes(iceberg_type, raw))).date().isoformat()
    if isinstance(iceberg_type, TIMESTAMP_TYPES):
        return _timestamp(iceberg_type, from_bytes(iceberg_type, raw), round_up=upper)
    return None


def _leaves(struct: StructType, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], int, PrimitiveType]]:
    """The primitive columns with statistics: inside structs, not inside lists and maps."""
    for field in struct.fields:
        if isinstance(field.field_type, StructType):
            yield from _leaves(field.field_type, (*path, field.name))
        elif isinstance(field.field_type, PrimitiveType):
            yield (*path, field.name), field.field_id, field.field_type


def _put(target: dict, path: tuple[str, ...], value: object) -> None:
    for name in path[:-1]:
        target = target.setdefault(name, {})
    target[path[-1]] = value


class DeltaStats:
    """Makes the Delta ``stats`` JSON of the data files of one schema."""

    def __init__(self, schema: Schema):
        self._columns = list(_leaves(schema.as_struct(), ()))

    def __call__(self, row: ManifestRow, *, tight: bool = True) -> str:
        stats: dict = {"numRecords": row.record_count}
        mins: dict = {}
        maxes: dict = {}
        nulls: dict = {}
        for path, field_id, iceberg_type in self._columns:
            if field_id in row.null_counts:
                _put(nulls, path, row.null_counts[field_id])
            for bounds, target, upper in ((row.lower_bounds, mins, False), (row.upper_bounds, maxes, True)):
                if field_id in bounds:
                    value = bound(iceberg_type, bounds[field_id], upper=upper)
                    if value is not None:
                        _put(target, path, value)
        if mins:
            stats["minValues"] = mins
        if maxes:
            stats["maxValues"] = maxes
        if nulls:
            stats["nullCount"] = nulls
        if not tight:
            stats["tightBounds"] = False
        return json.dumps(stats, separators=(",", ":"))
