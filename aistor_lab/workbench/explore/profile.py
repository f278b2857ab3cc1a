"""A column profile of an Iceberg table for the explorer: null counts and min/max from the manifests'
column statistics first (no data file read), then a bounded sample of rows (``SAMPLE_ROWS`` rows from
at most ``SAMPLE_FILES`` files) for distinct counts, histograms and whatever the manifests lack."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.conversions import from_bytes
from pyiceberg.expressions import AlwaysTrue
from pyiceberg.io.pyarrow import ArrowScan, schema_to_pyarrow

from ..client import AIStorClient, ServiceError
from ..commands.actions import UsageError
from .grid import render_cell
from .iceberg_rows import parse_columns, snapshot_row_count
from .time_travel import resolve_snapshot

SAMPLE_ROWS = 100_000
SAMPLE_FILES = 8
HISTOGRAM_BINS = 16
TOP_VALUES = 10


def _bound(primitive_type, raw: bytes, arrow_type: pa.DataType) -> Any:
    """A manifest's lower or upper bound, decoded and rendered as the grid renders the column's cells."""
    value = from_bytes(primitive_type, raw)
    try:
        value = pa.scalar(value, arrow_type).as_py()  # days and microseconds become dates and times
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        pass
    return render_cell(value, arrow_type)


def _manifest_stats(field, arrow_type: pa.DataType, files: list) -> dict | None:
    """nullCount, min and max of a top-level column from the data files' statistics, or None when
    some file lacks them. Strings and binary are left to the sample: their bounds are kept truncated."""
    if not field.field_type.is_primitive or not files:
        return None
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_binary(arrow_type) \
            or pa.types.is_large_binary(arrow_type) or pa.types.is_fixed_size_binary(arrow_type):
        return None
    nulls, lowers, uppers = 0, [], []
    for data_file in files:
        null_count = (data_file.null_value_counts or {}).get(field.field_id)
        if null_count is None:
            return None
        nulls += null_count
        lower = (data_file.lower_bounds or {}).get(field.field_id)
        upper = (data_file.upper_bounds or {}).get(field.field_id)
        if lower is None or upper is None:
            if null_count < data_file.record_count:  # values, but no bounds for them
                return None
            continue
        lowers.append(lower)
        uppers.append(upper)
    low = min(lowers, key=lambda raw: from_bytes(field.field_type, raw), default=None)
    high = max(uppers, key=lambda raw: from_bytes(field.field_type, raw), default=None)
    return {
        "nullCount": nulls,
        "min": None if low is None else _bound(field.field_type, low, arrow_type),
        "max": None if high is None else _bound(field.field_type, high, arrow_type),
    }


def _is_numeric(arrow_type: pa.DataType) -> bool:
    return pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type) or pa.types.is_decimal(arrow_type)


def _is_temporal(arrow_type: pa.DataType) -> bool:
    return pa.types.is_timestamp(arrow_type) or pa.types.is_date(arrow_type) or pa.types.is_time(arrow_type)


def _histogram(values: pa.ChunkedArray, integral: bool) -> tuple[list[float], list[int]] | None:
    """Equal-width bins (at most HISTOGRAM_BINS; for integral values, at least 1 wide) over the non-null,
    non-NaN values: (edges, counts)."""
    values = values.drop_null()
    values = values.filter(pc.invert(pc.is_nan(values)))
    if len(values) == 0:
        return None
    bounds = pc.min_max(values)
    low, high = bounds["min"].as_py(), bounds["max"].as_py()
    if low == high:
        return [low, high], [len(values)]
    bins = min(HISTOGRAM_BINS, pc.count_distinct(values).as_py(), int(high - low) if integral else HISTOGRAM_BINS)
    width = (high - low) / bins
    index = pc.cast(pc.floor(pc.divide(pc.subtract(values, low), width)), pa.int64())
    index = pc.min_element_wise(index, bins - 1)  # the maximum belongs to the last bin
    counts = [0] * bins
    for entry in pc.value_counts(index).to_pylist():
        counts[entry["values"]] = entry["counts"]
    return [low + width * i for i in range(bins)] + [high], counts


def _numeric_histogram(column: pa.ChunkedArray) -> dict | None:
    """Numbers binned as numbers; dates and times binned on their epoch units, edges shown as times."""
    # safe=False: beyond 2**53 a bin's edge may be rounded, which a histogram can afford
    if not _is_temporal(column.type):
        binned = _histogram(pc.cast(column, pa.float64(), safe=False), pa.types.is_integer(column.type))
        return None if binned is None else {"kind": "numeric", "edges": binned[0], "counts": binned[1]}
    units = pa.int32() if column.type.bit_width == 32 else pa.int64()
    binned = _histogram(pc.cast(pc.cast(column, units), pa.float64(), safe=False), integral=True)
    if binned is None:
        return None
    edges = pa.array([round(edge) for edge in binned[0]], units).cast(column.type)
    return {"kind": "numeric", "edges": [render_cell(edge, column.type) for edge in edges.to_pylist()],
            "counts": binned[1]}


def _top_values(column: pa.ChunkedArray) -> dict | None:
    counted = pc.value_counts(column.drop_null())
    if len(counted) == 0:
        return None
    ranked = pa.table({"value": counted.field("values"), "count": counted.field("counts")}).sort_by(
        [("count", "descending"), ("value", "ascending")]).slice(0, TOP_VALUES)
    return {"kind": "values", "values": [{"value": render_cell(entry["value"], column.type), "count": entry["count"]}
                                         for entry in ranked.to_pylist()]}


def _sample_stats(column: pa.ChunkedArray) -> dict:
    arrow_type = column.type
    nested = pa.types.is_nested(arrow_type)
    stats: dict[str, Any] = {"nullCount": column.null_count, "distinct": None, "min": None, "max": None,
                             "histogram": None}
    if nested:
        return stats
    stats["distinct"] = pc.count_distinct(column, mode="only_valid").as_py()
    if not (pa.types.is_boolean(arrow_type) or pa.types.is_binary(arrow_type)):
        try:
            bounds = pc.min_max(column)
            stats["min"] = render_cell(bounds["min"].as_py(), arrow_type)
            stats["max"] = render_cell(bounds["max"].as_py(), arrow_type)
        except pa.ArrowNotImplementedError:
            pass
    if _is_numeric(arrow_type) or _is_temporal(arrow_type):
        stats["histogram"] = _numeric_histogram(column)
    elif pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_boolean(arrow_type):
        stats["histogram"] = _top_values(column)
    return stats


def table_profile(client: AIStorClient, warehouse: str, namespace: str, table: str, *, snapshot: str | None = None,
                  columns: str | None = None) -> dict:
    """The explorer's ``profile`` answer for one snapshot (the current one by default)."""
    loaded = client.load_table(warehouse, namespace, table)
    scan = client.table_scan(loaded)
    metadata = scan.table_metadata
    snapshot_id = resolve_snapshot(metadata, snapshot=snapshot)
    scan = scan.update(snapshot_id=snapshot_id, selected_fields=parse_columns(columns))
    try:
        projection = scan.projection()
    except ValueError as exc:
        raise UsageError(f"{exc}: check the columns against the table's schema") from None
    try:
        tasks = list(scan.plan_files()) if snapshot_id is not None else []
        sampled = tasks[:SAMPLE_FILES]
        sample = ArrowScan(metadata, scan.io, projection, AlwaysTrue(), limit=SAMPLE_ROWS).to_table(sampled)
    except OSError as exc:
        raise ServiceError(f"cannot read the files of {table}: {exc}") from None
    has_deletes = any(task.delete_files for task in tasks)
    row_count = snapshot_row_count(metadata, snapshot_id)
    if row_count is None and not has_deletes:
        row_count = sum(task.file.record_count for task in tasks)
    complete = len(tasks) <= SAMPLE_FILES and (sample.num_rows < SAMPLE_ROWS or sample.num_rows == row_count)
    arrow_schema = schema_to_pyarrow(projection, include_field_ids=False)
    files = [] if has_deletes else [task.file for task in tasks]
    profiled = []
    for field in projection.fields:
        arrow_type = arrow_schema.field(field.name).type
        stats = _sample_stats(sample.column(field.name))
        manifest = _manifest_stats(field, arrow_type, files)
        if manifest is not None:
            stats.update(manifest)
        profiled.append({"name": field.name, "type": str(field.field_type), **stats,
                         "source": "manifest" if manifest is not None else "sample"})
    return {
        "snapshotId": None if snapshot_id is None else str(snapshot_id),
        "rowCount": row_count,
        "sample": {"rows": sample.num_rows, "files": len(sampled), "complete": complete},
        "columns": profiled,
    }
