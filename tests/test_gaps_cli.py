"""The ``mc table`` commands that mc has and ``aistor`` lacked, through the real CLI against a real server:
table rename and show, the view commands, ``warehouse create --ignore-existing|--upgrade-existing`` and
``warehouse remove --purge --force``. What each did is checked with PyIceberg and boto3."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call, make_s3_client, seed_catalog_properties

CLI = [sys.executable, "-m", "aistor_lab.workbench.aistor_cli"]
ALIAS = "gaps"


@pytest.fixture
def aistor(tmp_path, server):
    """The CLI, with an alias of the test server in the test's own configuration directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AISTOR_", "AWS_"))}
    env["AISTOR_CONFIG_DIR"] = str(tmp_path / "aistor-config")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*CLI, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              check=False)

    assert run("alias", "set", ALIAS, server.endpoint, ROOT_USER, ROOT_PASSWORD).returncode == 0
    return run


def ok(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, (done.stdout, done.stderr)
    return done.stdout


@pytest.fixture
def warehouse(server):
    name = f"gapcli-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": name})[0] == 200
    yield name
    catalog_call(server, "DELETE", f"/v1/warehouses/{name}?force=true")


def test_table_rename_and_show(aistor, server, warehouse):
    catalog = load_catalog("gaps", **seed_catalog_properties(server, warehouse))
    catalog.create_namespace("a")
    catalog.create_namespace("b")
    table = catalog.create_table(("a", "orders"), pa.schema([("id", pa.int64())]))
    table.append(pa.table({"id": [1, 2, 3]}))

    ok(aistor("table", "rename", ALIAS, warehouse, "a", "orders", "orders_2024"))
    ok(aistor("table", "rename", ALIAS, warehouse, "a", "orders_2024", "archived", "--namespace", "b"))
    assert catalog.list_tables("a") == [] and catalog.list_tables("b") == [("b", "archived")]
    assert catalog.load_table(("b", "archived")).scan().to_arrow()["id"].to_pylist() == [1, 2, 3]

    shown = json.loads(ok(aistor("table", "show", ALIAS, warehouse, "b", "archived", "--json")))
    assert shown["metadata"]["table-uuid"] == str(table.metadata.table_uuid)
    assert "Current snapshot" in ok(aistor("table", "show", ALIAS, warehouse, "b", "archived"))

    # Renaming onto an existing name, or a table that is not there, fails and changes nothing.
    catalog.create_table(("b", "taken"), pa.schema([("id", pa.int64())]))
    refused = aistor("table", "rename", ALIAS, warehouse, "b", "archived", "taken")
    assert refused.returncode != 0 and "exists" in refused.stderr.lower()
    assert aistor("table", "rename", ALIAS, warehouse, "a", "nothing", "x").returncode != 0
    assert sorted(catalog.list_tables("b")) == [("b", "archived"), ("b", "taken")]


def test_view_create_list_show_rename_drop(aistor, server, warehouse):
    catalog = load_catalog("gaps", **seed_catalog_properties(server, warehouse))
    catalog.create_namespace("sales")
    catalog.create_namespace("old")
    # mc's spelling, `table view ...`, with a dialect per query and properties.
    ok(aistor("table", "view", "create", ALIAS, warehouse, "sales", "monthly",
              "--sql", "SELECT * FROM orders WHERE month = 1", "--sql", "trino:SELECT * FROM orders WHERE month = 1",
              "--schema", "id long, month int", "-a", "owner=finance"))
    view = catalog.load_view(("sales", "monthly"))
    version = view.metadata.versions[0]
    assert {(r.root.dialect, r.root.sql) for r in version.representations} == {
        ("spark", "SELECT * FROM orders WHERE month = 1"), ("trino", "SELECT * FROM orders WHERE month = 1")}
    assert list(version.default_namespace) == ["sales"]
    assert view.metadata.properties["owner"] == "finance"
    assert [f.name for f in view.metadata.schemas[0].fields] == ["id", "month"]

    # Again: refused, unless --ignore-existing.
    again = ("view", "create", ALIAS, warehouse, "sales", "monthly", "--sql", "SELECT 2")
    assert aistor(*again).returncode != 0
    assert "already exists" in ok(aistor(*again, "--ignore-existing"))
    assert catalog.load_view(("sales", "monthly")).metadata.versions[0].representations[0].root.sql.endswith("= 1")

    assert json.loads(ok(aistor("view", "list", ALIAS, warehouse, "sales", "--json"))) == ["monthly"]
    shown = ok(aistor("view", "show", ALIAS, warehouse, "sales", "monthly"))
    assert "trino" in shown and "owner" in shown

    ok(aistor("view", "rename", ALIAS, warehouse, "sales", "monthly", "jan", "--namespace", "old"))
    assert catalog.list_views("sales") == [] and catalog.list_views("old") == [("old", "jan")]
    assert "exists" in ok(aistor("view", "exists", ALIAS, warehouse, "old", "jan"))
    ok(aistor("view", "drop", ALIAS, warehouse, "old", "jan"))
    assert catalog.list_views("old") == []
    gone = aistor("view", "exists", ALIAS, warehouse, "old", "jan")
    assert gone.returncode == 1 and "does not exist" in gone.stderr
    # Bad input says what is wrong and changes nothing.
    bad = aistor("view", "create", ALIAS, warehouse, "sales", "v", "--sql", "spark:SELECT 1", "--sql", "spark:SELECT 2")
    assert bad.returncode == 2 and "one per dialect" in bad.stderr
    assert aistor("view", "create", ALIAS, warehouse, "sales", "v").returncode == 2
    assert catalog.list_views("sales") == []


def test_warehouse_create_over_an_existing_bucket(aistor, server):
    name = f"gapbkt-{uuid.uuid4().hex[:8]}"
    s3 = make_s3_client(server.endpoint)
    s3.create_bucket(Bucket=name)
    s3.put_object(Bucket=name, Key="notes.txt", Body=b"kept")
    try:
        refused = aistor("warehouse", "create", ALIAS, name)
        assert refused.returncode != 0
        assert "not a warehouse" in refused.stderr and "upgrade-existing" in refused.stderr
        # --ignore-existing is about warehouses: a plain bucket is still refused.
        assert aistor("warehouse", "create", ALIAS, name, "--ignore-existing").returncode != 0
        assert name not in json.loads(ok(aistor("warehouse", "list", ALIAS, "--json")))

        assert "from the existing bucket" in ok(aistor("table", "warehouse", "create", ALIAS, name, "--upgrade-existing"))
        assert s3.get_object(Bucket=name, Key="notes.txt")["Body"].read() == b"kept"
        again = aistor("warehouse", "create", ALIAS, name)
        assert again.returncode != 0 and "Warehouse already exists" in again.stderr
        assert "already exists" in ok(aistor("warehouse", "create", ALIAS, name, "-p"))

        # remove: mc's flags; --purge alone is refused (it must be confirmed), nothing is removed.
        unconfirmed = aistor("table", "warehouse", "remove", ALIAS, name, "--purge")
        assert unconfirmed.returncode == 2 and "--force" in unconfirmed.stderr
        assert name in json.loads(ok(aistor("warehouse", "list", ALIAS, "--json")))
        catalog = load_catalog("gaps", **seed_catalog_properties(server, name))
        catalog.create_namespace("ns")
        table = catalog.create_table(("ns", "t"), pa.schema([("id", pa.int64())]))
        table.append(pa.table({"id": [1]}))
        assert aistor("warehouse", "remove", ALIAS, name).returncode != 0  # not empty
        ok(aistor("table", "warehouse", "remove", ALIAS, name, "--purge", "--force"))
        assert name not in json.loads(ok(aistor("warehouse", "list", ALIAS, "--json")))
        # The tables' files are purged; what the bucket held before it was a warehouse is kept.
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket=name).get("Contents", [])]
        assert keys == ["notes.txt"]
    finally:
        catalog_call(server, "DELETE", f"/v1/warehouses/{name}?force=true")
        for item in s3.list_objects_v2(Bucket=name).get("Contents", []):
            s3.delete_object(Bucket=name, Key=item["Key"])
        s3.delete_bucket(Bucket=name)
