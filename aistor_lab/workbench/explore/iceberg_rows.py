"""Pages of an Iceberg table's rows for the explorer: a PyIceberg scan of one snapshot, filtered by
Iceberg expression text, cut into pages by grid.py. A scan's rows are kept briefly (a small cache
keyed by metadata file, snapshot, filter and columns), so paging and sorting do not scan again."""

from __future__ import annotations

import threading

from cachetools import TTLCache

from ..client import AIStorClient, ServiceError
from ..commands.actions import UsageError
from . import grid
from .time_travel import resolve_snapshot

# Each entry holds at most grid.MAX_BYTES of Arrow data; a few recent scans are enough for paging.
_SCANS: TTLCache = TTLCache(maxsize=4, ttl=300)
_SCANS_LOCK = threading.Lock()


def parse_filter(text: str | None):
    """Iceberg expression text (``id > 5 and name = 'x'``) -> a PyIceberg expression."""
    from pyiceberg.expressions import AlwaysTrue
    from pyiceberg.expressions.parser import parse
    from pyparsing import ParseBaseException

    if not text or not text.strip():
        return AlwaysTrue()
    try:
        return parse(text)
    except ParseBaseException as exc:
        raise UsageError(f"cannot read the filter at character {exc.loc + 1} ({text[exc.loc:exc.loc + 20]!r}): "
                         "write comparisons such as id > 5 and name = 'x', joined by and, or, not") from None


def parse_columns(text: str | None) -> tuple[str, ...]:
    return tuple(name.strip() for name in (text or "").split(",") if name.strip()) or ("*",)


def snapshot_row_count(metadata, snapshot_id: int | None) -> int | None:
    """The snapshot's row count from its summary, when no delete files make it an overcount."""
    if snapshot_id is None:
        return 0
    snapshot = metadata.snapshot_by_id(snapshot_id)
    summary = snapshot.summary if snapshot and snapshot.summary else None
    if summary is None or summary.get("total-records") is None:
        return None
    if int(summary.get("total-delete-files") or 0) > 0:
        return None
    return int(summary["total-records"])


def _scanned_rows(table_scan, table: str, key: tuple):
    """The rows of ``table_scan`` narrowed to ``key``'s snapshot, filter and columns, read lazily and
    kept: (BufferedRows, projected Iceberg schema)."""
    _, snapshot_id, filter_text, columns = key
    with _SCANS_LOCK:
        cached = _SCANS.get(key)
    if cached is not None:
        return cached
    scan = table_scan.update(snapshot_id=snapshot_id, row_filter=parse_filter(filter_text), selected_fields=columns)
    try:
        projection = scan.projection()
        reader = scan.to_arrow_batch_reader()
    except ValueError as exc:  # a column of the filter or the selection that the schema lacks
        raise UsageError(f"{exc}: check the filter and the columns against the table's schema") from None
    except OSError as exc:
        raise ServiceError(f"cannot read the manifests of {table}: {exc}") from None
    cached = (grid.BufferedRows(reader, reopen=scan.to_arrow_batch_reader), projection)
    with _SCANS_LOCK:
        _SCANS[key] = cached
    return cached


def table_rows(client: AIStorClient, warehouse: str, namespace: str, table: str, *, offset: int = 0,
               limit: int = 100, sort: str | None = None, filter_text: str | None = None,
               columns: str | None = None, snapshot: str | None = None, as_of: str | None = None,
               ref: str | None = None) -> dict:
    """The explorer's ``rows`` answer: a page of one snapshot's rows (grid.page's shape) with
    ``snapshotId`` (as text) and Iceberg's column types."""
    grid.check_window(offset, limit)
    loaded = client.load_table(warehouse, namespace, table)
    table_scan = client.table_scan(loaded)
    metadata = table_scan.table_metadata
    snapshot_id = resolve_snapshot(metadata, snapshot=snapshot, as_of=as_of, ref=ref)
    key = (loaded.get("metadata-location"), snapshot_id, (filter_text or "").strip(), parse_columns(columns))
    rows, projection = _scanned_rows(table_scan, table, key)
    order = grid.parse_sort(sort, [field.name for field in projection.fields])
    try:
        answer = grid.page(rows, offset, limit, order)
    except OSError as exc:
        with _SCANS_LOCK:  # a scan that failed half-way must not pass for a complete one
            _SCANS.pop(key, None)
        raise ServiceError(f"cannot read the data files of {table}: {exc}") from None
    if answer["total"] is None and not (filter_text or "").strip():
        answer["total"] = snapshot_row_count(metadata, snapshot_id)
    answer["columns"] = [{"name": field.name, "type": str(field.field_type)} for field in projection.fields]
    answer["snapshotId"] = None if snapshot_id is None else str(snapshot_id)
    return answer
