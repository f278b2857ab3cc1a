"""The Iceberg catalogs under comparison, opened as PyIceberg catalogs.

aistor-lab and SeaweedFS serve an Iceberg REST catalog next to their S3 API (servers started by
``peers``); PyIceberg talks to both with the product's configuration: SigV4 with signing name
``s3tables``, data files on the same server's S3. PyIceberg's own ``SqlCatalog`` on SQLite, with a
``file://`` warehouse, runs in this process: the reference without any HTTP in between.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit

import requests
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.httpsession import URLLib3Session
from null_server import memory_server
from peers import ACCESS_KEY, OURS, SECRET_KEY, ServerProcess, aistor_lab, seaweedfs
from pyiceberg.catalog import Catalog, load_catalog
from pyiceberg.catalog.rest import Endpoints, RestCatalog
from pyiceberg.catalog.sql import SqlCatalog

WAREHOUSE = "bench"
SIGNING_NAME = "s3tables"
SIGNING_REGION = "local"
SQLCATALOG = "sqlcatalog"
REPLAY = "replay"  # the load_table ceiling: a server answering aistor-lab's recorded answers from memory
CATALOGS = (OURS, SQLCATALOG, "seaweedfs")


@dataclass
class CatalogUnderTest:
    name: str
    version: str
    where: str
    catalog: Catalog
    server: ServerProcess | None = None  # the server of a REST catalog, which other clients reach too


def start_server(name: str, workdir: Path) -> ServerProcess | None:
    """Start the server behind catalog ``name``; None for the in-process SqlCatalog."""
    if name == SQLCATALOG:
        return None
    server = aistor_lab(workdir) if name == OURS else seaweedfs(workdir, table_bucket=WAREHOUSE)
    server.start()
    return server


def open_catalog(name: str, workdir: Path, server: ServerProcess | None, timeout: float) -> CatalogUnderTest:
    """The catalog ``name`` ready for use: its server answers and the warehouse exists."""
    if server is None:
        return _sqlcatalog(workdir)
    server.wait_ready(timeout)
    if server.name == OURS:
        _create_warehouse(server)
    # SeaweedFS creates its table bucket (the warehouse) during startup; the catalog answers once
    # it exists. Ours answers at once.
    catalog = load_catalog(server.name, **rest_properties(server))
    _wait_answers(catalog, timeout)
    return CatalogUnderTest(server.name, server.version, server.catalog_uri, catalog, server)


def rest_properties(server: ServerProcess) -> dict[str, str]:
    """The product's PyIceberg configuration, pointed at ``server``."""
    return {
        "uri": server.catalog_uri,
        "warehouse": WAREHOUSE,
        "rest.sigv4-enabled": "true",
        "rest.signing-name": SIGNING_NAME,
        "rest.signing-region": SIGNING_REGION,
        "client.access-key-id": ACCESS_KEY,
        "client.secret-access-key": SECRET_KEY,
        "client.region": SIGNING_REGION,
        "s3.endpoint": server.endpoint,
        "s3.path-style-access": "true",
        "s3.access-key-id": ACCESS_KEY,
        "s3.secret-access-key": SECRET_KEY,
    }


def _create_warehouse(server: ServerProcess) -> None:
    """``POST /v1/warehouses``: aistor-lab's own extension, SigV4-signed as PyIceberg signs."""
    request = AWSRequest(
        method="POST", url=f"{server.catalog_uri}/v1/warehouses", data=json.dumps({"name": WAREHOUSE}),
        headers={"Content-Type": "application/json"},
    )
    SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), SIGNING_NAME, SIGNING_REGION).add_auth(request)
    response = URLLib3Session().send(request.prepare())
    if response.status_code != 200:
        raise RuntimeError(f"creating warehouse {WAREHOUSE}: HTTP {response.status_code} {response.text[:300]}")


def _wait_answers(catalog: Catalog, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            catalog.list_namespaces()
            return
        except Exception:  # not ready yet, until the deadline
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _sqlcatalog(workdir: Path) -> CatalogUnderTest:
    warehouse = workdir / "warehouse"
    warehouse.mkdir(parents=True)
    uri = f"sqlite:///{workdir / 'catalog.db'}"
    catalog = SqlCatalog(SQLCATALOG, uri=uri, warehouse=warehouse.as_uri())
    version = f"pyiceberg {metadata.version('pyiceberg')}, SQLite {sqlite3.sqlite_version}"
    return CatalogUnderTest(SQLCATALOG, version, f"in-process, {uri}", catalog)


@contextmanager
def replaying(ours: CatalogUnderTest, identifier: str) -> Iterator[Catalog]:
    """A PyIceberg REST catalog, configured as ``ours``, on an in-memory null server that answers its
    config and ``identifier``'s load with the bytes aistor-lab answered just before: ``load_table``
    against it costs PyIceberg all of its own work (signing, ``requests``, parsing) and nothing of
    a server's, which makes it the ceiling of any REST catalog here."""
    catalog = ours.catalog
    assert isinstance(catalog, RestCatalog)
    recorded = [
        catalog.url(Endpoints.get_config, prefixed=False) + f"?warehouse={WAREHOUSE}",
        catalog.url(Endpoints.load_table, prefixed=True, **catalog._split_identifier_for_path(identifier)),
    ]
    with memory_server() as endpoint, requests.Session() as replay:
        for url in recorded:
            answer = catalog._session.get(url)
            answer.raise_for_status()
            where = urlsplit(url)
            replay.put(f"{endpoint}{where.path}?{where.query}" if where.query else f"{endpoint}{where.path}",
                       data=answer.content, headers={"Content-Type": answer.headers["Content-Type"]}
                       ).raise_for_status()
        properties = {**catalog.properties, "uri": endpoint + urlsplit(ours.server.catalog_uri).path}
        yield load_catalog(REPLAY, **{k: v for k, v in properties.items() if k != "prefix"})
