"""Every engine over HTTPS with a private CA: a kernel with the variables the Jupyter extension exports
for such a service (``AISTOR_CA_BUNDLE``, ``SSL_CERT_FILE``, ...) reads a table through DuckDB (OAuth2
and SigV4), Polars and Daft, as PyIceberg reads it."""

from __future__ import annotations

import pytest

from aistor_lab import tls
from aistor_lab.workbench import engines
from aistor_lab.workbench.client import AIStorClient
from aistor_lab.workbench.jupyter.process import ServiceProcess
from aistor_lab.workbench.service_config import ServiceConfig

from .conftest import NO_BACKGROUND_MAINTENANCE, ROOT_PASSWORD, ROOT_USER
from .engines_support import pyiceberg_rows, seeded_table


@pytest.fixture(scope="module")
def tls_service(tmp_path_factory):
    certs = tmp_path_factory.mktemp("engine-certs")
    tls.create_certificates(certs, ["localhost", "127.0.0.1"])
    trust = tls.trust_files(certs)
    data = tmp_path_factory.mktemp("engine-tls")
    with ServiceProcess(data, certs_dir=certs, env=NO_BACKGROUND_MAINTENANCE, log_path=data.parent / "tls.log") as server:
        service = ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse="engines-tls",
                                ca_bundle=str(trust.ca_bundle))
        AIStorClient(service).create_warehouse("engines-tls")
        yield server, service, trust


READERS = {
    "duckdb-oauth2": lambda service, identifier: engines.duckdb(service=service).sql(
        f"SELECT id, name FROM lake.{identifier}").fetchall(),
    "duckdb-sigv4": lambda service, identifier: engines.duckdb(service=service, auth="sigv4").sql(
        f"SELECT id, name FROM lake.{identifier}").fetchall(),
    "polars": lambda service, identifier: engines.polars_scan_iceberg(identifier, service=service)
    .select("id", "name").collect().rows(),
    "daft": lambda service, identifier: list(zip(*engines.daft_read_iceberg(identifier, service=service)
                                                 .to_pydict().values(), strict=True)),
}


@pytest.mark.parametrize("engine", READERS)
def test_every_engine_reads_over_https_with_a_private_ca(tls_service, engine, monkeypatch):
    server, service, trust = tls_service
    for name, value in trust.environment().items():
        monkeypatch.setenv(name, value)
    identifier = seeded_table(server, service)
    assert sorted(READERS[engine](service, identifier)) == pyiceberg_rows(service, identifier)
