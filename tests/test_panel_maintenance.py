"""Table maintenance as the explorer's Maintenance tab calls it: the panel's commands route under a real
Jupyter server, attached to a real service as a user who may look at and preview maintenance but not
run it nor read its history. The records carry what the tab reads; a refusal comes back as the
service's 403, naming the permission (which the tab tells the user they need)."""

from __future__ import annotations

import json
import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog as pyiceberg_catalog
from pytest_jupyter.jupyter_server import *
from tornado.httpclient import HTTPClientError

from aistor_lab.workbench.client import AIStorClient, ServiceConfig

from . import test_jupyter_extension as server_tests
from .conftest import ROOT_PASSWORD, ROOT_USER, make_user, seed_catalog_properties

isolated_env, jp_server_config, run, extension = (server_tests.isolated_env, server_tests.jp_server_config,
                                                  server_tests.run, server_tests.extension)

NS = "shop"
DENIED = ["s3tables:PutTableMaintenanceConfiguration", "s3tables:GetTableMaintenanceJobStatus"]


@pytest.fixture
def warehouse(server) -> str:
    """A warehouse holding shop.clicks, written by four small appends."""
    name = f"maint-{uuid.uuid4().hex[:6]}"
    root = AIStorClient(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD))
    root.create_warehouse(name)
    root.create_namespace(name, NS)
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False)])
    table = pyiceberg_catalog("root", **seed_catalog_properties(server, name)).create_table(f"{NS}.clicks", schema)
    for start in range(0, 40, 10):
        table.append(pa.table({"id": list(range(start, start + 10))}, schema=schema))
    return name


@pytest.fixture
def aistor_config(server, warehouse) -> dict:
    """The panel attached to the service as a user who may do everything on the warehouse but run
    maintenance and read its history."""
    arns = [f"arn:aws:s3tables:::bucket/{warehouse}", f"arn:aws:s3tables:::bucket/{warehouse}/table/*"]
    access_key, secret_key = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3tables:*", "Resource": arns},
        {"Effect": "Allow", "Action": "s3:*", "Resource": [f"arn:aws:s3:::{warehouse}", f"arn:aws:s3:::{warehouse}/*"]},
        {"Effect": "Deny", "Action": DENIED, "Resource": arns},
    ]})
    return {"endpoint": server.endpoint + "/", "root_user": access_key, "root_password": secret_key,
            "default_warehouse": ""}


def command(run, jp_fetch, *argv: str):
    response = run(jp_fetch("aistor-lab", "api", "commands", method="POST", body=json.dumps({"argv": list(argv)})))
    return json.loads(response.body)["data"]


def refusal(run, jp_fetch, *argv: str) -> tuple[int, str]:
    with pytest.raises(HTTPClientError) as failure:
        command(run, jp_fetch, *argv)
    return failure.value.code, json.loads(failure.value.response.body)["error"]


def test_the_tab_reads_health_and_a_preview_and_is_told_what_it_may_not_do(extension, jp_fetch, run, warehouse):
    table = ["table", "maintenance"]
    where = [warehouse, NS, "clicks"]

    shown = command(run, jp_fetch, *table, "show", *where)
    health = shown["health"]
    assert (health["data-files"], health["small-files"], health["snapshots"], health["delete-files"]) == (4, 4, 4, 0)
    assert health["small-file-ratio"] == 1.0 and health["bytes"] > 0
    assert len(health["histogram"]["counts"]) == len(health["histogram"]["bounds"]) + 1
    assert sum(health["histogram"]["counts"]) == 4 and health["histogram"]["counts"][0] == 4
    assert shown["last-run"] is None
    assert {"value", "source", "help"} <= set(shown["settings"]["history.expire.max-snapshot-age-ms"])

    preview = command(run, jp_fetch, *table, "run", *where, "--dry-run")
    assert preview["dry-run"] is True and preview["errors"] == []
    for report in preview["operations"]:
        assert {"operation", "removed-files", "added-files", "marked-files", "removed-snapshots", "bytes-freed",
                "skipped"} <= set(report)
        assert {"count", "bytes", "files"} <= set(report["removed-files"])
    # The preview changed nothing.
    assert command(run, jp_fetch, *table, "show", *where)["health"] == health

    # "Access denied" tells the tab the service refused (Jupyter's own 403s say "Forbidden").
    code, message = refusal(run, jp_fetch, *table, "run", *where)
    assert code == 403 and "Access denied" in message and "s3tables:PutTableMaintenanceConfiguration" in message
    code, message = refusal(run, jp_fetch, *table, "history", *where)
    assert code == 403 and "s3tables:GetTableMaintenanceJobStatus" in message
    assert command(run, jp_fetch, *table, "show", *where)["health"]["snapshots"] == 4
