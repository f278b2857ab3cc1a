"""``aistor table migrate`` and ``aistor table register`` through the real CLI against a real server:
from a PyIceberg SQL catalog (SQLite) on local files, from another aistor-lab server (REST, SigV4), from a
directory of Hadoop tables written by Spark (partitioned, with position deletes). Each checks the rows
(checksums), time travel to an old snapshot, refs, properties and history on the target; a second run
copies and registers nothing; a run that fails half way is resumed by the next; a dry run changes nothing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import DoubleType, LongType, NestedField, StringType

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call, make_s3_client, seed_catalog_properties

CLI = [sys.executable, "-m", "aistor_lab.workbench.aistor_cli"]
SCHEMA = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "city", StringType(), required=False))
ROWS = [pa.table({"id": pa.array(range(start, start + 5), pa.int64()),
                  "city": pa.array([city] * 5, pa.string())}) for start, city in ((0, "Lisbon"), (5, "Oslo"), (10, "Porto"))]


def checksum(table: pa.Table) -> str:
    """Of the rows, whatever their order and the files they came from."""
    rows = sorted(json.dumps(row, sort_keys=True, default=str) for row in table.to_pylist())
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


@pytest.fixture
def aistor(server, tmp_path):
    """The CLI, with the server as the alias ``target``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AISTOR_", "AWS_"))}
    env["AISTOR_CONFIG_DIR"] = str(tmp_path / "aistor-config")

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run([*CLI, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                                check=False)
        assert not check or result.returncode == 0, result.stderr + result.stdout
        return result

    run("alias", "set", "target", server.endpoint, ROOT_USER, ROOT_PASSWORD)
    return run


@pytest.fixture
def target_warehouse(server):
    name = f"migrated-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": name})[0] == 200
    yield name
    catalog_call(server, "DELETE", f"/v1/warehouses/{name}?force=true")


def target_catalog(server, warehouse: str):
    return load_catalog("target", **seed_catalog_properties(server, warehouse))


def migrate(aistor, *args: str, check: bool = True) -> dict | subprocess.CompletedProcess:
    result = aistor("table", "migrate", "target", *args, "--json", check=check)
    return json.loads(result.stdout) if check else result


def by_table(report: dict) -> dict[str, dict]:
    return {row["table"]: row for row in report["tables"]}


def target_objects(server, warehouse: str) -> list[str]:
    s3 = make_s3_client(server.endpoint)
    return [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=warehouse)
            for o in page.get("Contents", [])]


def expected(table) -> dict:
    """What a target must show of a source table: rows of every snapshot, refs, properties, schemas, specs."""
    metadata = table.metadata
    return {
        "rows": {s.snapshot_id: checksum(table.scan(snapshot_id=s.snapshot_id).to_arrow()) for s in metadata.snapshots},
        "current": checksum(table.scan().to_arrow()), "current-id": metadata.current_snapshot_id,
        "refs": metadata.refs, "properties": metadata.properties, "schemas": metadata.schemas,
        "specs": metadata.partition_specs, "sort-orders": metadata.sort_orders, "log": metadata.snapshot_log,
    }


def assert_same_table(wanted: dict, target_table, warehouse: str) -> None:
    """The target's table shows what the source's did, reading only files of the warehouse."""
    metadata = target_table.metadata
    assert {s.snapshot_id for s in metadata.snapshots} == set(wanted["rows"])
    for snapshot_id, rows in wanted["rows"].items():  # time travel, to every snapshot
        assert checksum(target_table.scan(snapshot_id=snapshot_id).to_arrow()) == rows
        for task in target_table.scan(snapshot_id=snapshot_id).plan_files():
            assert all(f.startswith(f"s3://{warehouse}/") for f in [task.file.file_path,
                                                                    *(d.file_path for d in task.delete_files)])
    assert checksum(target_table.scan().to_arrow()) == wanted["current"]
    assert metadata.current_snapshot_id == wanted["current-id"] and metadata.refs == wanted["refs"]
    assert metadata.properties == wanted["properties"]
    assert metadata.schemas == wanted["schemas"] and metadata.partition_specs == wanted["specs"]
    assert metadata.sort_orders == wanted["sort-orders"] and metadata.snapshot_log == wanted["log"]
    assert metadata.location.startswith(f"s3://{warehouse}/")


# -- a SQL catalog (SQLite) on local files ---------------------------------------------------------


def sqlite_catalog(tmp_path) -> SqlCatalog:
    (tmp_path / "files").mkdir(exist_ok=True)
    return SqlCatalog("default", uri=f"sqlite:///{tmp_path / 'catalog.db'}", warehouse=f"file://{tmp_path / 'files'}")


def evolving_table(catalog, namespace: str, name: str):
    """Partitioned by city; three appends, a schema change, a copy-on-write delete, a tag and a branch."""
    table = catalog.create_table(
        (namespace, name), SCHEMA,
        partition_spec=PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "city")),
        properties={"owner": "migration-test", "format-version": "2"})
    table.append(ROWS[0])
    table.append(ROWS[1])
    table.manage_snapshots().create_tag(table.current_snapshot().snapshot_id, "first-two").commit()
    with table.update_schema() as update:
        update.add_column("score", DoubleType())
    table = catalog.load_table((namespace, name))
    table.append(ROWS[2].append_column("score", pa.array([1.5] * 5, pa.float64())))
    table.delete("id = 7")
    table.manage_snapshots().create_branch(table.current_snapshot().snapshot_id, "audit").commit()
    return catalog.load_table((namespace, name))


def test_from_a_sqlite_catalog_dry_run_then_migrate_then_again(server, aistor, target_warehouse, tmp_path):
    source = sqlite_catalog(tmp_path)
    source.create_namespace("sales", {"comment": "the sales tables"})
    source.create_namespace(("sales", "eu"))
    orders = evolving_table(source, "sales", "orders")
    evolving_table(source, "sales.eu", "returns")
    uri = f"sqlite:///{tmp_path / 'catalog.db'}"

    plan = migrate(aistor, uri, target_warehouse, "--dry-run")
    assert plan["dry-run"] and set(by_table(plan)) == {"sales.orders", "sales.eu.returns"}
    assert all(row["files-copied"] > 0 and row["outcome"] == "copied and registered" for row in plan["tables"])
    assert target_objects(server, target_warehouse) == []
    assert catalog_call(server, "GET", f"/v1/{target_warehouse}/namespaces")[1]["namespaces"] == []

    wanted = {name: expected(source.load_table(name)) for name in ("sales.orders", "sales.eu.returns")}
    report = by_table(migrate(aistor, uri, target_warehouse))
    assert all(row["parity"] is True for row in report.values()), report
    assert report["sales.orders"]["source"]["snapshots"] == len(orders.metadata.snapshots) == 4
    # The target reads its own copies: the source's files may go.
    shutil.move(tmp_path / "files", tmp_path / "files-aside")
    target = target_catalog(server, target_warehouse)
    for name, table_wanted in wanted.items():
        assert_same_table(table_wanted, target.load_table(name), target_warehouse)
    shutil.move(tmp_path / "files-aside", tmp_path / "files")
    assert target.load_namespace_properties("sales")["comment"] == "the sales tables"
    # The target's table is an ordinary one: it takes new commits.
    target.load_table("sales.orders").append(ROWS[0].append_column("score", pa.array([0.0] * 5, pa.float64())))

    again = migrate(aistor, uri, target_warehouse, "--namespace", "sales.eu")
    assert [row["table"] for row in again["tables"]] == ["sales.eu.returns"]
    row = again["tables"][0]
    assert row["outcome"] == "already registered" and row["files-copied"] == 0 and row["parity"] is True
    # A table changed in the target since is left alone, not overwritten.
    orders_row = by_table(migrate(aistor, uri, target_warehouse))["sales.orders"]
    assert orders_row["outcome"] == "exists with other metadata" and orders_row["files-copied"] == 0
