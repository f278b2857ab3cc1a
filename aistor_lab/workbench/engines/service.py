"""What every engine's helper starts from: the service (the environment's unless one is given) and
the PyIceberg table an identifier names in a warehouse."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..client import load_catalog
from ..service_config import LOCAL_ENDPOINT, ServiceConfig

if TYPE_CHECKING:
    from pyiceberg.table import Table


def resolve(service: ServiceConfig | None) -> ServiceConfig:
    """``service``, else the one the environment names, else the local default (as Spark's sessions)."""
    return service or ServiceConfig.from_env(default_endpoint=LOCAL_ENDPOINT)


def resolve_warehouse(warehouse: str | None, service: ServiceConfig) -> str:
    """``warehouse``, else the service's default one; a clear error when neither is known."""
    warehouse = warehouse or service.warehouse
    if not warehouse:
        raise ValueError("a warehouse is required: pass warehouse=... or set AISTOR_WAREHOUSE")
    return warehouse


def iceberg_table(identifier: str, warehouse: str | None = None, *, service: ServiceConfig | None = None) -> Table:
    """The PyIceberg table ``namespace.table`` of ``warehouse`` (else the default one): what Polars,
    Daft (``read_iceberg``, ``DataFrame.write_iceberg``) and PyIceberg itself read and write."""
    service = resolve(service)
    catalog = load_catalog(resolve_warehouse(warehouse, service), service=service)
    return catalog.load_table(identifier)
