"""A file made into an Iceberg table (`aistor table import`, the panel's "New table from this file…"):
a CSV, TSV, Parquet or JSON-lines file, from a bucket of the service or from local disk; its columns
become the table's schema (types as pyarrow infers them), its rows the table's first snapshot.

The file is read into memory once, so its size is bounded: a bigger one is a job for Spark."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import pyarrow as pa

from .client import AIStorClient, AIStorError, ServiceError, catalog_properties, namespace_levels
from .objects import object_client

MAX_BYTES = 512 * 1024 * 1024


def _csv(data: io.BytesIO, delimiter: str = ",") -> pa.Table:
    from pyarrow import csv

    return csv.read_csv(data, parse_options=csv.ParseOptions(delimiter=delimiter))


def _parquet(data: io.BytesIO) -> pa.Table:
    from pyarrow import parquet

    return parquet.read_table(data)


def _json_lines(data: io.BytesIO) -> pa.Table:
    from pyarrow import json

    return json.read_json(data)


READERS: dict[str, Callable[[io.BytesIO], pa.Table]] = {
    ".csv": _csv,
    ".tsv": lambda data: _csv(data, "\t"),
    ".parquet": _parquet,
    ".jsonl": _json_lines,
    ".json": _json_lines,
}


def _reader(name: str) -> Callable[[io.BytesIO], pa.Table]:
    reader = READERS.get(PurePosixPath(name).suffix.lower())
    if reader is None:
        raise AIStorError(f"cannot tell the format of '{name}': import reads {', '.join(READERS)} files")
    return reader


def _too_big(name: str, size: int) -> AIStorError:
    return AIStorError(f"'{name}' is {size / 2**20:.0f} MiB: import reads files up to {MAX_BYTES // 2**20} MiB; "
                       "write bigger ones with Spark (spark.read.csv(...).writeTo(...))")


def _object_bytes(client: AIStorClient, bucket: str, key: str) -> bytes:
    answer = object_client(client.config).get(bucket, key)
    body = answer["Body"]
    try:
        if answer.get("ContentLength", 0) > MAX_BYTES:
            raise _too_big(f"s3://{bucket}/{key}", answer["ContentLength"])
        return body.read()
    finally:
        body.close()


def read_source(client: AIStorClient, source: str) -> pa.Table:
    """The rows of ``source``: ``s3://BUCKET/KEY`` (an object of the service) or a local path."""
    reader = _reader(source)
    if source.startswith("s3://"):
        bucket, _, key = source[len("s3://"):].partition("/")
        if not bucket or not key:
            raise AIStorError(f"'{source}' names no object: expected s3://BUCKET/KEY")
        data = _object_bytes(client, bucket, key)
    else:
        path = Path(source).expanduser()
        if not path.is_file():
            raise AIStorError(f"no file '{source}' here (an object of the service is s3://BUCKET/KEY)")
        if path.stat().st_size > MAX_BYTES:
            raise _too_big(source, path.stat().st_size)
        data = path.read_bytes()
    try:
        return reader(io.BytesIO(data))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise AIStorError(f"cannot read '{source}': {exc}") from None


def import_table(client: AIStorClient, warehouse: str, namespace: str, table: str, source: str) -> dict:
    """Creates ``warehouse.namespace.table`` (and the namespace when it is missing) from ``source``;
    answers where the table is and how many rows it holds. An existing table is left alone."""
    from pyiceberg.catalog.rest import RestCatalog
    from pyiceberg.exceptions import NamespaceAlreadyExistsError, TableAlreadyExistsError

    rows = read_source(client, source)
    catalog = RestCatalog("aistor", **catalog_properties(client.config, warehouse))
    levels = tuple(namespace_levels(namespace))
    try:
        catalog.create_namespace(levels)
    except NamespaceAlreadyExistsError:
        pass
    try:
        created = catalog.create_table((*levels, table), schema=rows.schema)
    except TableAlreadyExistsError:
        raise ServiceError(f"table '{'.'.join(levels)}.{table}' already exists in warehouse '{warehouse}': "
                           "choose another name, or append with PyIceberg or Spark", 409) from None
    # The file's types as Iceberg keeps them (seconds become microseconds, strings large strings...).
    created.append(rows.cast(created.schema().as_arrow()))
    return {"warehouse": warehouse, "namespace": ".".join(levels), "table": table, "source": source,
            "rows": rows.num_rows, "columns": rows.column_names, "location": created.location()}
