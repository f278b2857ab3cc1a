"""What the engine tests share: a warehouse of their own (dropped at the end), the service as the
workbench sees it, a table seeded by PyIceberg, and PyIceberg's rows to compare every engine with."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa

from aistor_lab.workbench import engines
from aistor_lab.workbench.client import AIStorClient, load_catalog
from aistor_lab.workbench.service_config import ServiceConfig

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call

ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])


def rows(ids) -> pa.Table:
    return pa.table({"id": list(ids), "name": [f"name-{i}" for i in ids]}, schema=ARROW_SCHEMA)


@contextmanager
def own_warehouse(server, kind: str) -> Iterator[ServiceConfig]:
    """A new warehouse, as the service's config with it as the default one; force-deleted at the end."""
    name = f"engines-{kind}-{uuid.uuid4().hex[:6]}"
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": name})
    assert status == 200, body
    try:
        yield ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=name)
    finally:
        assert catalog_call(server, "DELETE", f"/v1/warehouses/{name}?force=true")[0] == 204


def seeded_table(server, service: ServiceConfig, ids=range(10)) -> str:
    """A new table written by PyIceberg with ``rows(ids)`` in a new namespace; its identifier
    ``namespace.table``. (Through the workbench's clients, which trust the service's CA if it has one.)"""
    namespace = f"ns_{uuid.uuid4().hex[:8]}"
    AIStorClient(service).create_namespace(service.warehouse, namespace)
    identifier = f"{namespace}.events"
    table = load_catalog(service=service).create_table(identifier, schema=ARROW_SCHEMA)
    table.append(rows(ids))
    return identifier


def pyiceberg_rows(service: ServiceConfig, identifier: str) -> list[tuple]:
    """The table's rows as PyIceberg reads them, sorted: what every engine must read too."""
    arrow = engines.iceberg_table(identifier, service=service).scan().to_arrow()
    return sorted(zip(*(arrow.column(name).to_pylist() for name in arrow.column_names), strict=True))
