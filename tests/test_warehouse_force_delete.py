"""A warehouse deleted with all it holds in one call: DELETE /_iceberg/v1/warehouses/NAME?force=true."""

from __future__ import annotations

import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog

from .conftest import catalog_call, make_user, seed_catalog_properties
from .test_catalog_rest import view_request

ROWS = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b", "c"]})


def _filled_warehouse(server) -> tuple[str, list[str]]:
    """A warehouse with tables holding data in two namespaces (one nested) and a view; its name and
    the locations of what it holds."""
    warehouse = f"force-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] == 200
    catalog = load_catalog("aistor", **seed_catalog_properties(server, warehouse))
    locations = []
    for namespace in ("sales", "sales.eu", "ops"):
        catalog.create_namespace(namespace)
        table = catalog.create_table(f"{namespace}.orders", ROWS.schema)
        table.append(ROWS)
        locations.append(table.location())
    status, view = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces/ops/views",
                                view_request("recent", "ops", "SELECT * FROM orders"))
    assert status == 200, view
    locations.append(view["metadata"]["location"])
    return warehouse, locations


def _keys(s3, warehouse: str, location: str) -> list[str]:
    prefix = location.removeprefix(f"s3://{warehouse}/") + "/"
    return [obj["Key"] for obj in s3.list_objects_v2(Bucket=warehouse, Prefix=prefix).get("Contents", [])]


def test_force_delete_removes_everything_in_one_call(server, s3):
    warehouse, locations = _filled_warehouse(server)
    assert all(_keys(s3, warehouse, location) for location in locations)  # data and metadata were written
    assert catalog_call(server, "DELETE", f"/v1/warehouses/{warehouse}")[0] == 409  # not empty, without force

    status, body = catalog_call(server, "DELETE", f"/v1/warehouses/{warehouse}?force=true")
    assert status == 204, body
    assert catalog_call(server, "GET", f"/v1/warehouses/{warehouse}")[0] == 404
    assert warehouse not in catalog_call(server, "GET", "/v1/warehouses")[1]["warehouses"]
    # The bucket held only what the tables and the view wrote: it is gone with them.
    assert warehouse not in [b["Name"] for b in s3.list_buckets()["Buckets"]]
    # No catalog document outlived it: the same name starts empty.
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] == 200
    assert catalog_call(server, "GET", f"/v1/{warehouse}/namespaces")[1]["namespaces"] == []
    assert catalog_call(server, "DELETE", f"/v1/warehouses/{warehouse}?force=true")[0] == 204
    assert catalog_call(server, "DELETE", f"/v1/warehouses/{warehouse}?force=true")[0] == 404


@pytest.mark.parametrize("rights", ["no-table-rights", "one-namespace"])
def test_a_refused_force_delete_changes_nothing(server, s3, rights):
    """DeleteWarehouse alone is not enough: the caller needs the rights of deleting each namespace,
    table and view inside. A refusal leaves the warehouse whole and usable."""
    warehouse, locations = _filled_warehouse(server)
    statements = [{"Effect": "Allow", "Action": ["s3tables:DeleteWarehouse"],
                   "Resource": [f"arn:aws:s3tables:::bucket/{warehouse}"]}]
    if rights == "one-namespace":  # all of sales and the view; not sales.eu nor ops
        statements.append({"Effect": "Allow", "Action": ["s3tables:*"],
                           "Resource": [f"arn:aws:s3tables:::bucket/{warehouse}/table/sales/*",
                                        f"arn:aws:s3tables:::bucket/{warehouse}/view/*"]})
    user = make_user(server, {"Version": "2012-10-17", "Statement": statements})
    files_before = {location: _keys(s3, warehouse, location) for location in locations}

    status, body = catalog_call(server, "DELETE", f"/v1/warehouses/{warehouse}?force=true", credentials=user)
    assert status == 403, body
    assert body["error"]["type"] == "ForbiddenException"

    assert {location: _keys(s3, warehouse, location) for location in locations} == files_before
    catalog = load_catalog("aistor", **seed_catalog_properties(server, warehouse))
    for namespace in ("sales", "sales.eu", "ops"):
        assert catalog.load_table(f"{namespace}.orders").scan().to_arrow().sort_by("id") == ROWS
    assert catalog.view_exists("ops.recent")
    # The mark was taken back: the warehouse takes new namespaces and tables again.
    catalog.create_namespace("after")
    catalog.create_table("sales.later", ROWS.schema)


def test_a_user_with_every_right_may_force_delete(server):
    warehouse, _ = _filled_warehouse(server)
    user = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3tables:DeleteWarehouse", "s3tables:DeleteNamespace",
                                       "s3tables:DeleteTable", "s3tables:DeleteView"],
         "Resource": [f"arn:aws:s3tables:::bucket/{warehouse}", f"arn:aws:s3tables:::bucket/{warehouse}/*"]}]})
    assert catalog_call(server, "DELETE", f"/v1/warehouses/{warehouse}?force=true", credentials=user)[0] == 204
    assert catalog_call(server, "GET", f"/v1/warehouses/{warehouse}")[0] == 404
