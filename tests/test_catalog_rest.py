"""REST catalog features PyIceberg does not reach: views, multi-table transactions, idempotency,
format versions and stage-create, exercised with SigV4-signed requests shaped as the spec says."""

from __future__ import annotations

import time
import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog

from .conftest import catalog_call, seed_catalog_properties

WAREHOUSE = "restwh"
SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "type": "long", "required": True},
    {"id": 2, "name": "name", "type": "string", "required": False},
]}


@pytest.fixture(scope="module")
def warehouse(server):
    status, _ = catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})
    assert status in (200, 409)
    return WAREHOUSE


@pytest.fixture
def namespace(server, warehouse):
    name = f"ns_{uuid.uuid4().hex[:8]}"
    status, _ = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces", {"namespace": [name]})
    assert status == 200
    return name


def create_table(server, namespace: str, name: str, **extra) -> dict:
    status, body = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables",
                                {"name": name, "schema": SCHEMA, **extra})
    assert status == 200, body
    return body


def view_request(name: str, namespace: str, sql: str, version: int = 1) -> dict:
    return {
        "name": name,
        "schema": SCHEMA,
        "view-version": {
            "version-id": version, "timestamp-ms": int(time.time() * 1000), "schema-id": 0,
            "summary": {"engine-name": "spark"}, "default-namespace": [namespace],
            "representations": [{"type": "sql", "sql": sql, "dialect": "spark"}],
        },
        "properties": {"comment": "test view"},
    }


@pytest.mark.parametrize("version", [1, 2])
def test_format_versions_1_and_2_with_pyiceberg(server, namespace, version):
    body = create_table(server, namespace, f"v{version}", properties={"format-version": str(version)})
    assert body["metadata"]["format-version"] == version
    catalog = load_catalog("aistor", **seed_catalog_properties(server, WAREHOUSE))
    table = catalog.load_table(f"{namespace}.v{version}")
    table.append(pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["a", "b"]},
                          schema=pa.schema([pa.field("id", pa.int64(), False), pa.field("name", pa.string())])))
    _status, loaded = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/v{version}")
    metadata = loaded["metadata"]
    assert len(metadata["snapshots"]) == 1 and len(metadata["metadata-log"]) == 1
    assert metadata["snapshot-log"][0]["snapshot-id"] == metadata["current-snapshot-id"]
    assert catalog.load_table(f"{namespace}.v{version}").scan().to_arrow().num_rows == 2


def test_format_version_3_row_lineage(server, namespace):
    """Each snapshot gets the table's next-row-id as its first-row-id; next-row-id moves past its rows."""
    body = create_table(server, namespace, "lineage", properties={"format-version": "3"})
    assert body["metadata"]["format-version"] == 3 and body["metadata"]["next-row-id"] == 0
    path = f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/lineage"
    parent = None
    for snapshot_id, added in ((101, 2), (102, 3)):
        snapshot = {
            "snapshot-id": snapshot_id, "sequence-number": snapshot_id - 100, "timestamp-ms": int(time.time() * 1000),
            "manifest-list": f"{body['metadata']['location']}/metadata/snap-{snapshot_id}.avro",
            "summary": {"operation": "append"}, "schema-id": 0, "added-rows": added,
            **({"parent-snapshot-id": parent} if parent else {}),
        }
        status, committed = catalog_call(server, "POST", path, {
            "requirements": [{"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": parent}],
            "updates": [{"action": "add-snapshot", "snapshot": snapshot},
                        {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": snapshot_id}],
        })
        assert status == 200, committed
        parent = snapshot_id
    metadata = committed["metadata"]
    assert [s["first-row-id"] for s in metadata["snapshots"]] == [0, 2]
    assert metadata["next-row-id"] == 5


def test_stage_create_then_commit_create(server, namespace):
    staged = create_table(server, namespace, "staged", **{"stage-create": True})
    status, _ = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/staged")
    assert status == 404  # staged, not created
    metadata = staged["metadata"]
    create = {
        "requirements": [{"type": "assert-create"}],
        "updates": [
            {"action": "assign-uuid", "uuid": metadata["table-uuid"]},
            {"action": "upgrade-format-version", "format-version": metadata["format-version"]},
            {"action": "add-schema", "schema": metadata["schemas"][0]},
            {"action": "set-current-schema", "schema-id": -1},
            {"action": "add-spec", "spec": {"spec-id": 0, "fields": []}},
            {"action": "set-default-spec", "spec-id": -1},
            {"action": "add-sort-order", "sort-order": {"order-id": 0, "fields": []}},
            {"action": "set-default-sort-order", "sort-order-id": -1},
            {"action": "set-location", "location": metadata["location"]},
        ],
    }
    status, committed = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/staged", create)
    assert status == 200, committed
    status, again = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/staged", create)
    assert status == 409 and again["error"]["type"] == "CommitFailedException"


def test_views_lifecycle_share_the_table_name_space(server, namespace):
    base = f"/v1/{WAREHOUSE}/namespaces/{namespace}"
    create_table(server, namespace, "orders")
    status, view = catalog_call(server, "POST", f"{base}/views", view_request("recent", namespace, "SELECT * FROM orders"))
    assert status == 200 and view["metadata"]["current-version-id"] == 1
    status, _error = catalog_call(server, "POST", f"{base}/views", view_request("orders", namespace, "SELECT 1"))
    assert status == 409  # a table already has that name
    assert catalog_call(server, "HEAD", f"{base}/views/recent")[0] == 204
    status, listed = catalog_call(server, "GET", f"{base}/views")
    assert listed["identifiers"] == [{"namespace": [namespace], "name": "recent"}]
    replaced_version = view_request("recent", namespace, "SELECT id FROM orders", version=2)["view-version"]
    status, replaced = catalog_call(server, "POST", f"{base}/views/recent", {
        "requirements": [{"type": "assert-view-uuid", "uuid": view["metadata"]["view-uuid"]}],
        "updates": [{"action": "add-view-version", "view-version": replaced_version},
                    {"action": "set-current-view-version", "view-version-id": -1}],
    })
    assert status == 200, replaced
    assert replaced["metadata"]["current-version-id"] == 2
    status, _ = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/views/rename", {
        "source": {"namespace": [namespace], "name": "recent"},
        "destination": {"namespace": [namespace], "name": "latest"}})
    assert status == 204
    assert catalog_call(server, "GET", f"{base}/views/recent")[0] == 404
    assert catalog_call(server, "DELETE", f"{base}/views/latest")[0] == 204
    assert catalog_call(server, "GET", f"{base}/views")[1]["identifiers"] == []


def test_multi_table_transaction_is_all_or_nothing(server, namespace):
    first, second = create_table(server, namespace, "t1"), create_table(server, namespace, "t2")

    def change(name: str, table: dict, schema_id: int) -> dict:
        return {
            "identifier": {"namespace": [namespace], "name": name},
            "requirements": [{"type": "assert-table-uuid", "uuid": table["metadata"]["table-uuid"]},
                             {"type": "assert-current-schema-id", "current-schema-id": schema_id}],
            "updates": [{"action": "set-properties", "updates": {"batch": "one"}}],
        }

    status, error = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/transactions/commit",
                                 {"table-changes": [change("t1", first, 0), change("t2", second, 99)]})
    assert status == 409, error
    for name in ("t1", "t2"):
        body = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/{name}")[1]
        assert "batch" not in body["metadata"].get("properties", {})
    status, _ = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/transactions/commit",
                             {"table-changes": [change("t1", first, 0), change("t2", second, 0)]})
    assert status == 204
    for name in ("t1", "t2"):
        body = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/{name}")[1]
        assert body["metadata"]["properties"]["batch"] == "one"


def test_idempotency_key_replays_the_first_answer(server, warehouse):
    name = f"idem_{uuid.uuid4().hex[:8]}"
    key = str(uuid.uuid4())
    first = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces", {"namespace": [name]},
                         headers={"Idempotency-Key": key})
    replay = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces", {"namespace": [name]},
                          headers={"Idempotency-Key": key})
    assert first == replay and first[0] == 200
    status, _ = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces", {"namespace": [name]})
    assert status == 409  # without the key, the same request is a conflict
    status, config = catalog_call(server, "GET", f"/v1/config?warehouse={warehouse}")
    assert config["idempotency-key-lifetime"]


def test_client_location_outside_the_warehouse_is_refused(server, namespace):
    status, error = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables",
                                 {"name": "elsewhere", "schema": SCHEMA, "location": "s3://other-bucket/t"})
    assert status == 400, error
    assert catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/elsewhere")[0] == 404


def test_unknown_endpoint_and_namespace_not_empty(server, namespace):
    status, error = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/nothing-here")
    assert status == 404 and "error" in error
    create_table(server, namespace, "keeps_it")
    status, error = catalog_call(server, "DELETE", f"/v1/{WAREHOUSE}/namespaces/{namespace}")
    assert status == 409 and error["error"]["type"] == "NamespaceNotEmptyException"
    status, error = catalog_call(server, "DELETE", f"/v1/warehouses/{WAREHOUSE}")
    assert status == 409
