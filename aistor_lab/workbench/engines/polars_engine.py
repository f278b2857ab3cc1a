"""Polars on the service: Iceberg tables of the catalog, Delta tables in buckets, shared tables.

Polars' native Iceberg reader opens the data files with its own object store, which (when Polars plans
the scan with PyIceberg rather than the polars-iceberg plugin) ignores the table's ``s3.endpoint`` and
goes to AWS: the storage options are always handed in. The same options serve ``pl.scan_delta``,
``pl.read_delta`` and ``DataFrame.write_delta`` on ``s3://bucket/path``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..service_config import ServiceConfig, delta_storage_options
from .service import iceberg_table, resolve

if TYPE_CHECKING:
    import polars as pl


def polars_storage_options(service: ServiceConfig | None = None) -> dict[str, str]:
    """The ``storage_options`` of Polars' readers and writers for the service's buckets (Polars and
    deltalake share the Rust object store, so they take the same options)."""
    return delta_storage_options(resolve(service))


def polars_scan_iceberg(identifier: str, warehouse: str | None = None, *, snapshot_id: int | None = None,
                        service: ServiceConfig | None = None) -> pl.LazyFrame:
    """``pl.scan_iceberg`` of table ``namespace.table`` in ``warehouse`` (else the default one), at
    ``snapshot_id`` (else the current snapshot)."""
    import polars as pl

    service = resolve(service)
    table = iceberg_table(identifier, warehouse, service=service)
    return pl.scan_iceberg(table, snapshot_id=snapshot_id, storage_options=polars_storage_options(service))


def polars_shared_table(profile: str, table: str, *, version: int | None = None,
                        limit: int | None = None) -> pl.DataFrame:
    """A Delta Sharing table (``share.schema.table``) read through the delta-sharing client with the
    profile file ``profile`` (at ``version``, else the latest; its first ``limit`` rows, else all), as a
    Polars DataFrame."""
    import delta_sharing
    import polars as pl

    return pl.from_pandas(delta_sharing.load_as_pandas(f"{profile}#{table}", limit=limit, version=version))
