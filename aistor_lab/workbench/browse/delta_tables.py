"""Delta tables in buckets, read-only, as the explorer shows them: the table's details (schema,
partitioning, files, history) and pages of its rows (sorted, filtered, of an older version) through
deltalake, cut into pages and rendered by the explorer's grid.

A filter is the same text as the Iceberg side's (``id > 5 and name = 'x'``), applied by DuckDB to
the table's Arrow dataset as a filter expression; DuckDB runs without access to files or the
network, so a filter reads nothing but the table."""

from __future__ import annotations

import json
import threading
from typing import Any

import pyarrow as pa
from cachetools import TTLCache

from ..client import ServiceError
from ..explore import grid
from ..service_config import ServiceConfig, delta_storage_options
from . import BadRequest
from .buckets import check_bucket, check_prefix

HISTORY = 50  # the newest commits shown
_BATCH_ROWS = 8192
# Each entry holds at most grid.MAX_BYTES of Arrow data; a few recent reads are enough for paging.
_READS: TTLCache = TTLCache(maxsize=4, ttl=300)
_READS_LOCK = threading.Lock()


def _root(bucket: str, path: str) -> str:
    check_bucket(bucket)
    path = check_prefix(path).strip("/")
    if not path:
        raise BadRequest("no table path given: add ?path=PATH/TO/TABLE (the folder holding _delta_log/)")
    return f"s3://{bucket}/{path}"


def _version(text: str | None) -> int | None:
    if text is None or text == "":
        return None
    if not text.isdigit():
        raise BadRequest(f"version must be a table version number, got {text!r}")
    return int(text)


def open_table(service: ServiceConfig, bucket: str, path: str, version: int | None = None):
    """The DeltaTable at ``s3://bucket/path`` (at ``version``, else the latest)."""
    from deltalake import DeltaTable
    from deltalake.exceptions import DeltaError, TableNotFoundError

    location = _root(bucket, path)
    try:
        return DeltaTable(location, version=version, storage_options=delta_storage_options(service))
    except TableNotFoundError:
        raise ServiceError(f"no Delta table at {location} (no _delta_log/ there)", 404, "NoSuchTable") from None
    except DeltaError as exc:
        if version is not None:
            raise BadRequest(f"version {version} of {location} cannot be read: {exc}") from None
        raise ServiceError(f"cannot read the Delta table at {location}: {exc}") from None


def _files(table) -> tuple[int, int, int | None]:
    """(file count, total bytes, row count or None when a file does not say)."""
    actions = pa.table(table.get_add_actions(flatten=True))
    sizes = actions.column("size_bytes").to_pylist()
    records = actions.column("num_records").to_pylist() if "num_records" in actions.column_names else [None]
    rows = None if any(r is None for r in records) else sum(records)
    return len(sizes), sum(sizes), rows


def table_details(service: ServiceConfig, bucket: str, path: str) -> dict:
    table = open_table(service, bucket, path)
    metadata = table.metadata()
    files, size, rows = _files(table)
    history = [{"version": h.get("version"), "timestamp": h.get("timestamp"), "operation": h.get("operation"),
                "operationParameters": h.get("operationParameters") or {}} for h in table.history(HISTORY)]
    return {
        "format": "delta", "bucket": bucket, "path": path.strip("/"), "location": _root(bucket, path),
        "version": table.version(), "schema": {"fields": json.loads(table.schema().to_json())["fields"]},
        "partitionColumns": list(metadata.partition_columns), "fileCount": files, "totalSizeBytes": size,
        "rowCount": rows, "history": history, "properties": dict(metadata.configuration),
    }


def _reader(dataset, filter_text: str | None) -> pa.RecordBatchReader:
    if not filter_text or not filter_text.strip():
        return dataset.scanner(batch_size=_BATCH_ROWS).to_reader()
    import duckdb

    connection = duckdb.connect(config={"enable_external_access": False})
    try:
        return connection.from_arrow(dataset).filter(filter_text).to_arrow_reader(_BATCH_ROWS)
    except duckdb.Error as exc:
        message = str(exc).splitlines()[0]
        raise BadRequest(f"cannot apply the filter {filter_text!r}: {message}; write comparisons such as "
                         "id > 5 and name = 'x', joined by and, or, not") from None


def _rows(service: ServiceConfig, bucket: str, path: str, version: int | None, filter_text: str | None):
    """The (kept) rows of one version and filter: (BufferedRows, version, row count when unfiltered)."""
    table = open_table(service, bucket, path, version)
    key = (_root(bucket, path), table.version(), filter_text or "")
    with _READS_LOCK:
        cached = _READS.get(key)
    if cached is not None:
        return cached
    dataset = table.to_pyarrow_dataset()
    rows = grid.BufferedRows(_reader(dataset, filter_text), reopen=lambda: _reader(dataset, filter_text))
    cached = (rows, table.version(), None if filter_text else _files(table)[2])
    with _READS_LOCK:
        _READS[key] = cached
    return cached


def table_rows(service: ServiceConfig, bucket: str, path: str, *, offset: int = 0, limit: int = 100,
               sort: str | None = None, filter_text: str | None = None, version: str | None = None) -> dict[str, Any]:
    """A page of rows in the shape of the Iceberg explorer's (``snapshotId`` is the version, as text)."""
    rows, read_version, count = _rows(service, bucket, path, _version(version), filter_text)
    order = grid.parse_sort(sort, rows.schema.names)
    answer = grid.page(rows, offset, limit, order)
    if answer["total"] is None:
        answer["total"] = count
    return {**answer, "snapshotId": str(read_version), "version": read_version}
