"""The side panel's API for what the store holds, under a real Jupyter server (pytest-jupyter)
attached to the test service: buckets and objects (pages, table detection, details, streamed upload
and download, deletes), Delta tables in buckets, the search, token states, shared tables as a
recipient sees them, and share entries checked when given. Data is written with boto3, deltalake and
PyIceberg, as users write it."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
import uuid
from decimal import Decimal

import pandas as pd
import pyarrow as pa
import pytest
from deltalake import write_deltalake
from pyiceberg.catalog import load_catalog as pyiceberg_catalog
from pytest_jupyter.jupyter_server import *
from tornado.httpclient import HTTPClientError

from aistor_lab.workbench.browse.search import search
from aistor_lab.workbench.client import AIStorClient
from aistor_lab.workbench.jupyter.extension import kernel_environment
from aistor_lab.workbench.objects import object_client
from aistor_lab.workbench.service_config import ServiceConfig

from . import test_jupyter_extension as server_tests
from .conftest import ROOT_PASSWORD, ROOT_USER, seed_catalog_properties

run, extension = server_tests.run, server_tests.extension  # the extension's fixtures, used by name

EXPORTED = list(kernel_environment(ServiceConfig("http://x", "a", "b")))
API_ROUTES = [
    ("GET", "aistor-lab/api/buckets"),
    ("GET", "aistor-lab/api/buckets/some-bucket/objects"),
    ("DELETE", "aistor-lab/api/buckets/some-bucket/objects?key=k"),
    ("GET", "aistor-lab/api/buckets/some-bucket/object?key=k"),
    ("GET", "aistor-lab/api/buckets/some-bucket/download?key=k"),
    ("PUT", "aistor-lab/api/buckets/some-bucket/upload?key=k"),
    ("GET", "aistor-lab/api/buckets/some-bucket/delta?path=t"),
    ("GET", "aistor-lab/api/buckets/some-bucket/delta/rows?path=t"),
    ("GET", "aistor-lab/api/search?q=a"),
    ("GET", "aistor-lab/api/shares/some-share/schemas/s/tables/t"),
]
MiB = 1024 * 1024


@pytest.fixture
def jp_server_config(monkeypatch, server):
    """Jupyter attached to the session's test service (the extension exports it to os.environ:
    undone after each test)."""
    for name in EXPORTED:
        monkeypatch.delenv(name, raising=False)
    return {"ServerApp": {"jpserver_extensions": {"aistor_lab": True}, "allow_root": True},
            "AIStorLabApp": {"endpoint": server.endpoint, "default_warehouse": ""}}


@pytest.fixture
def api(run, jp_fetch, extension):
    """GET/POST/... a panel route and answer its JSON."""
    def call(route: str, method: str = "GET", body=None, **params):
        raw = body if isinstance(body, bytes) else None if body is None else json.dumps(body)
        response = run(jp_fetch(*route.split("/"), method=method, body=raw, params=params,
                                allow_nonstandard_methods=True))
        return json.loads(response.body)
    return call


@pytest.fixture
def refused(run, jp_fetch, extension):
    """The status and ``error`` of a request the panel must refuse."""
    def call(route: str, method: str = "GET", body=None, **params) -> tuple[int, str]:
        with pytest.raises(HTTPClientError) as failure:
            run(jp_fetch(*route.split("/"), method=method, body=body, params=params, allow_nonstandard_methods=True))
        return failure.value.code, json.loads(failure.value.response.body)["error"]
    return call


@pytest.fixture
def storage(server):
    return {"AWS_ENDPOINT_URL": server.endpoint, "AWS_ACCESS_KEY_ID": ROOT_USER,
            "AWS_SECRET_ACCESS_KEY": ROOT_PASSWORD, "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true"}


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# -- buckets and objects ---------------------------------------------------------------------------


def test_buckets_are_listed_with_their_warehouses_and_never_the_system_bucket(api, refused, s3, bucket):
    listed = {b["name"]: b for b in api("aistor-lab/api/buckets")}
    assert listed[bucket]["warehouse"] is False and listed[bucket]["created"].endswith("Z")
    assert not any("aistor-system" in name for name in listed)
    code, error = refused("aistor-lab/api/buckets/.aistor-system/objects")
    assert code == 400 and "not a bucket name" in error
    code, error = refused("aistor-lab/api/buckets/aistor-system/objects")
    assert 400 <= code < 500 and error


def test_a_prefix_is_listed_in_pages_with_its_tables_found(api, refused, s3, bucket, storage):
    for i in range(5):
        s3.put_object(Bucket=bucket, Key=f"files/f{i}.txt", Body=b"x" * i)
    write_deltalake(f"s3://{bucket}/files/people", pd.DataFrame({"id": [1, 2]}), storage_options=storage)
    s3.put_object(Bucket=bucket, Key="files/ice/metadata/00001-abc.metadata.json", Body=b"{}")
    s3.put_object(Bucket=bucket, Key="files/ice/data/a.parquet", Body=b"")
    s3.put_object(Bucket=bucket, Key="files/plain/readme.md", Body=b"")

    first = api(f"aistor-lab/api/buckets/{bucket}/objects", prefix="files/", limit="4")
    assert first["bucket"] == bucket and first["prefix"] == "files/" and first["table"] is None
    assert first["nextToken"]
    second = api(f"aistor-lab/api/buckets/{bucket}/objects", prefix="files/", limit="4",
                 continuation=first["nextToken"])
    assert second["nextToken"] is None
    folders = {f["prefix"]: f["table"] for f in first["folders"] + second["folders"]}
    assert folders == {"files/people/": "delta", "files/ice/": "iceberg", "files/plain/": None}
    objects = first["objects"] + second["objects"]
    assert [o["key"] for o in objects] == [f"files/f{i}.txt" for i in range(5)]
    assert [o["size"] for o in objects] == list(range(5)) and all(o["etag"] and o["lastModified"] for o in objects)

    table_root = api(f"aistor-lab/api/buckets/{bucket}/objects", prefix="files/people/")
    assert table_root["table"] == "delta" and [f["prefix"] for f in table_root["folders"]] == ["files/people/_delta_log/"]

    for limit in ("0", "1001", "many"):
        assert refused(f"aistor-lab/api/buckets/{bucket}/objects", limit=limit)[0] == 400
    code, error = refused("aistor-lab/api/buckets/no-such-bucket-here/objects")
    assert code == 404 and "does not exist" in error


def test_object_details(api, refused, s3, bucket):
    s3.put_object(Bucket=bucket, Key="docs/a b.csv", Body=b"id\n1\n", ContentType="text/csv",
                  Metadata={"owner": "data-team"})
    details = api(f"aistor-lab/api/buckets/{bucket}/object", key="docs/a b.csv")
    assert {k: details[k] for k in ("bucket", "key", "size", "contentType", "metadata", "storageClass")} == {
        "bucket": bucket, "key": "docs/a b.csv", "size": 5, "contentType": "text/csv",
        "metadata": {"owner": "data-team"}, "storageClass": "STANDARD"}
    assert details["etag"] == s3.head_object(Bucket=bucket, Key="docs/a b.csv")["ETag"].strip('"')
    assert refused(f"aistor-lab/api/buckets/{bucket}/object", key="docs/missing")[0] == 404
    assert refused(f"aistor-lab/api/buckets/{bucket}/object")[0] == 400
    assert refused(f"aistor-lab/api/buckets/{bucket}/object", key="bad\nkey")[0] == 400


def test_upload_in_parts_then_download_the_same_bytes(api, run, jp_fetch, s3, bucket):
    body = os.urandom(20 * MiB + 123)
    done = api(f"aistor-lab/api/buckets/{bucket}/upload", "PUT", body, key="big/blob.bin")
    assert done["size"] == len(body) and done["key"] == "big/blob.bin"
    assert done["etag"].endswith("-3")  # three parts of 8 MiB at most: a multipart upload
    small = api(f"aistor-lab/api/buckets/{bucket}/upload", "PUT", b"hello", key="small.txt")
    assert small["size"] == 5 and "-" not in small["etag"]  # one PutObject
    stored = s3.get_object(Bucket=bucket, Key="small.txt")
    assert stored["Body"].read() == b"hello" and stored["ContentType"] == "text/plain"  # typed by its name
    assert s3.head_object(Bucket=bucket, Key="big/blob.bin")["ContentType"] == "application/octet-stream"

    response = run(jp_fetch("aistor-lab", "api", "buckets", bucket, "download", params={"key": "big/blob.bin"}))
    assert response.body == body
    assert response.headers["Content-Disposition"].startswith('attachment; filename="blob.bin"')
    assert response.headers["Content-Type"] == "application/octet-stream"
    s3.put_object(Bucket=bucket, Key="pages/évite.html", Body=b"<script>1</script>", ContentType="text/html")
    page = run(jp_fetch("aistor-lab", "api", "buckets", bucket, "download", params={"key": "pages/évite.html"}))
    assert page.headers["Content-Type"] == "application/octet-stream"  # saved, never shown as a page
    assert page.headers["Content-Disposition"] == (
        "attachment; filename=\"_vite.html\"; filename*=UTF-8''%C3%A9vite.html")
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_an_upload_cut_off_leaves_no_parts_behind(extension, run, http_server_client, jp_http_port, jp_base_url,
                                                  jp_auth_header, s3, bucket):
    """The browser goes away after 10 MiB of 30: the multipart upload begun is aborted. The browser is
    a thread; Jupyter's loop runs while the test waits on it."""
    path = f"{jp_base_url}aistor-lab/api/buckets/{bucket}/upload?key=cut.bin"
    part_seen = threading.Event()

    def browser() -> None:
        with socket.create_connection(("127.0.0.1", jp_http_port), timeout=20) as connection:
            head = (f"PUT {path} HTTP/1.1\r\nHost: 127.0.0.1:{jp_http_port}\r\n"
                    f"Authorization: {jp_auth_header['Authorization']}\r\nContent-Length: {30 * MiB}\r\n\r\n")
            connection.sendall(head.encode() + os.urandom(10 * MiB))
            part_seen.wait(30)

    def uploads() -> list:
        return s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])

    async def until(predicate) -> bool:
        deadline = time.monotonic() + 30
        while not await asyncio.get_running_loop().run_in_executor(None, predicate):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.1)
        return True

    thread = threading.Thread(target=browser)
    thread.start()
    try:
        assert run(until(uploads))  # a part is on its way
    finally:
        part_seen.set()
        thread.join()
    assert run(until(lambda: not uploads()))
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)


def test_uploads_and_downloads_refuse_bad_names(refused, bucket):
    assert refused(f"aistor-lab/api/buckets/{bucket}/upload", "PUT", b"x")[0] == 400
    assert refused("aistor-lab/api/buckets/Bad_Bucket/upload", "PUT", b"x", key="k")[0] == 400
    code, error = refused(f"aistor-lab/api/buckets/{bucket}/download", key="nothing-here")
    assert code == 404 and error


def test_delete_a_key_and_a_folder(api, refused, s3, bucket):
    for key in ("keep.txt", "gone.txt", "dir/a", "dir/sub/b", "dirt"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"1")
    assert api(f"aistor-lab/api/buckets/{bucket}/objects", "DELETE", key="gone.txt") == {"deleted": 1}
    assert api(f"aistor-lab/api/buckets/{bucket}/objects", "DELETE", prefix="dir/") == {"deleted": 2}
    left = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"])
    assert left == ["dirt", "keep.txt"]
    # not a folder, nothing named, or both named: refused, nothing deleted
    for params in ({"prefix": "di"}, {"prefix": ""}, {}, {"key": "keep.txt", "prefix": "dir/"}):
        assert refused(f"aistor-lab/api/buckets/{bucket}/objects", "DELETE", **params)[0] == 400
    assert sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]) == ["dirt", "keep.txt"]


@pytest.mark.parametrize(("method", "path"), API_ROUTES)
def test_every_route_refuses_requests_without_the_token(extension, http_server_client, jp_base_url, run,
                                                        method, path):
    body = b"x" if method == "PUT" else None
    for headers in ({}, {"Authorization": "token not-the-token"}):
        response = run(http_server_client.fetch(jp_base_url + path, method=method, body=body, raise_error=False,
                                                headers=headers, allow_nonstandard_methods=True))
        assert response.code == 403
        assert b"minioadmin" not in response.body


# -- Delta tables ----------------------------------------------------------------------------------


def test_delta_table_details_and_rows(api, refused, bucket, storage):
    uri = f"s3://{bucket}/sales/orders"
    first = pd.DataFrame({"id": [1, 2, 3], "region": ["eu", "us", "eu"], "amount": [10.5, 20.0, 30.25]})
    write_deltalake(uri, first, partition_by=["region"], storage_options=storage)
    write_deltalake(uri, pd.DataFrame({"id": [4, 2**60], "region": ["us", "eu"], "amount": [1.0, 2.0]}),
                    mode="append", partition_by=["region"], storage_options=storage)

    details = api(f"aistor-lab/api/buckets/{bucket}/delta", path="sales/orders")
    assert (details["format"], details["location"], details["version"]) == ("delta", uri, 1)
    assert [(f["name"], f["type"]) for f in details["schema"]["fields"]] == [
        ("id", "long"), ("region", "string"), ("amount", "double")]
    assert details["partitionColumns"] == ["region"] and details["rowCount"] == 5
    assert details["fileCount"] == 4 and details["totalSizeBytes"] > 0
    assert [h["version"] for h in details["history"]] == [1, 0]
    assert details["history"][0]["operation"] == "WRITE"

    rows_path = f"aistor-lab/api/buckets/{bucket}/delta/rows"
    page = api(rows_path, path="sales/orders", sort="id:desc", limit="2")
    assert [c["name"] for c in page["columns"]] == ["id", "region", "amount"]
    assert page["rows"] == [[str(2**60), "eu", 2.0], [4, "us", 1.0]]  # beyond 2**53: exact text
    assert (page["total"], page["snapshotId"], page["offset"], page["limit"]) == (5, "1", 0, 2)
    second = api(rows_path, path="sales/orders", sort="id:desc", limit="2", offset="2")
    assert [row[0] for row in second["rows"]] == [3, 2]

    filtered = api(rows_path, path="sales/orders", filter="amount > 5 and region = 'eu'", sort="id")
    assert filtered["rows"] == [[1, "eu", 10.5], [3, "eu", 30.25]] and filtered["total"] == 2
    old = api(rows_path, path="sales/orders", version="0", sort="id")
    assert [row[0] for row in old["rows"]] == [1, 2, 3] and old["snapshotId"] == "0"

    for params in ({"filter": "amount >"}, {"filter": "nosuch = 1"}, {"sort": "nosuch"}, {"version": "7"},
                   {"version": "latest"}, {"limit": "many"}, {"filter": "read_text('/etc/passwd') is not null"}):
        code, error = refused(rows_path, path="sales/orders", **params)
        assert code == 400 and error, params
    code, error = refused(f"aistor-lab/api/buckets/{bucket}/delta", path="sales")
    assert code == 404 and "no Delta table" in error
    assert refused(f"aistor-lab/api/buckets/{bucket}/delta")[0] == 400


# -- search ----------------------------------------------------------------------------------------


def test_search_finds_what_the_tree_has_not_opened(api, refused, server, bucket, storage):
    word = uuid.uuid4().hex[:8]
    client = AIStorClient(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD))
    warehouse = f"wh-{word}"
    client.create_warehouse(warehouse)
    client.create_namespace(warehouse, "sales")
    client.create_namespace(warehouse, ["sales", "eu"])
    schema = {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "type": "long", "required": True}]}
    client.create_table(warehouse, ["sales", "eu"], f"orders_{word}", schema)
    client.create_table(warehouse, "sales", f"{word}", schema)
    write_deltalake(f"s3://{bucket}/people", pd.DataFrame({"id": [1]}), storage_options=storage)
    client.create_share(f"share-{word}", "hr", [f"people_{word}:delta:{bucket}:people"])

    found = api("aistor-lab/api/search", q=word.upper())
    assert found["complete"] is True and found["query"] == word.upper()
    results = found["results"]
    assert results[0] == {"kind": "table", "label": f"{warehouse}.sales.{word}", "warehouse": warehouse,
                          "namespace": "sales", "table": word}  # the exact name first
    assert {"kind": "table", "label": f"{warehouse}.sales.eu.orders_{word}", "warehouse": warehouse,
            "namespace": "sales.eu", "table": f"orders_{word}"} in results  # two levels down, never opened
    assert {"kind": "warehouse", "label": warehouse, "warehouse": warehouse} in results
    assert {"kind": "share", "label": f"share-{word}", "share": f"share-{word}"} in results
    assert {"kind": "shared-table", "label": f"share-{word}.hr.people_{word}", "share": f"share-{word}",
            "schema": "hr", "table": f"people_{word}"} in results
    assert {"kind": "bucket", "label": warehouse, "bucket": warehouse, "path": ""} in results
    ranks = [r["label"].rsplit(".", 1)[-1].lower().startswith(word) for r in results]
    assert ranks == sorted(ranks, reverse=True)  # names starting with the text before the others

    assert api("aistor-lab/api/search", q=f"nothing-{word}") == {"query": f"nothing-{word}", "results": [],
                                                                  "complete": True}
    assert api("aistor-lab/api/search", q=word, limit="2")["results"] == results[:2]
    assert refused("aistor-lab/api/search", q=" ")[0] == 400
    cut = search(client, object_client(client.config), word, max_calls=2)
    assert cut["complete"] is False


# -- shared tables ---------------------------------------------------------------------------------


def test_a_shared_table_as_a_recipient_sees_it(api, refused, server, bucket, storage):
    people = pd.DataFrame({"id": [1, 2, 3, 2**60], "name": ["ann", "bob", None, "big"], "team": ["a", "b", "a", "b"]})
    write_deltalake(f"s3://{bucket}/people", people, partition_by=["team"], storage_options=storage)
    share = unique("view")
    client = AIStorClient(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD))
    client.create_share(share, "HR", [f"people:delta:{bucket}:people"])

    seen = api(f"aistor-lab/api/shares/{share}/schemas/hr/tables/PEOPLE")
    assert (seen["share"], seen["schema"], seen["table"], seen["kind"]) == (share, "HR", "people", "delta")
    assert seen["source"] == f"s3://{bucket}/people" and seen["format"] == "parquet" and seen["version"] == 0
    assert [(f["name"], f["type"]) for f in seen["schemaFields"]] == [("id", "long"), ("name", "string"),
                                                                      ("team", "string")]
    assert seen["partitionColumns"] == ["team"]
    names = [c["name"] for c in seen["preview"]["columns"]]
    rows = sorted((dict(zip(names, row, strict=True)) for row in seen["preview"]["rows"]), key=lambda r: str(r["id"]))
    expected = [{"id": 1, "name": "ann", "team": "a"}, {"id": 2, "name": "bob", "team": "b"},
                {"id": 3, "name": None, "team": "a"}, {"id": str(2**60), "name": "big", "team": "b"}]
    assert rows == sorted(expected, key=lambda r: str(r["id"]))
    # the read went through the sharing server as a recipient's: audited, with a token revoked since
    assert {"query", "metadata"} <= {a["operation"] for a in seen["audit"]}
    assert all(a["table"] == "people" and a["status"] == 200 for a in seen["audit"])
    assert client.list_tokens(share) == []
    assert [v["version"] for v in seen["versions"]] == [0] and seen["versions"][0]["timestamp"] > 0

    code, error = refused(f"aistor-lab/api/shares/{share}/schemas/hr/tables/nobody")
    assert code == 404 and "no table" in error
    assert refused(f"aistor-lab/api/shares/no-{share}/schemas/hr/tables/people")[0] == 404


def test_a_shared_iceberg_table_as_a_recipient_sees_it(api, server):
    word = uuid.uuid4().hex[:8]
    warehouse = f"wh-{word}"
    client = AIStorClient(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD))
    client.create_warehouse(warehouse)
    client.create_namespace(warehouse, "sales")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("amount", pa.decimal128(10, 2))])
    table = pyiceberg_catalog("direct", **seed_catalog_properties(server, warehouse)).create_table(
        "sales.orders", schema=schema)
    table.append(pa.table({"id": [1, 2], "amount": [Decimal("1.50"), Decimal("20.00")]}, schema=schema))
    share = unique("ice")
    client.create_share(share, "s", [f"orders:uniform:{warehouse}:sales:orders"])

    seen = api(f"aistor-lab/api/shares/{share}/schemas/s/tables/orders")
    assert (seen["kind"], seen["source"]) == ("uniform", f"{warehouse}:sales:orders")
    assert [(f["name"], f["type"]) for f in seen["schemaFields"]] == [("id", "long"), ("amount", "decimal(10,2)")]
    assert sorted(seen["preview"]["rows"]) == [[1, "1.50"], [2, "20.00"]]  # decimals as their exact text
    assert {a["operation"] for a in seen["audit"]} >= {"query"}

    # Each snapshot is a version the recipient may read: newest first, with its commit time.
    table.append(pa.table({"id": [3], "amount": [Decimal("3.00")]}, schema=schema))
    versions = api(f"aistor-lab/api/shares/{share}/schemas/s/tables/orders")["versions"]
    assert len(versions) == len(seen["versions"]) + 1
    assert versions[0]["version"] > versions[1]["version"] and versions[0]["timestamp"] >= versions[1]["timestamp"]
    assert versions[0]["timestamp"] == table.refresh().metadata.current_snapshot().timestamp_ms


# -- share entries checked when given --------------------------------------------------------------


def test_share_entries_name_what_exists(api, refused, server, bucket, storage):
    """The workbench's share commands refuse entries naming what does not exist; a Delta path in an
    existing bucket is accepted with a warning (the table may be written after). Other clients of the
    admin API (mc) get the same findings as warnings."""
    word = uuid.uuid4().hex[:8]
    client = AIStorClient(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD))
    warehouse = f"wh-{word}"
    client.create_warehouse(warehouse)
    client.create_namespace(warehouse, "sales")
    schema = {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "type": "long", "required": True}]}
    client.create_table(warehouse, "sales", "orders", schema)
    write_deltalake(f"s3://{bucket}/people", pd.DataFrame({"id": [1]}), storage_options=storage)
    share = unique("checked")

    def command(*argv: str):
        return "aistor-lab/api/commands", "POST", json.dumps({"argv": list(argv)})

    for spec, missing in ((f"t:uniform:nowhere-{word}:sales:orders", f"warehouse 'nowhere-{word}' does not exist"),
                          (f"t:uniform:{warehouse}:nope:orders", "namespace 'nope' does not exist"),
                          (f"t:uniform:{warehouse}:sales:nope", "Iceberg table sales.nope does not exist"),
                          (f"t:delta:nobucket-{word}:people", f"bucket 'nobucket-{word}' does not exist")):
        code, error = refused(*command("share", "create", share, "s", spec))
        assert code == 404 and missing in error, (spec, error)
    assert refused(f"aistor-lab/api/shares/{share}")[0] == 404  # nothing was created

    created = api("aistor-lab/api/commands", "POST", {"argv": [
        "share", "create", share, "s", f"orders:uniform:{warehouse}:sales:orders", f"people:delta:{bucket}:people",
        f"later:delta:{bucket}:not/yet"]})
    assert created["data"]["warnings"] == [
        (f"table 'later': s3://{bucket}/not/yet holds no Delta table yet (no _delta_log/); recipients get an error "
         "until one is written there")]
    assert created["text"].splitlines()[1].startswith("Warning: table 'later'")
    code, error = refused(*command("share", "update", share, "--add", f"s:gone:uniform:{warehouse}:sales:gone"))
    assert code == 404 and "sales.gone does not exist" in error
    assert len(api(f"aistor-lab/api/shares/{share}")["schemas"][0]["tables"]) == 3

    # mc's clients name tables before they exist: accepted, with the findings as warnings
    other = client.create_share(unique("lenient"), "s", [f"t:uniform:nowhere-{word}:sales:orders"])
    assert other["warnings"] == [f"table 't': warehouse 'nowhere-{word}' does not exist"]
    assert "warnings" not in client.create_share(unique("fine"), "s", [f"p:delta:{bucket}:people"])


# -- token states ----------------------------------------------------------------------------------


def test_tokens_show_their_state(api, bucket, storage):
    share = unique("tokens")
    write_deltalake(f"s3://{bucket}/t", pd.DataFrame({"id": [1]}), storage_options=storage)
    api("aistor-lab/api/commands", "POST", {"argv": ["share", "create", share, "s", f"t:delta:{bucket}:t"]})
    made = {}
    for expires in ("1s", "2d", "30d", None):
        argv = ["share", "token", "create", share] + (["--expires", expires] if expires else [])
        made[expires] = api("aistor-lab/api/commands", "POST", {"argv": argv})["data"]["id"]
    time.sleep(1.2)
    states = {t["id"]: t["state"] for t in api(f"aistor-lab/api/shares/{share}/tokens")}
    assert states == {made["1s"]: "expired", made["2d"]: "expiring", made["30d"]: "valid", made[None]: "valid"}
    listed = api("aistor-lab/api/commands", "POST", {"argv": ["share", "token", "list", share]})
    assert listed["text"].splitlines()[0].split()[-1] == "state"
    rows = {line.split()[0]: line.split()[-1] for line in listed["text"].splitlines()[1:]}
    assert rows == states
