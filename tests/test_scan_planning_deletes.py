"""Server-side scan planning of tables with merge-on-read deletes written by Spark (Iceberg's Java
library): position delete files at format-version 2, deletion vectors at 3. PyIceberg 0.12 with
``scan-planning-mode=server`` reads exactly the rows of its own planning, and of Spark."""

from __future__ import annotations

import uuid

import pytest
from pyiceberg.catalog import load_catalog
from pyiceberg.expressions import EqualTo, GreaterThan, In, LessThan, Or

from aistor_lab.workbench import spark as aistor_spark
from aistor_lab.workbench.service_config import ServiceConfig
from aistor_lab.workbench.spark.jars import ensure_kit

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call, seed_catalog_properties
from .spark_support import run_spark_sql

FILTERS = [None, EqualTo("region", "eu"), GreaterThan("id", 20), Or(EqualTo("region", "us"), LessThan("id", 7)),
           In("id", {0, 1, 5, 6, 25})]


@pytest.fixture(scope="module")
def warehouse(server):
    name = f"planning-deletes-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": name})[0] == 200
    yield name
    assert catalog_call(server, "DELETE", f"/v1/warehouses/{name}?force=true")[0] == 204


def rows(scan) -> list[tuple]:
    table = scan.to_arrow()
    return sorted(zip(*(table.column(name).to_pylist() for name in table.column_names)), key=repr)


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("format_version", ["2", "3"], ids=["position-deletes", "deletion-vectors"])
def test_server_planning_applies_spark_deletes(server, warehouse, format_version):
    table = f"t{format_version}"
    conf = aistor_spark.spark_conf(warehouse, service=ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD),
                                   kit=ensure_kit())
    inserts = [f"INSERT INTO ns.{table} VALUES ({i * 3}, 'eu'), ({i * 3 + 1}, 'us'), ({i * 3 + 2}, 'eu')"
               for i in range(10)]
    spark_rows = run_spark_sql(conf, [
        "CREATE NAMESPACE IF NOT EXISTS ns",
        (f"CREATE TABLE ns.{table} (id BIGINT, region STRING) USING iceberg PARTITIONED BY (region) "
         f"TBLPROPERTIES ('format-version'='{format_version}', 'write.delete.mode'='merge-on-read', "
         "'write.update.mode'='merge-on-read')"),
        *inserts,
        f"DELETE FROM ns.{table} WHERE id % 5 = 0",
        f"INSERT INTO ns.{table} VALUES (100, 'ap')",
        f"DELETE FROM ns.{table} WHERE id = 7",
        f"SELECT id, region FROM ns.{table} ORDER BY id",
    ])
    properties = seed_catalog_properties(server, warehouse)
    client = load_catalog("client-planning", **properties)
    planned = load_catalog("server-planning", **properties, **{"scan-planning-mode": "server"})

    status, body = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces/ns/tables/{table}/plan", {})
    assert status == 200 and body["status"] == "completed", body
    delete_files = body["delete-files"]
    assert delete_files and all(file["content"] == "position-deletes" for file in delete_files)
    if format_version == "3":
        assert all(file["file-format"] == "puffin" and file["referenced-data-file"].startswith("s3://")
                   and file["content-size-in-bytes"] > 0 and "content-offset" in file for file in delete_files)
    assert sum(len(task.get("delete-file-references", ())) > 0 for task in body["file-scan-tasks"]) >= 2

    assert sorted((tuple(row) for row in spark_rows), key=repr) == rows(planned.load_table(f"ns.{table}").scan())
    for row_filter in FILTERS:
        options = {} if row_filter is None else {"row_filter": row_filter}
        ours = client.load_table(f"ns.{table}").scan(**options)
        theirs = planned.load_table(f"ns.{table}").scan(**options)
        assert rows(theirs) == rows(ours), row_filter
        assert theirs.count() == ours.count(), row_filter
        ours_deletes = sorted(sorted(f.file_path for f in task.delete_files) for task in ours.plan_files())
        assert sorted(sorted(f.file_path for f in task.delete_files) for task in theirs.plan_files()) == ours_deletes
    # Time travel to before the deletes: no delete file applies.
    first_delete = next(s for s in planned.load_table(f"ns.{table}").snapshots() if s.summary.operation.value != "append")
    parent = first_delete.parent_snapshot_id
    ours = client.load_table(f"ns.{table}").scan(snapshot_id=parent)
    theirs = planned.load_table(f"ns.{table}").scan(snapshot_id=parent)
    assert rows(theirs) == rows(ours) and len(rows(theirs)) == 30
