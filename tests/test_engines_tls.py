"""Every engine over HTTPS with a private CA: a kernel with the variables the Jupyter extension exports
for such a service (``AISTOR_ENDPOINT``, ``AISTOR_CA_BUNDLE``, ``SSL_CERT_FILE``, ...) reads a table
through DuckDB (OAuth2 and SigV4), Polars and Daft, as PyIceberg reads it.

Each engine runs in a process of its own started with those variables, as a kernel is: pyarrow's S3
client (PyIceberg's files) reads its CA once per process, when it is first used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from aistor_lab import tls
from aistor_lab.workbench.client import AIStorClient
from aistor_lab.workbench.jupyter.process import ServiceProcess
from aistor_lab.workbench.service_config import ServiceConfig

from .conftest import NO_BACKGROUND_MAINTENANCE, ROOT_PASSWORD, ROOT_USER

WAREHOUSE = "engines-tls"


@pytest.fixture(scope="module")
def tls_service(tmp_path_factory):
    certs = tmp_path_factory.mktemp("engine-certs")
    tls.create_certificates(certs, ["localhost", "127.0.0.1"])
    trust = tls.trust_files(certs)
    data = tmp_path_factory.mktemp("engine-tls")
    with ServiceProcess(data, certs_dir=certs, env=NO_BACKGROUND_MAINTENANCE, log_path=data.parent / "tls.log") as server:
        service = ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=WAREHOUSE,
                                ca_bundle=str(trust.ca_bundle))
        AIStorClient(service).create_warehouse(WAREHOUSE)
        yield server, trust


READERS = {
    "duckdb-oauth2": 'engines.duckdb().sql(f"SELECT id, name FROM lake.{identifier}").fetchall()',
    "duckdb-sigv4": 'engines.duckdb(auth="sigv4").sql(f"SELECT id, name FROM lake.{identifier}").fetchall()',
    "polars": 'engines.polars_scan_iceberg(identifier).select("id", "name").collect().rows()',
    "daft": 'list(zip(*engines.daft_read_iceberg(identifier).to_pydict().values(), strict=True))',
}

KERNEL = """
import json, sys
from aistor_lab.workbench import engines
from aistor_lab.workbench.service_config import ServiceConfig
from tests.engines_support import pyiceberg_rows, seeded_table

service = ServiceConfig.from_env()
identifier = seeded_table(None, service)
read = sorted(tuple(row) for row in {reader})
print(json.dumps({{"read": read, "pyiceberg": pyiceberg_rows(service, identifier)}}))
"""


@pytest.mark.parametrize("engine", READERS)
def test_every_engine_reads_over_https_with_a_private_ca(tls_service, engine):
    server, trust = tls_service
    kernel = {"AISTOR_ENDPOINT": server.endpoint, "AISTOR_ROOT_USER": ROOT_USER,
              "AISTOR_ROOT_PASSWORD": ROOT_PASSWORD, "AISTOR_WAREHOUSE": WAREHOUSE, **trust.environment()}
    code = textwrap.dedent(KERNEL).format(reader=READERS[engine])
    ran = subprocess.run([sys.executable, "-c", code], env={**os.environ, **kernel}, capture_output=True,
                         text=True, timeout=300, check=False, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert ran.returncode == 0, ran.stderr[-3000:]
    answer = json.loads(ran.stdout.strip().splitlines()[-1])
    assert answer["read"] == answer["pyiceberg"] and len(answer["read"]) == 10
