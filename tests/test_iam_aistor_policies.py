"""Policies written from the AIStor documents work as written: the s3tables action names with their
warehouse aliases, table and view resources by name and by uuid, the s3tables condition keys, the
Delta Sharing admin names, and unknown action names refused when a policy is created."""

from __future__ import annotations

import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import ForbiddenError

from aistor_lab.iam import Policy, is_allowed, warehouse_arn

from .conftest import admin_call, catalog_call, documented_read_only_user, make_user, seed_catalog_properties
from .test_catalog_rest import SCHEMA, view_request

WAREHOUSE = "aistor-policies"
TABLE_ARN = f"arn:aws:s3tables:::bucket/{WAREHOUSE}/table"
VIEW_ARN = f"arn:aws:s3tables:::bucket/{WAREHOUSE}/view"
ROWS = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b", "c"]},
                schema=pa.schema([pa.field("id", pa.int64(), False), pa.field("name", pa.string())]))


def allow(actions, resources="*", **extra) -> dict:
    return {"Effect": "Allow", "Action": actions, "Resource": resources, **extra}


def deny(actions, resources="*", **extra) -> dict:
    return {"Effect": "Deny", "Action": actions, "Resource": resources, **extra}


def user_with(server, *statements: dict) -> tuple[str, str]:
    return make_user(server, {"Version": "2012-10-17", "Statement": list(statements)})


def status_of(server, method: str, path: str, credentials, body=None) -> int:
    return catalog_call(server, method, f"/v1/{WAREHOUSE}{path}", body, credentials=credentials)[0]


def create_table(server, namespace: str, name: str) -> str:
    """A new table (as root); its uuid."""
    status, body = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables",
                                {"name": name, "schema": SCHEMA})
    assert status == 200, body
    return body["metadata"]["table-uuid"]


def create_view(server, namespace: str, name: str) -> str:
    status, body = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/views",
                                view_request(name, namespace, "SELECT * FROM orders"))
    assert status == 200, body
    return body["metadata"]["view-uuid"]


@pytest.fixture(scope="module")
def catalog(server):
    """The warehouse, as root: namespaces sales and hr, tables sales.orders (three rows),
    sales.pub_stats and hr.salaries, views sales.recent and sales.other; their uuids by name."""
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})
    assert status in (200, 409), body
    root = load_catalog("root", **seed_catalog_properties(server, WAREHOUSE))
    for namespace in ("sales", "hr"):
        root.create_namespace_if_not_exists(namespace)
    uuids = {f"sales.{name}": create_table(server, "sales", name) for name in ("orders", "pub_stats")}
    uuids["hr.salaries"] = create_table(server, "hr", "salaries")
    root.load_table("sales.orders").append(ROWS)
    uuids.update({f"view:{name}": create_view(server, "sales", name) for name in ("recent", "other")})
    return uuids


@pytest.mark.parametrize("get_warehouse", ["s3tables:GetTableBucket", "s3tables:GetWarehouse"])
def test_the_documented_read_only_warehouse_policy_with_pyiceberg(server, catalog, get_warehouse):
    """The policy of the AIStor Tables deep dive, also with AIStor's warehouse name for GetTableBucket."""
    credentials = documented_read_only_user(server, WAREHOUSE, get_warehouse)
    reader = load_catalog("reader", **seed_catalog_properties(server, WAREHOUSE, *credentials))
    assert {("sales",), ("hr",)} <= set(reader.list_namespaces())
    assert ("sales", "orders") in reader.list_tables("sales")
    assert reader.load_table("sales.orders").scan().to_arrow().num_rows == 3
    # PyIceberg would fail earlier, writing data with the read-only credentials the catalog vends.
    commit = {"requirements": [], "updates": [{"action": "set-properties", "updates": {"k": "v"}}]}
    assert status_of(server, "POST", "/namespaces/sales/tables/orders", credentials, commit) == 403
    with pytest.raises(ForbiddenError):
        reader.create_namespace(f"ns_{uuid.uuid4().hex[:6]}")
    with pytest.raises(ForbiddenError):
        reader.drop_table("sales.pub_stats")


def test_one_table_granted_by_uuid_follows_it_through_a_rename(server, catalog):
    name = f"ledger_{uuid.uuid4().hex[:6]}"
    table_uuid = create_table(server, "sales", name)
    reader = user_with(server, allow("s3tables:GetTable", f"{TABLE_ARN}/{table_uuid}"))
    assert status_of(server, "GET", f"/namespaces/sales/tables/{name}", reader) == 200
    assert status_of(server, "HEAD", f"/namespaces/sales/tables/{name}", reader) == 204
    assert status_of(server, "GET", "/namespaces/sales/tables/orders", reader) == 403
    status, _ = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/tables/rename", {
        "source": {"namespace": ["sales"], "name": name}, "destination": {"namespace": ["hr"], "name": name}})
    assert status == 204
    assert status_of(server, "GET", f"/namespaces/hr/tables/{name}", reader) == 200
    create_table(server, "sales", name)  # the old name, another table
    assert status_of(server, "GET", f"/namespaces/sales/tables/{name}", reader) == 403


def test_views_authorize_against_view_resources(server, catalog):
    viewer = user_with(server, allow(["s3tables:GetView", "s3tables:ListViews"], f"{VIEW_ARN}/*"))
    assert status_of(server, "GET", "/namespaces/sales/views/recent", viewer) == 200
    assert status_of(server, "HEAD", "/namespaces/sales/views/other", viewer) == 204
    status, listed = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces/sales/views", credentials=viewer)
    assert status == 200 and {v["name"] for v in listed["identifiers"]} == {"recent", "other"}
    assert status_of(server, "GET", "/namespaces/sales/tables/orders", viewer) == 403
    assert status_of(server, "DELETE", "/namespaces/sales/views/recent", viewer) == 403
    # "All tables in a warehouse" is not its views.
    tables_only = user_with(server, allow("s3tables:*", f"{TABLE_ARN}/*"))
    assert status_of(server, "GET", "/namespaces/sales/tables/orders", tables_only) == 200
    assert status_of(server, "GET", "/namespaces/sales/views/recent", tables_only) == 403
    one_view = user_with(server, allow("s3tables:GetView", f"{VIEW_ARN}/{catalog['view:recent']}"))
    assert status_of(server, "GET", "/namespaces/sales/views/recent", one_view) == 200
    assert status_of(server, "GET", "/namespaces/sales/views/other", one_view) == 403


def test_a_deny_by_uuid_beats_an_allow_by_name(server, catalog):
    user = user_with(server, allow("s3tables:GetTable", f"{TABLE_ARN}/sales/*"),
                     deny("s3tables:GetTable", f"{TABLE_ARN}/{catalog['sales.pub_stats']}"))
    assert status_of(server, "GET", "/namespaces/sales/tables/orders", user) == 200
    assert status_of(server, "GET", "/namespaces/sales/tables/pub_stats", user) == 403


@pytest.mark.parametrize(("allowed", "denied", "method", "path"), [
    ("s3tables:GetWarehouse", "s3tables:GetTableBucket", "GET", f"/v1/warehouses/{WAREHOUSE}"),
    ("s3tables:GetTableBucket", "s3tables:GetWarehouse", "GET", f"/v1/config?warehouse={WAREHOUSE}"),
    ("s3tables:ListTableBuckets", "s3tables:ListWarehouses", "GET", "/v1/warehouses"),
    ("s3tables:UpdateTable", "s3tables:UpdateTableMetadataLocation", "POST",
     f"/v1/{WAREHOUSE}/namespaces/sales/tables/orders"),
])
def test_aliases_are_equivalent_and_a_deny_by_one_beats_an_allow_by_the_other(server, catalog, allowed, denied,
                                                                              method, path):
    body = {"requirements": [], "updates": []} if method == "POST" else None
    granted = user_with(server, allow(allowed))
    assert catalog_call(server, method, path, body, credentials=granted)[0] == 200
    refused = user_with(server, allow(allowed), deny(denied))
    status, error = catalog_call(server, method, path, body, credentials=refused)
    assert status == 403 and error["error"]["type"] == "ForbiddenException"


def test_sharing_admin_uses_the_aistor_action_names(server):
    for grant in ("admin:DeltaSharingListShares", "admin:ListTableShares", "admin:DeltaSharing"):
        assert admin_call(server, "GET", "/shares", credentials=user_with(server, allow(grant)))[0] == 200
    refused = user_with(server, allow("admin:DeltaSharingListShares"), deny("admin:ListTableShares"))
    status, error = admin_call(server, "GET", "/shares", credentials=refused)
    assert status == 403 and error["code"] == "AccessDenied"
    # Listing shares does not grant creating one.
    status, _ = admin_call(server, "POST", "/shares", {"name": "nope", "schema": "s", "tables": []},
                           credentials=user_with(server, allow("admin:DeltaSharingListShares")))
    assert status == 403


def test_sharing_a_table_granted_by_uuid(server, catalog):
    """The creator's own s3tables:GetTable may name the table by uuid, and a Deny by uuid refuses."""
    by_uuid = f"{TABLE_ARN}/{catalog['sales.orders']}"
    statements = [allow("admin:DeltaSharingCreateShare"), allow("s3tables:GetTable", by_uuid),
                  allow(["s3:GetObject", "s3:ListBucket"], [f"arn:aws:s3:::{WAREHOUSE}", f"arn:aws:s3:::{WAREHOUSE}/*"])]
    share = {"schema": "s", "tables": [f"t:uniform:{WAREHOUSE}:sales:orders"]}
    status, body = admin_call(server, "POST", "/shares", {"name": f"uuid-{uuid.uuid4().hex[:6]}", **share},
                              credentials=user_with(server, *statements))
    assert status == 201, body
    denied = user_with(server, *statements[:2], allow("s3tables:GetTable", f"{TABLE_ARN}/*"),
                       deny("s3tables:GetTable", by_uuid))
    status, body = admin_call(server, "POST", "/shares", {"name": f"uuid-{uuid.uuid4().hex[:6]}", **share},
                              credentials=denied)
    assert status == 403 and "s3tables:GetTable" in body["message"]


def test_condition_keys_namespace_table_and_view_names(server, catalog):
    def user(action: str, resource: str, operator: str, key: str, value: str) -> tuple[str, str]:
        return user_with(server, allow(action, resource, Condition={operator: {key: value}}))

    in_sales = user("s3tables:GetTable", f"{TABLE_ARN}/*", "StringEquals", "s3tables:namespace", "sales")
    assert status_of(server, "GET", "/namespaces/sales/tables/orders", in_sales) == 200
    assert status_of(server, "GET", "/namespaces/hr/tables/salaries", in_sales) == 403
    public = user("s3tables:GetTable", f"{TABLE_ARN}/*", "StringLike", "s3tables:tableName", "pub_*")
    assert status_of(server, "GET", "/namespaces/sales/tables/pub_stats", public) == 200
    assert status_of(server, "GET", "/namespaces/sales/tables/orders", public) == 403
    recent = user("s3tables:GetView", f"{VIEW_ARN}/*", "StringEquals", "s3tables:viewName", "recent")
    assert status_of(server, "GET", "/namespaces/sales/views/recent", recent) == 200
    assert status_of(server, "GET", "/namespaces/sales/views/other", recent) == 403
    not_hr = user_with(server, allow("s3tables:GetNamespace", f"{TABLE_ARN}/*"),
                       deny("s3tables:*", Condition={"StringEquals": {"s3tables:namespace": "hr"}}))
    assert status_of(server, "GET", "/namespaces/sales", not_hr) == 200
    assert status_of(server, "GET", "/namespaces/hr", not_hr) == 403


@pytest.mark.parametrize("action", ["s3:GetObjekt", "s3:Gte*", "s3tables:GetWarehuose", "admin:ListTableShare",
                                    "ec2:RunInstances"])
def test_unknown_actions_are_refused_when_the_policy_is_created(server, action):
    name = f"bad-{uuid.uuid4().hex[:6]}"
    status, error = admin_call(server, "PUT", f"/policies/{name}",
                               {"Version": "2012-10-17", "Statement": [allow(["s3:GetObject", action])]})
    assert (status, error["code"]) == (400, "MalformedPolicy")
    assert repr(action) in error["message"]
    assert admin_call(server, "GET", f"/policies/{name}")[0] == 404


@pytest.mark.parametrize("statement", [
    allow("s3:Get*"), allow("*"), allow("s3tables:*"), allow("S3Tables:get*"), allow("admin:DeltaSharing*"),
    allow("kms:*"), allow(["s3:PutBucketPolicy", "s3:GetReplicationConfiguration"], "arn:aws:s3:::b"),
    # AWS S3 Tables' example and MinIO's table-sharing administrator, as their documents write them.
    allow(["s3tables:CreateTableBucket", "s3tables:PutTableBucketPolicy", "s3tables:GetTableBucketPolicy",
           "s3tables:ListTableBuckets", "s3tables:GetTableBucket"], "arn:aws:s3tables:us-east-1:111122223333:bucket/*"),
    allow(["admin:DeltaSharingCreateShare", "admin:DeltaSharingUpdateShare", "admin:DeltaSharingGetShare",
           "admin:DeltaSharingListShares", "admin:DeltaSharingDeleteShare", "admin:DeltaSharingCreateToken",
           "admin:DeltaSharingListTokens", "admin:DeltaSharingDeleteToken"]),
])
def test_known_names_and_matching_wildcards_are_accepted(server, statement):
    name = f"ok-{uuid.uuid4().hex[:6]}"
    status, body = admin_call(server, "PUT", f"/policies/{name}", {"Version": "2012-10-17", "Statement": [statement]})
    assert status == 200, body


@pytest.mark.parametrize(("pattern", "action", "expected"), [
    ("s3tables:Get*", "s3tables:GetWarehouse", True),
    ("s3tables:*Warehouse", "s3tables:GetTableBucket", True),  # through its alias GetWarehouse
    ("s3tables:CreateWarehouse", "s3tables:CreateTableBucket", True),
    ("s3tables:CreateTableBucket", "s3tables:CreateWarehouse", True),
    ("s3tables:CreateTableBucket", "s3tables:DeleteWarehouse", False),
    ("s3tables:CreateTable", "s3tables:RegisterTable", True),  # as this server always asked
    ("s3tables:RegisterTable", "s3tables:CreateTable", False),
])
def test_action_names_and_their_aliases(pattern, action, expected):
    policy = Policy({"Version": "2012-10-17", "Statement": [allow(pattern)]})
    assert is_allowed([policy], action, warehouse_arn("wh")) is expected
    not_action = Policy({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "NotAction": pattern,
                                                                 "Resource": "*"}]})
    assert is_allowed([not_action], action, warehouse_arn("wh")) is not expected


def test_stored_policies_with_unknown_names_still_apply_their_denies():
    """A document stored before names were checked keeps its Deny statements."""
    stored = {"Version": "2012-10-17", "Statement": [allow(["s3:*", "s3:GetObjekt"]), deny("s3:DeleteObject")]}
    policy = Policy(stored, known_actions_only=False)
    assert is_allowed([policy], "s3:GetObject", "arn:aws:s3:::b/k")
    assert not is_allowed([policy], "s3:DeleteObject", "arn:aws:s3:::b/k")
