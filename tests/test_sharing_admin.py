"""The admin API of AIStor Table Sharing: shares as seed 004 builds them, tokens, OAuth clients,
bad input, and authorization."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from .conftest import admin_call
from .sharing_support import create_share, create_token, sharing_request, unique


def test_seed_004_share_lifecycle(server):
    """mc table share create / update --add / list / info / update --remove / remove."""
    name = unique("test")
    status, share = admin_call(server, "POST", "/shares", {
        "name": name, "schema": "tpch", "tables": ["orders:delta:testdelta:tpch/orders"],
        "description": "TPC-H for partners"})
    assert status == 201 and share["id"]
    status, share = admin_call(server, "PATCH", f"/shares/{name}",
                               {"add": ["tpch:customer:uniform:testice:tpch:customer"]})
    assert status == 200
    status, listed = admin_call(server, "GET", "/shares")
    assert status == 200
    assert {"name": name, "schemas": 1, "tables": 2, "description": "TPC-H for partners"}.items() \
        <= next(s for s in listed if s["name"] == name).items()
    status, info = admin_call(server, "GET", f"/shares/{name}")
    assert status == 200 and info["created"].endswith("Z") and info["updated"] >= info["created"]
    tables = [{k: v for k, v in t.items() if k != "id"} for t in info["schemas"][0]["tables"]]
    assert info["schemas"][0]["name"] == "tpch"
    assert tables == [
        {"name": "orders", "kind": "delta", "bucket": "testdelta", "location": "tpch/orders"},
        {"name": "customer", "kind": "uniform", "warehouse": "testice", "namespace": "tpch", "table": "customer"},
    ]
    status, info = admin_call(server, "PATCH", f"/shares/{name}", {"remove": ["tpch/orders"]})
    assert status == 200 and [t["name"] for t in info["schemas"][0]["tables"]] == ["customer"]
    token = create_token(server, name, expires="30d", description="test token")
    assert sharing_request(token["profile"], "GET", "/shares").status_code == 200
    status, removed = admin_call(server, "DELETE", f"/shares/{name}")
    assert status == 200 and removed["name"] == name
    assert admin_call(server, "GET", f"/shares/{name}")[0] == 404
    # Removing a share revokes its tokens, even if a share of that name comes back.
    create_share(server, "tpch", [], name=name)
    assert sharing_request(token["profile"], "GET", "/shares").status_code == 401


def test_table_specs_as_the_seeds_write_them(server):
    name = create_share(server, "default", ["revenue:uniform:warehouse-bucket:analytics.sales:revenue",
                                            "employees:delta:analytics:employees/"])
    info = admin_call(server, "GET", f"/shares/{name}")[1]
    revenue, employees = info["schemas"][0]["tables"]
    assert revenue["namespace"] == "analytics.sales" and revenue["warehouse"] == "warehouse-bucket"
    assert employees["location"] == "employees"  # the trailing slash is not part of the location
    # The last table of a schema going takes the schema with it.
    admin_call(server, "PATCH", f"/shares/{name}", {"remove": ["default/revenue", "DEFAULT/Employees"]})
    assert admin_call(server, "GET", f"/shares/{name}")[1]["schemas"] == []


@pytest.mark.parametrize("body", [
    {"name": "bad name", "schema": "s", "tables": []},
    {"name": "ok", "schema": "a.b", "tables": []},
    {"name": "ok", "schema": "s", "tables": ["t:parquet:b:p"]},
    {"name": "ok", "schema": "s", "tables": ["t:delta:b:"]},
    {"name": "ok", "schema": "s", "tables": ["t:uniform:w::t"]},
    {"name": "ok", "schema": "s", "tables": ["t:delta:bucket:p", "T:delta:bucket:q"]},
    {"name": "ok", "schema": "s", "tables": "t:delta:bucket:p"},
])
def test_bad_create_is_refused_and_creates_nothing(server, body):
    body = {**body, "name": body["name"] if body["name"] != "ok" else unique("ok")}
    status, error = admin_call(server, "POST", "/shares", body)
    assert status in (400, 409) and error["code"] in ("INVALID_PARAMETER_VALUE", "RESOURCE_ALREADY_EXISTS")
    assert error["message"]
    assert admin_call(server, "GET", f"/shares/{quote(body['name'])}")[0] == 404


def test_bad_update_changes_nothing(server):
    name = create_share(server, "s", ["t:delta:bucket:p"])
    before = admin_call(server, "GET", f"/shares/{name}")[1]
    for update in ({"add": ["s:u:delta:bucket:q"], "remove": ["s/missing"]},
                   {"add": ["s:u:delta:bucket:q", "s:t:delta:bucket:p"]},
                   {"add": ["u:delta:bucket:q"]},
                   {"remove": ["s.t"]}):
        status, error = admin_call(server, "PATCH", f"/shares/{name}", update)
        assert status in (400, 404, 409), error
    assert admin_call(server, "GET", f"/shares/{name}")[1] == before
    assert admin_call(server, "PATCH", "/shares/no-such-share", {"add": []})[0] == 404
    assert admin_call(server, "POST", "/shares", {"name": name, "schema": "s", "tables": []})[0] == 409


def test_tokens_are_listed_without_secrets_and_revoked(server):
    name = create_share(server, "s", [])
    first = create_token(server, name, expires="90d", description="one")
    second = create_token(server, name, description="no expiry")
    assert first["token"].startswith("dapi") and len(first["token"]) == 68
    assert first["profile"] == {"shareCredentialsVersion": 1, "endpoint": first["endpoint"],
                                "bearerToken": first["token"], "expirationTime": first["expirationTime"]}
    assert first["endpoint"] == f"{server.endpoint}/delta-sharing"
    assert "expirationTime" not in second["profile"]
    status, tokens = admin_call(server, "GET", f"/shares/{name}/tokens")
    assert status == 200 and [t["id"] for t in tokens] == [first["id"], second["id"]]
    assert all("token" not in t and first["token"] not in str(t) for t in tokens)
    assert admin_call(server, "DELETE", f"/shares/{name}/tokens/{first['id']}")[0] == 200
    assert admin_call(server, "DELETE", f"/shares/{name}/tokens/{first['id']}")[0] == 404
    assert [t["id"] for t in admin_call(server, "GET", f"/shares/{name}/tokens")[1]] == [second["id"]]
    for expires in ("soon", "0d", "-1d", "99999w"):
        status, error = admin_call(server, "POST", f"/shares/{name}/tokens", {"expires": expires})
        assert status == 400 and "expiry" in error["message"]
    assert admin_call(server, "POST", "/shares/no-such-share/tokens", {"expires": "1d"})[0] == 404


def test_oauth_clients_are_listed_and_deleted(server):
    name = create_share(server, "s", [])
    status, client = admin_call(server, "POST", f"/shares/{name}/clients", {"description": "partner"})
    assert status == 201 and client["clientSecret"]
    assert client["profile"]["tokenEndpoint"] == f"{server.endpoint}/delta-sharing/oauth/token"
    status, clients = admin_call(server, "GET", f"/shares/{name}/clients")
    assert [c["clientId"] for c in clients] == [client["clientId"]] and "clientSecret" not in clients[0]
    assert admin_call(server, "DELETE", f"/shares/{name}/clients/{client['clientId']}")[0] == 200
    assert admin_call(server, "GET", f"/shares/{name}/clients")[1] == []


def test_admin_api_needs_admin_rights(server):
    user, secret = unique("reader"), "reader-secret-1"
    assert admin_call(server, "POST", "/users", {"accessKey": user, "secretKey": secret,
                                                 "policies": ["readwrite"]})[0] == 201
    status, error = admin_call(server, "GET", "/shares", credentials=(user, secret))
    assert status == 403 and error["code"] == "AccessDenied"
    assert admin_call(server, "POST", "/shares", {"name": unique("x"), "schema": "s", "tables": []},
                      credentials=(user, "wrong-secret"))[0] == 403
    assert admin_call(server, "GET", "/shares/x/nothing-here")[0] == 404


def test_the_versions_recipients_may_read_are_bounded_and_named(server):
    """``GET .../schemas/S/tables/T/versions``: a table the share lacks is 404, a bad limit 400, and a
    table whose Delta log is missing says so in the sharing error format."""
    name = create_share(server, "s", ["t:delta:bucket:nowhere"])
    assert admin_call(server, "GET", f"/shares/{name}/schemas/s/tables/other/versions")[0] == 404
    for limit in ("0", "x", "1001"):
        status, error = admin_call(server, "GET", f"/shares/{name}/schemas/s/tables/t/versions?limit={limit}")
        assert status == 400 and "limit must be a number from 1 to 1000" in error["message"]
    status, error = admin_call(server, "GET", f"/shares/{name}/schemas/s/tables/t/versions")
    assert (status, error["code"]) == (404, "RESOURCE_DOES_NOT_EXIST") and "no Delta table" in error["message"]
