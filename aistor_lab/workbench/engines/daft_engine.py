"""Daft on the service: ``daft.read_iceberg`` and ``DataFrame.write_iceberg`` on the catalog's tables
(PyIceberg tables, whose FileIO properties Daft reads), ``daft.read_deltalake`` on buckets.

Daft's own S3 client and the deltalake it hands Delta tables to take their endpoint, keys and path
style from an ``IOConfig``; ``use_ssl=False`` is what lets deltalake call an http:// endpoint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..service_config import ServiceConfig
from .service import iceberg_table, resolve

if TYPE_CHECKING:
    import daft


def daft_io_config(service: ServiceConfig | None = None) -> daft.io.IOConfig:
    """The ``io_config`` of Daft's readers and writers for the service's buckets."""
    from daft.io import IOConfig, S3Config

    service = resolve(service)
    return IOConfig(s3=S3Config(
        endpoint_url=service.endpoint, key_id=service.access_key, access_key=service.secret_key,
        region_name=service.region, use_ssl=service.https, force_virtual_addressing=False,
    ))


def daft_read_iceberg(identifier: str, warehouse: str | None = None, *, snapshot_id: int | None = None,
                      service: ServiceConfig | None = None) -> daft.DataFrame:
    """``daft.read_iceberg`` of table ``namespace.table`` in ``warehouse`` (else the default one), at
    ``snapshot_id`` (else the current snapshot)."""
    import daft

    service = resolve(service)
    table = iceberg_table(identifier, warehouse, service=service)
    return daft.read_iceberg(table, snapshot_id=snapshot_id, io_config=daft_io_config(service))
