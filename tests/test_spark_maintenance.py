"""Table maintenance through Iceberg's Spark procedures (``table maintenance run --engine spark``) on a real
server, with real Spark on the offline jar kit: the settings the service resolves drive the procedures,
the rows survive compaction and expiry, and a dry run changes nothing.

One SparkSession serves the module (a JVM start costs seconds)."""

from __future__ import annotations

import hashlib
import json
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyarrow import fs
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.table.sorting import SortField, SortOrder
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import LongType, NestedField, StringType

from aistor_lab.workbench import spark as aistor_spark
from aistor_lab.workbench.client import ServiceConfig
from aistor_lab.workbench.commands.registry import execute, panel_front
from aistor_lab.workbench.spark.jars import ensure_kit

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call, make_s3_client, seed_catalog_properties

WAREHOUSE = "spark-maintenance"
SCHEMA = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "name", StringType(), required=False))
APPENDS = 40


@pytest.fixture(scope="module")
def spark(server):
    ensure_kit()
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})
    assert status in (200, 409), body
    session = aistor_spark.session(WAREHOUSE, app_name="aistor-lab-maintenance-tests", master="local[2]",
                                   endpoint=server.endpoint, access_key=ROOT_USER, secret_key=ROOT_PASSWORD,
                                   **{"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"})
    yield session
    session.stop()


@pytest.fixture
def small_files_table(server, spark):
    """A table of ``APPENDS`` PyIceberg appends of 25 rows: as many data files and snapshots."""
    catalog = load_catalog("maintenance", **seed_catalog_properties(server, WAREHOUSE))
    namespace = f"ns_{uuid.uuid4().hex[:8]}"
    catalog.create_namespace(namespace)
    table = catalog.create_table(f"{namespace}.events", SCHEMA)
    for number in range(APPENDS):
        first = number * 25
        table.append(pa.table({"id": pa.array(range(first, first + 25), pa.int64()),
                               "name": [f"row-{i}" for i in range(first, first + 25)]}))
    return catalog, namespace


def maintenance(server, spark, namespace: str, *args: str) -> dict:
    service = ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=WAREHOUSE)
    _, result = execute(["table", "maintenance", *args[:1], WAREHOUSE, namespace, "events", *args[1:]],
                        panel_front(), service=service, namespace={"spark": spark})
    assert "operation" in result.text()  # the service's run summary renders the record
    return result.data()


def checksum(rows: list[tuple]) -> tuple[int, str]:
    return len(rows), hashlib.sha256(json.dumps(sorted(rows)).encode()).hexdigest()


def pyiceberg_rows(catalog, namespace: str) -> list[tuple]:
    scanned = catalog.load_table(f"{namespace}.events").scan().to_arrow()
    return list(zip(scanned["id"].to_pylist(), scanned["name"].to_pylist(), strict=True))


def spark_rows(spark, namespace: str) -> list[tuple]:
    spark.sql(f"REFRESH TABLE {namespace}.events")
    return [tuple(row) for row in spark.sql(f"SELECT id, name FROM {namespace}.events").collect()]


def object_keys(server) -> dict[str, str]:
    s3 = make_s3_client(server.endpoint)
    return {o["Key"]: o["ETag"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=WAREHOUSE)
            for o in page.get("Contents", [])}


def data_files(catalog, namespace: str) -> int:
    return catalog.load_table(f"{namespace}.events").inspect.files().num_rows


def test_compaction_and_expiry_through_spark_keep_the_rows(server, spark, small_files_table):
    catalog, namespace = small_files_table
    expected = checksum(pyiceberg_rows(catalog, namespace))
    assert expected[0] == APPENDS * 25

    # A dry run plans and changes nothing: same metadata, same objects.
    location = catalog.load_table(f"{namespace}.events").metadata_location
    objects = object_keys(server)
    plan = maintenance(server, spark, namespace, "run", "--engine", "spark", "--dry-run",
                       "-o", "compact", "-o", "expire-snapshots", "-o", "remove-unreferenced-files")
    assert plan["dry-run"] and plan["engine"] == "spark" and not plan["errors"]
    compact_plan, expiry_plan, orphans_plan = plan["operations"]
    assert compact_plan["removed-files"]["count"] == APPENDS and compact_plan["added-files"]["count"] == 1
    assert "plan only" in compact_plan["note"]
    assert "no dry run" in expiry_plan["skipped"]
    assert orphans_plan["removed-files"]["count"] == 0
    assert catalog.load_table(f"{namespace}.events").metadata_location == location
    assert object_keys(server) == objects

    # Manifests: one per append, merged by rewrite_manifests into one; no data changes.
    record = maintenance(server, spark, namespace, "run", "--engine", "spark", "-o", "rewrite-manifests")
    assert not record["errors"], record["errors"]
    [manifests] = record["operations"]
    assert manifests["details"] == {"rewritten-manifests": APPENDS, "added-manifests": 1}
    assert manifests["snapshot-id"] is not None and data_files(catalog, namespace) == APPENDS

    # Compaction: the procedure, with the service's settings; the rows unchanged, the files fewer.
    record = maintenance(server, spark, namespace, "run", "--engine", "spark", "-o", "compact")
    assert not record["errors"], record["errors"]
    [compact] = record["operations"]
    assert compact["removed-files"]["count"] == APPENDS and compact["added-files"]["count"] == 1
    assert compact["added-files"]["bytes"] > 0 and compact["details"]["strategy"] == "binpack"
    assert compact["snapshot-id"] == str(catalog.load_table(f"{namespace}.events").current_snapshot().snapshot_id)
    assert data_files(catalog, namespace) == 1
    assert checksum(spark_rows(spark, namespace)) == expected
    assert checksum(pyiceberg_rows(catalog, namespace)) == expected

    # Expiry with retain_last: the service's settings say keep one, expire the rest at once.
    service = ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=WAREHOUSE)
    execute(["table", "maintenance", "set", WAREHOUSE, namespace, "events",
             "--property", "history.expire.max-snapshot-age-ms=0",
             "--property", "history.expire.min-snapshots-to-keep=1"], panel_front(), service=service)
    snapshots = len(catalog.load_table(f"{namespace}.events").snapshots())
    record = maintenance(server, spark, namespace, "run", "--engine", "spark", "-o", "expire-snapshots")
    assert not record["errors"], record["errors"]
    [expiry] = record["operations"]
    assert len(expiry["removed-snapshots"]) == snapshots - 1
    assert expiry["details"]["deleted"]["deleted_data_files_count"] == APPENDS
    table = catalog.load_table(f"{namespace}.events")
    assert len(table.snapshots()) == 1
    prefix = table.location().removeprefix(f"s3://{WAREHOUSE}/").rstrip("/") + "/data/"
    data_keys = [key for key in object_keys(server) if key.startswith(prefix)]
    assert len(data_keys) == 1  # the appends' files are gone from the store
    assert checksum(pyiceberg_rows(catalog, namespace)) == expected
    assert checksum(spark_rows(spark, namespace)) == expected

    # An orphan under the table's location, younger than the grace period: Spark's remove_orphan_files
    # refuses a grace period under 24 hours (in-flight commits), and the record says so; nothing is deleted.
    orphan = f"{prefix}orphan-{uuid.uuid4().hex}.parquet"
    make_s3_client(server.endpoint).put_object(Bucket=WAREHOUSE, Key=orphan, Body=b"not referenced")
    execute(["table", "maintenance", "set", WAREHOUSE, namespace, "events",
             "--property", "maintenance.unreferenced-files.grace-period-ms=0"], panel_front(), service=service)
    record = maintenance(server, spark, namespace, "run", "--engine", "spark", "-o", "remove-unreferenced-files")
    [error] = record["errors"]
    assert error["operation"] == "remove-unreferenced-files" and "less than 24 hours" in error["message"]
    assert orphan in object_keys(server)
    assert checksum(spark_rows(spark, namespace)) == expected


def test_a_sorted_table_of_another_warehouse_is_compacted_by_sort(server, spark):
    # The session's catalog is on WAREHOUSE: the run adds one for this warehouse to the session.
    warehouse = f"spark-sorted-{uuid.uuid4().hex[:6]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] == 200
    catalog = load_catalog("sorted", **seed_catalog_properties(server, warehouse))
    catalog.create_namespace("ns")
    table = catalog.create_table("ns.events", SCHEMA,
                                 sort_order=SortOrder(SortField(source_id=1, transform=IdentityTransform())))
    for first in (50, 10, 40, 0, 30, 20):  # out of order: the sort puts them in order
        table.append(pa.table({"id": pa.array(range(first, first + 10), pa.int64()),
                               "name": [f"row-{i}" for i in range(first, first + 10)]}))
    service = ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=warehouse)
    _, result = execute(["table", "maintenance", "run", warehouse, "ns", "events", "--engine", "spark", "-o", "compact"],
                        panel_front(), service=service, namespace={"spark": spark})
    record = result.data()
    assert not record["errors"], record["errors"]
    [compact] = record["operations"]
    assert compact["details"]["strategy"] == "sort" and compact["removed-files"]["count"] == 6
    [data_file] = catalog.load_table("ns.events").scan().plan_files()
    ids = pq.read_table(data_file.file.file_path.replace("s3://", ""),
                        filesystem=fs.S3FileSystem(access_key=ROOT_USER, secret_key=ROOT_PASSWORD,
                                                   endpoint_override=server.endpoint, region="us-east-1"))["id"]
    assert ids.to_pylist() == list(range(60))
