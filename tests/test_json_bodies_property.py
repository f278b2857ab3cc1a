"""Property tests of the JSON bodies of every catalog and admin route that takes one, and of the
Delta Sharing query: whatever a client sends (any JSON value, any bytes, a valid body with one part
replaced by a value of another type, or a hostile classic such as deep nesting or duplicate keys),
the answer is a 2xx or a 4xx in the API's own error format, never a 5xx or a stack trace, and a
refused request leaves the server's state as it was.

The valid bodies are built so that sending them changes nothing either (they name things that exist,
or carry a requirement that fails), so every example starts from the same state.
"""

from __future__ import annotations

import copy
import json
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass

import pandas as pd
import pytest
import requests
from deltalake import write_deltalake
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aistor_lab.store.local.index import INDEX_FILE

from .conftest import admin_call, catalog_call, make_s3_client, service_with, signed_call
from .sharing_support import create_share, create_token, storage_options

WAREHOUSE = "propwh"
WRONG_UUID = "00000000-0000-0000-0000-000000000000"
SCHEMA = {"type": "struct", "schema-id": 0, "identifier-field-ids": [1], "fields": [
    {"id": 1, "name": "id", "type": "long", "required": True, "doc": "key"},
    {"id": 2, "name": "tags", "type": {"type": "list", "element-id": 3, "element": "string", "element-required": False},
     "required": False},
    {"id": 4, "name": "attrs", "required": False, "type": {
        "type": "map", "key-id": 5, "key": "string", "value-id": 6, "value": {
            "type": "struct", "fields": [{"id": 7, "name": "price", "type": "decimal(9, 2)", "required": False}]},
        "value-required": False}},
]}
SORT_ORDER = {"order-id": 1, "fields": [
    {"source-id": 1, "transform": "identity", "direction": "asc", "null-order": "nulls-first"}]}
PARTITION_SPEC = {"spec-id": 0, "fields": [{"source-id": 1, "field-id": 1000, "name": "id_bucket",
                                            "transform": "bucket[4]"}]}
VIEW_VERSION = {
    "version-id": 1, "timestamp-ms": 1700000000000, "schema-id": 0, "summary": {"engine-name": "spark"},
    "default-namespace": ["ns"], "default-catalog": "cat",
    "representations": [{"type": "sql", "sql": "SELECT 1 AS id", "dialect": "spark"}],
}
POLICY = {"Version": "2012-10-17",
          "Statement": [{"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": ["arn:aws:s3:::b/*"]}]}

# JSON values of every type, to put where a value of another type belongs.
REPLACEMENTS = [None, True, 0, -1, 2**63, 1.5, "", "x", [], [1], {}, {"x": 1}]
HOSTILE = {
    "deep-arrays": b"[" * 5000 + b"]" * 5000,
    "deep-objects": b'{"a":' * 3000 + b"1" + b"}" * 3000,
    "huge-float": b'{"name": 1e999}',
    "nan": b'{"name": NaN}',
    "infinity": b'{"name": -Infinity}',
    "huge-integer": b'{"name": ' + b"9" * 5000 + b"}",
    "int64-overflow": b'{"name": 9223372036854775808}',
    "duplicate-keys": b'{"name": "a", "name": "b"}',
    "not-utf8": b'{"name": "\xff\xfe"}',
    "utf16": '{"name": "a"}'.encode("utf-16"),
    "lone-surrogate": b'{"name": "\\ud800"}',
    "top-level-array": b"[]",
    "top-level-null": b"null",
    "top-level-string": b'"x"',
    "truncated": b'{"name": ',
}


@dataclass(frozen=True)
class Route:
    api: str  # catalog, admin or sharing
    method: str
    path: str
    valid: dict


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A server of its own with a warehouse, namespace, table and view, a user and a policy, and a
    shared Delta table; the routes and a valid body for each."""
    with service_with(tmp_path_factory, {}) as server:
        yield _build(server)


def _build(server) -> dict:
    def ok(result: tuple[int, object]) -> object:
        assert result[0] in (200, 201), result
        return result[1]

    ok(catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE}))
    prefix = f"/v1/{WAREHOUSE}"
    ok(catalog_call(server, "POST", f"{prefix}/namespaces", {"namespace": ["ns"], "properties": {"a": "b"}}))
    table = ok(catalog_call(server, "POST", f"{prefix}/namespaces/ns/tables", {
        "name": "t", "schema": SCHEMA, "partition-spec": PARTITION_SPEC, "write-order": SORT_ORDER}))
    ok(catalog_call(server, "POST", f"{prefix}/namespaces/ns/views",
                    {"name": "v", "schema": SCHEMA, "view-version": VIEW_VERSION, "properties": {}}))
    ok(admin_call(server, "PUT", "/policies/proppolicy", POLICY))
    ok(admin_call(server, "POST", "/users", {"accessKey": "propuser", "secretKey": "prop-secret-1",
                                             "policies": ["proppolicy"]}))
    make_s3_client(server.endpoint).create_bucket(Bucket="propdelta")
    write_deltalake("s3://propdelta/t", pd.DataFrame({"id": [1, 2], "part": ["a", "b"]}), partition_by=["part"],
                    storage_options=storage_options(server))
    share = create_share(server, "s", ["t:delta:propdelta:t"], name="propshare")
    token = create_token(server, share, expires="1d")["token"]

    identifier = {"namespace": ["ns"], "name": "t"}
    wrong_uuid = {"type": "assert-table-uuid", "uuid": WRONG_UUID}
    snapshot = {"snapshot-id": 7, "parent-snapshot-id": None, "sequence-number": 1, "timestamp-ms": 1700000000000,
                "manifest-list": f"{table['metadata']['location']}/metadata/snap-7.avro",
                "summary": {"operation": "append"}, "schema-id": 0}
    commit = {
        "identifier": identifier,
        "requirements": [wrong_uuid, {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None},
                         {"type": "assert-current-schema-id", "current-schema-id": 0}],
        "updates": [
            {"action": "add-schema", "schema": {**SCHEMA, "schema-id": 1}, "last-column-id": 7},
            {"action": "set-current-schema", "schema-id": -1},
            {"action": "add-spec", "spec": PARTITION_SPEC},
            {"action": "add-sort-order", "sort-order": SORT_ORDER},
            {"action": "set-properties", "updates": {"k": "v"}},
            {"action": "remove-properties", "removals": ["gone"]},
            {"action": "add-snapshot", "snapshot": snapshot},
            {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": 7,
             "max-ref-age-ms": 1000},
            {"action": "set-statistics", "statistics": {
                "snapshot-id": 7, "statistics-path": "s3://x/stats.puffin", "file-size-in-bytes": 10,
                "file-footer-size-in-bytes": 5,
                "blob-metadata": [{"type": "t", "snapshot-id": 7, "sequence-number": 1, "fields": [1]}]}},
            {"action": "add-encryption-key", "encryption-key": {"key-id": "k", "encrypted-key-metadata": "AA=="}},
        ],
    }
    view_commit = {
        "requirements": [{"type": "assert-view-uuid", "uuid": WRONG_UUID}],
        "updates": [{"action": "add-schema", "schema": SCHEMA},
                    {"action": "add-view-version", "view-version": {**VIEW_VERSION, "version-id": 2}},
                    {"action": "set-current-view-version", "view-version-id": -1},
                    {"action": "set-properties", "updates": {"k": "v"}}],
    }
    absent = {"namespace": ["ns"], "name": "absent"}
    sharing_query = {"predicateHints": ["id > 1"], "limitHint": 10, "version": 0, "jsonPredicateHints": json.dumps(
        {"op": "equal", "children": [{"op": "column", "name": "part", "valueType": "string"},
                                     {"op": "literal", "value": "a", "valueType": "string"}]})}
    routes = {
        "create-warehouse": Route("catalog", "POST", "/v1/warehouses", {"name": WAREHOUSE, "properties": {"o": "p"}}),
        "create-namespace": Route("catalog", "POST", f"{prefix}/namespaces",
                                  {"namespace": ["ns"], "properties": {"a": "b"}}),
        "namespace-properties": Route("catalog", "POST", f"{prefix}/namespaces/ns/properties",
                                      {"removals": ["absent"], "updates": {}}),
        "create-table": Route("catalog", "POST", f"{prefix}/namespaces/ns/tables", {
            "name": "t", "schema": SCHEMA, "partition-spec": PARTITION_SPEC, "write-order": SORT_ORDER,
            "stage-create": False, "properties": {"format-version": "2"}}),
        "register-table": Route("catalog", "POST", f"{prefix}/namespaces/ns/register",
                                {"name": "t", "metadata-location": table["metadata-location"], "overwrite": False}),
        "commit-table": Route("catalog", "POST", f"{prefix}/namespaces/ns/tables/t", commit),
        "report-metrics": Route("catalog", "POST", f"{prefix}/namespaces/ns/tables/t/metrics", {
            "report-type": "scan-report", "table-name": "ns.t", "snapshot-id": 7, "filter": {"type": "true"},
            "schema-id": 0, "projected-field-ids": [1], "projected-field-names": ["id"], "metrics": {}}),
        "rename-table": Route("catalog", "POST", f"{prefix}/tables/rename",
                              {"source": absent, "destination": {"namespace": ["ns"], "name": "t2"}}),
        "commit-transaction": Route("catalog", "POST", f"{prefix}/transactions/commit", {"table-changes": [
            {"identifier": identifier, "requirements": [wrong_uuid],
             "updates": [{"action": "set-properties", "updates": {"k": "v"}}]}]}),
        "create-view": Route("catalog", "POST", f"{prefix}/namespaces/ns/views",
                             {"name": "v", "schema": SCHEMA, "view-version": VIEW_VERSION, "properties": {}}),
        "commit-view": Route("catalog", "POST", f"{prefix}/namespaces/ns/views/v", view_commit),
        "rename-view": Route("catalog", "POST", f"{prefix}/views/rename",
                             {"source": absent, "destination": {"namespace": ["ns"], "name": "v2"}}),
        "create-user": Route("admin", "POST", "/users",
                             {"accessKey": "propuser", "secretKey": "prop-secret-1", "policies": ["proppolicy"]}),
        "user-status": Route("admin", "PUT", "/users/propuser/status", {"status": "enabled"}),
        "put-policy": Route("admin", "PUT", "/policies/proppolicy", POLICY),
        "create-share": Route("admin", "POST", "/shares", {"name": share, "schema": "s",
                                                          "tables": ["t:delta:propdelta:t"], "description": ""}),
        "update-share": Route("admin", "PATCH", f"/shares/{share}", {"add": [], "remove": [], "description": ""}),
        "create-token": Route("admin", "POST", f"/shares/{share}/tokens", {"expires": "1d", "description": "d"}),
        "create-client": Route("admin", "POST", f"/shares/{share}/clients", {"description": "d"}),
        "sharing-query": Route("sharing", "POST", f"/delta-sharing/shares/{share}/schemas/s/tables/t/query",
                               sharing_query),
        "sharing-query-from": Route("sharing", "POST", f"/delta-sharing/shares/{share}/schemas/s/tables/t/query",
                                    {"startingVersion": 0, "endingVersion": 0, "maxFiles": 5,
                                     "includeHistoricalMetadata": True}),
    }
    return {"server": server, "routes": routes, "token": token, "share": share, "metadata": table["metadata"]}


ROUTES = [
    "create-warehouse", "create-namespace", "namespace-properties", "create-table", "register-table",
    "commit-table", "report-metrics", "rename-table", "commit-transaction", "create-view", "commit-view",
    "rename-view", "create-user", "user-status", "put-policy", "create-share", "update-share", "create-token",
    "create-client", "sharing-query", "sharing-query-from",
]
# Routes whose valid body changes something: a new token or client, the time a share was updated.
CHANGING = {"create-token", "create-client", "update-share"}


def send(world: dict, route: Route, data: bytes):
    server = world["server"]
    if route.api == "catalog":
        return signed_call(server, route.method, f"/_iceberg{route.path}", data,
                           headers={"Content-Type": "application/json"}, service="s3tables")
    if route.api == "admin":
        return signed_call(server, route.method, f"/_aistor/admin/v1{route.path}", data)
    return requests.request(route.method, server.endpoint + route.path, data=data, timeout=30,
                            headers={"Authorization": f"Bearer {world['token']}", "Content-Type": "application/json"})


def state(world: dict) -> list:
    """Every bucket, object (by ETag) and multipart upload of the server's store: the whole of its state,
    since the catalog, the users, policies and shares live in its system bucket. The sharing audit log
    is left out: it records refused queries too, by design."""
    (index,) = world["server"].data_dir.glob(f"**/{INDEX_FILE}")
    with closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as db:
        return [db.execute(query).fetchall() for query in (
            "SELECT name FROM buckets ORDER BY name",
            ("SELECT bucket, key, etag FROM objects WHERE CAST(key AS TEXT) NOT LIKE 'sharing/audit/%'"
             " ORDER BY bucket, key"),
            "SELECT upload_id FROM uploads ORDER BY upload_id")]


def same_state(before: list, after: list) -> bool:
    """``after == before``, and when not, an assertion error that names what changed."""
    changed = [sorted(set(a) ^ set(b))[:5] for a, b in zip(before, after)]
    assert after == before, f"the store changed: {changed}"
    return True


def check_answer(route: Route, response) -> int:
    """The answer is a 2xx, or a 4xx in the API's error format; returns the status."""
    status, content = response.status_code, response.content
    assert b"Traceback" not in content
    assert 200 <= status < 300 or 400 <= status < 500, (status, content[:500])
    if status >= 400:
        body = json.loads(content)
        if route.api == "catalog":
            error = body["error"]
            assert error["code"] == status and error["type"].endswith("Exception")
            assert isinstance(error["message"], str)
        elif route.api == "admin":
            assert isinstance(body["code"], str) and isinstance(body["message"], str)
        else:
            assert isinstance(body["errorCode"], str) and isinstance(body["message"], str)
    return status


def check_request(world: dict, name: str, data: bytes) -> int:
    route = world["routes"][name]
    before = state(world)
    status = check_answer(route, send(world, route, data))
    if status >= 400:
        assert same_state(before, state(world)), f"{name} was refused ({status})"
    return status


def answer(response) -> dict:
    return json.loads(response.content)


def json_bytes(value: object) -> bytes:
    return json.dumps(value).encode()


def json_kind(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return "int" if -(2**63) <= value < 2**63 else "bigint"
    return type(value).__name__


def parts(value: object, path: tuple = ()) -> list[tuple]:
    """The path of every value inside a JSON value (not the value itself)."""
    found = []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, child in children:
        found.append((*path, key))
        found.extend(parts(child, (*path, key)))
    return found


def replaced(value: object, path: tuple, new: object) -> object:
    copied = copy.deepcopy(value)
    target = copied
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return copied


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
PROPERTY = settings(max_examples=8, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def test_valid_bodies_change_nothing(world):
    """The ground the other tests stand on: every valid body is accepted in shape (never a 400 or 422)
    and, but for the few that change something, leaves the state as it was."""
    for name in ROUTES:
        route = world["routes"][name]
        before = state(world)
        status = check_answer(route, send(world, route, json_bytes(route.valid)))
        assert status not in (400, 422), (name, status)
        if name not in CHANGING:
            assert same_state(before, state(world)), name


@pytest.mark.parametrize("name", ROUTES)
@PROPERTY
@given(value=json_values)
def test_any_json_value(world, name, value):
    check_request(world, name, json_bytes(value))


@pytest.mark.parametrize("name", ROUTES)
@settings(PROPERTY, max_examples=5)
@given(data=st.binary(max_size=64))
def test_any_bytes(world, name, data):
    check_request(world, name, data)


@pytest.mark.parametrize("name", ROUTES)
@settings(PROPERTY, max_examples=15)
@given(data=st.data())
def test_valid_body_with_one_part_of_another_type(world, name, data):
    valid = world["routes"][name].valid
    path = data.draw(st.sampled_from(parts(valid)), label="path")
    old = valid
    for key in path:
        old = old[key]
    new = data.draw(st.sampled_from([v for v in REPLACEMENTS if json_kind(v) != json_kind(old)]), label="new")
    check_request(world, name, json_bytes(replaced(valid, path, new)))


@pytest.mark.parametrize("name", ROUTES)
def test_hostile_classics_are_refused(world, name):
    route, before = world["routes"][name], state(world)
    for label, data in HOSTILE.items():
        assert check_answer(route, send(world, route, data)) in range(400, 500), label
    assert same_state(before, state(world))


@pytest.mark.parametrize("name", ROUTES)
def test_empty_body(world, name):
    """Refused where a body is needed; routes whose fields are all optional may take it as ``{}``."""
    status = check_request(world, name, b"")
    assert status in range(400, 500) or name in ("namespace-properties", "user-status", "update-share",
                                                 "create-token", "create-client", "sharing-query",
                                                 "sharing-query-from"), status


def test_messages_say_what_is_wrong(world):
    """A refusal names the problem and where it is, in each API's own format."""
    routes = world["routes"]
    commit = routes["commit-table"].valid
    bad_action = replaced(commit, ("updates", 0, "action"), ["add-schema"])
    response = send(world, routes["commit-table"], json_bytes(bad_action))
    error = answer(response)["error"]
    assert (response.status_code, error["type"]) == (400, "BadRequestException")
    assert "body.updates[0]" in error["message"]
    response = send(world, routes["rename-table"], json_bytes({"source": {"namespace": [1], "name": "t"},
                                                                "destination": routes["rename-table"].valid["source"]}))
    assert response.status_code == 400 and "namespace" in answer(response)["error"]["message"]
    response = send(world, routes["create-user"], b'{"accessKey": "a", "accessKey": "b"}')
    assert response.status_code == 400 and answer(response)["code"] == "InvalidArgument"
    assert "duplicate key 'accessKey'" in answer(response)["message"]
    response = send(world, routes["put-policy"], b'{"Version": "2012-10-17", "Version": "2008-10-17"}')
    assert response.status_code == 400 and answer(response)["code"] == "MalformedPolicy"
    response = send(world, routes["sharing-query"], b'{"version": 1e999}')
    assert response.status_code == 400 and answer(response)["errorCode"] == "MALFORMED_REQUEST"


def test_a_view_needs_sql_representations(world):
    route = world["routes"]["create-view"]
    body = {**route.valid, "name": f"v{int(time.time() * 1000)}",
            "view-version": {**VIEW_VERSION, "representations": [{"type": "python", "sql": "1", "dialect": "x"}]}}
    before = state(world)
    response = send(world, route, json_bytes(body))
    assert response.status_code == 400 and "representation" in answer(response)["error"]["message"]
    assert same_state(before, state(world))


def register_file(world: dict, data: bytes, name: str):
    """Upload ``data`` as a metadata file into the warehouse and register it as table ``name``."""
    key = f"foreign/{name}.metadata.json"
    make_s3_client(world["server"].endpoint).put_object(Bucket=WAREHOUSE, Key=key, Body=data)
    route = world["routes"]["register-table"]
    body = {"name": name, "metadata-location": f"s3://{WAREHOUSE}/{key}"}
    before = state(world)
    status = check_answer(route, send(world, route, json_bytes(body)))
    if status >= 400:
        assert same_state(before, state(world))
    return status


@pytest.mark.parametrize("label", ["deep-arrays", "duplicate-keys", "nan", "top-level-array", "truncated"])
def test_a_registered_file_is_read_as_strictly_as_a_body(world, label):
    assert register_file(world, HOSTILE[label], f"hostile_{label.replace('-', '_')}") == 400


@settings(PROPERTY, max_examples=15)
@given(data=st.data())
def test_a_registered_file_with_one_part_of_another_type(world, data):
    """A metadata file the catalog did not write is refused, or registered and then loads."""
    prefix = f"/v1/{WAREHOUSE}/namespaces/ns/tables"
    metadata = world["metadata"]
    path = data.draw(st.sampled_from(parts(metadata)), label="path")
    old = metadata
    for key in path:
        old = old[key]
    new = data.draw(st.sampled_from([v for v in REPLACEMENTS if json_kind(v) != json_kind(old)]), label="new")
    name = f"foreign_{time.time_ns()}"
    if register_file(world, json_bytes(replaced(metadata, path, new)), name) < 300:
        load = catalog_call(world["server"], "GET", f"{prefix}/{name}")
        assert load[0] == 200, load
        commit = catalog_call(world["server"], "POST", f"{prefix}/{name}",
                              {"updates": [{"action": "set-properties", "updates": {"k": "v"}}]})
        assert commit[0] == 200, commit
        assert catalog_call(world["server"], "DELETE", f"{prefix}/{name}")[0] == 204
