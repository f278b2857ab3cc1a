"""The table explorer's REST API under a real Jupyter server (pytest-jupyter) and a real service:
pages of rows (sorted, filtered, of older snapshots), the rendering of every kind of cell, table
overviews and schema history, column profiles and view details. Tables are written by PyIceberg."""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

import pyarrow as pa
import pytest
from pyiceberg.types import LongType, StringType
from pytest_jupyter.jupyter_server import *
from tornado.httpclient import HTTPClientError

from aistor_lab.workbench.client import AIStorClient, load_catalog

from . import test_jupyter_extension as server_tests

# The Jupyter server with the extension, as the extension's own tests start it.
isolated_env, aistor_config, jp_server_config = server_tests.isolated_env, server_tests.aistor_config, \
    server_tests.jp_server_config
run, extension = server_tests.run, server_tests.extension

WAREHOUSE = "analytics"
ORDERS = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string()),
                    pa.field("amount", pa.float64())])


def new_namespace() -> str:
    namespace = f"explore_{uuid.uuid4().hex[:8]}"
    AIStorClient.from_env().create_namespace(WAREHOUSE, namespace)
    return namespace


def orders(start: int, count: int) -> pa.Table:
    ids = list(range(start, start + count))
    return pa.table({"id": ids, "name": [f"n{i % 7}" for i in ids],
                     "amount": [None if i % 10 == 0 else i * 1.5 for i in ids]}, schema=ORDERS)


def get(run, jp_fetch, path: str, **params: str):
    return json.loads(run(jp_fetch(*path.split("/"), params=params)).body)


def get_error(run, jp_fetch, path: str, **params: str) -> tuple[int, dict]:
    with pytest.raises(HTTPClientError) as failure:
        get(run, jp_fetch, path, **params)
    return failure.value.code, json.loads(failure.value.response.body)


def table_path(namespace: str, table: str, part: str = "") -> str:
    return f"aistor-lab/api/warehouses/{WAREHOUSE}/namespaces/{namespace}/tables/{table}" + (f"/{part}" if part else "")


def rows(run, jp_fetch, namespace: str, table: str, **params: str) -> dict:
    return get(run, jp_fetch, table_path(namespace, table, "rows"), **params)


def test_rows_page_sort_filter_and_travel_in_time(extension, jp_fetch, run):
    namespace = new_namespace()
    table = load_catalog().create_table(f"{namespace}.orders", schema=ORDERS)
    for start in (0, 40, 80):  # three appends: three data files
        table.append(orders(start, 40))
        time.sleep(0.01)
    first, _, third = table.metadata.snapshots

    # Unsorted pages cut across the files, and together they hold every row once.
    seen = []
    for offset in range(0, 120, 25):
        page = rows(run, jp_fetch, namespace, "orders", offset=str(offset), limit="25")
        assert page["offset"] == offset and page["limit"] == 25 and page["snapshotId"] == str(third.snapshot_id)
        seen += [row[0] for row in page["rows"]]
    assert sorted(seen) == list(range(120))
    assert page["columns"] == [{"name": "id", "type": "long"}, {"name": "name", "type": "string"},
                               {"name": "amount", "type": "double"}]
    assert page["total"] == 120

    descending = rows(run, jp_fetch, namespace, "orders", limit="3", sort="id:desc")
    assert [row[0] for row in descending["rows"]] == [119, 118, 117]
    by_name = rows(run, jp_fetch, namespace, "orders", limit="3", offset="1", sort="name:asc,id:desc")
    assert by_name["rows"] == [[112, "n0", 168.0], [105, "n0", 157.5], [98, "n0", 147.0]]

    filtered = rows(run, jp_fetch, namespace, "orders", filter="id >= 100 and name = 'n3'", sort="id",
                    columns="id,name")
    assert filtered["rows"] == [[101, "n3"], [108, "n3"], [115, "n3"]] and filtered["total"] == 3
    assert [c["name"] for c in filtered["columns"]] == ["id", "name"]
    nulls = rows(run, jp_fetch, namespace, "orders", filter="amount is null", limit="1000")
    assert sorted(row[0] for row in nulls["rows"]) == list(range(0, 120, 10))

    # Older snapshots: by id, by time, by tag.
    old = rows(run, jp_fetch, namespace, "orders", snapshot=str(first.snapshot_id), sort="id:desc", limit="1")
    assert old["rows"][0][0] == 39 and old["total"] == 40 and old["snapshotId"] == str(first.snapshot_id)
    as_of = datetime.fromtimestamp(first.timestamp_ms / 1000, UTC).isoformat()
    then = rows(run, jp_fetch, namespace, "orders", asOf=as_of, sort="id:desc", limit="1")
    assert then["snapshotId"] == str(first.snapshot_id) and then["rows"][0][0] == 39
    in_ms = rows(run, jp_fetch, namespace, "orders", asOf=str(third.timestamp_ms - 1), limit="0")
    assert in_ms["snapshotId"] == str(table.metadata.snapshots[1].snapshot_id) and in_ms["total"] == 80
    table.manage_snapshots().create_tag(first.snapshot_id, "v1").commit()
    tagged = rows(run, jp_fetch, namespace, "orders", ref="v1", limit="0")
    assert tagged["snapshotId"] == str(first.snapshot_id) and tagged["total"] == 40

    for query, message in [
        ({"filter": "id >"}, "cannot read the filter"),
        ({"filter": "nope = 1"}, "nope"),
        ({"filter": "id = 'abc'"}, "abc"),
        ({"filter": "name like 5"}, "cannot read the filter"),
        ({"sort": "nope:asc"}, "cannot sort by 'nope'"),
        ({"columns": "id,nope"}, "nope"),
        ({"snapshot": "12345"}, "no snapshot 12345"),
        ({"ref": "v9"}, "no branch or tag 'v9'"),
        ({"asOf": "2001-01-01T00:00:00Z"}, "before the table's first snapshot"),
        ({"asOf": "yesterday"}, "not a time"),
        ({"snapshot": str(first.snapshot_id), "ref": "v1"}, "give one of"),
        ({"offset": "x"}, "offset must be a whole number"),
        ({"limit": "100000"}, "limit must be between"),
    ]:
        code, error = get_error(run, jp_fetch, table_path(namespace, "orders", "rows"), **query)
        assert code == 400 and message in error["error"], (query, error)
    code, _ = get_error(run, jp_fetch, table_path(namespace, "missing", "rows"))
    assert code == 404


def test_cells_render_exactly_and_readably(extension, jp_fetch, run):
    namespace = new_namespace()
    schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False),
        pa.field("big", pa.int64()),
        pa.field("price", pa.decimal128(38, 2)),
        pa.field("at", pa.timestamp("us", "UTC")),
        pa.field("day", pa.date32()),
        pa.field("blob", pa.binary()),
        pa.field("tags", pa.list_(pa.int32())),
        pa.field("attrs", pa.map_(pa.string(), pa.int64())),
        pa.field("point", pa.struct([("x", pa.float64()), ("label", pa.string())])),
    ])
    table = load_catalog().create_table(f"{namespace}.kinds", schema=schema)
    table.append(pa.table({
        "id": [1, 2],
        "big": [2**60 + 1, -5],
        "price": [Decimal("123456789012345678901234567890.12"), None],
        "at": [datetime(2024, 5, 1, 12, 30, 15, 250000, tzinfo=UTC), None],
        "day": [date(2024, 5, 1), None],
        "blob": [bytes(range(40)), b"\x01"],
        "tags": [[1, 2], []],
        "attrs": [[("a", 1)], None],
        "point": [{"x": 1.5, "label": 'say "hi"'}, None],
    }, schema=schema))
    page = rows(run, jp_fetch, namespace, "kinds", sort="id")
    assert page["rows"] == [
        [1, str(2**60 + 1), "123456789012345678901234567890.12", "2024-05-01T12:30:15.250000+00:00", "2024-05-01",
         "0x" + bytes(range(32)).hex() + "…", "[1, 2]", '{"a" → 1}', '{x: 1.5, label: "say \\"hi\\""}'],
        [2, -5, None, None, None, "0x01", "[]", None, None],
    ]
    types = {column["name"]: column["type"] for column in page["columns"]}
    assert types["price"] == "decimal(38, 2)" and types["at"] == "timestamptz"

    # The profile decodes the manifests' bounds as the grid renders cells, and bins times as times.
    profile = {c["name"]: c for c in get(run, jp_fetch, table_path(namespace, "kinds", "profile"))["columns"]}
    assert (profile["big"]["min"], profile["big"]["max"], profile["big"]["source"]) == (-5, str(2**60 + 1), "manifest")
    assert (profile["price"]["min"], profile["price"]["nullCount"]) == ("123456789012345678901234567890.12", 1)
    assert (profile["at"]["max"], profile["day"]["min"]) == ("2024-05-01T12:30:15.250000+00:00", "2024-05-01")
    assert profile["at"]["histogram"] == {"kind": "numeric", "edges": ["2024-05-01T12:30:15.250000+00:00"] * 2,
                                          "counts": [1]}
    assert profile["tags"]["distinct"] is None and profile["tags"]["histogram"] is None
    assert (profile["blob"]["distinct"], profile["blob"]["source"]) == (2, "sample")


def test_table_details_add_overview_schema_history_and_refs(extension, jp_fetch, run):
    namespace = new_namespace()
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string()),
                        pa.field("small", pa.int32())])
    table = load_catalog().create_table(f"{namespace}.evolving", schema=schema)
    table.append(pa.table({"id": [1, 2], "name": ["a", "b"], "small": [1, 2]}, schema=schema))
    with table.update_schema() as update:
        update.add_column("extra", StringType(), doc="added later")
        update.rename_column("name", "label")
        update.update_column("small", LongType())
    table.manage_snapshots().create_tag(table.metadata.current_snapshot_id, "first-load").commit()

    details = get(run, jp_fetch, table_path(namespace, "evolving"), preview="0")
    overview = details["overview"]
    assert overview["format"] == "iceberg" and overview["rowCount"] == 2 and overview["fileCount"] == 1
    assert overview["deleteFileCount"] == 0 and overview["totalSizeBytes"] > 0
    assert overview["location"] == details["location"] and overview["formatVersion"] == details["formatVersion"]
    assert overview["sortOrder"]["fields"] == [] and overview["lastUpdated"] > 0
    assert [s["schema-id"] for s in details["schemas"]] == [0, 1] and details["currentSchemaId"] == 1

    first, second = details["schemaHistory"]
    assert first["schemaId"] == 0 and {c["change"] for c in first["changes"]} == {"added"}
    assert sorted(second["changes"], key=lambda c: c["change"]) == [
        {"change": "added", "fieldId": 4, "path": "extra", "to": "string"},
        {"change": "renamed", "fieldId": 2, "path": "label", "from": "name", "to": "label"},
        {"change": "type", "fieldId": 3, "path": "small", "from": "int", "to": "long"},
    ]
    snapshot_id = str(table.metadata.current_snapshot_id)
    assert details["refs"] == {"first-load": {"type": "tag", "snapshotId": snapshot_id},
                               "main": {"type": "branch", "snapshotId": snapshot_id}}
    (snapshot,) = details["snapshots"]
    assert snapshot["operation"] == "append" and snapshot["schemaId"] == 0 and snapshot["snapshot-id"] == snapshot_id


def test_column_profile(extension, jp_fetch, run):
    namespace = new_namespace()
    table = load_catalog().create_table(f"{namespace}.orders", schema=ORDERS)
    table.append(orders(0, 60))
    table.append(orders(60, 40))
    path = table_path(namespace, "orders", "profile")

    profile = get(run, jp_fetch, path)
    assert profile["snapshotId"] == str(table.metadata.current_snapshot_id) and profile["rowCount"] == 100
    assert profile["sample"] == {"rows": 100, "files": 2, "complete": True}
    columns = {column["name"]: column for column in profile["columns"]}
    ids, names, amounts = columns["id"], columns["name"], columns["amount"]
    assert (ids["type"], ids["nullCount"], ids["min"], ids["max"], ids["distinct"], ids["source"]) == \
        ("long", 0, 0, 99, 100, "manifest")
    assert ids["histogram"]["kind"] == "numeric" and sum(ids["histogram"]["counts"]) == 100
    assert ids["histogram"]["edges"][0] == 0 and ids["histogram"]["edges"][-1] == 99
    assert len(ids["histogram"]["edges"]) == len(ids["histogram"]["counts"]) + 1
    assert (amounts["nullCount"], amounts["min"], amounts["max"]) == (10, 1.5, 148.5)
    assert sum(amounts["histogram"]["counts"]) == 90
    assert (names["nullCount"], names["distinct"], names["min"], names["max"], names["source"]) == \
        (0, 7, "n0", "n6", "sample")
    assert names["histogram"]["kind"] == "values" and names["histogram"]["values"][0] == {"value": "n0", "count": 15}
    assert sum(v["count"] for v in names["histogram"]["values"]) == 100

    older = get(run, jp_fetch, path, snapshot=str(table.metadata.snapshots[0].snapshot_id), columns="id")
    assert older["rowCount"] == 60 and [c["name"] for c in older["columns"]] == ["id"]
    assert older["columns"][0]["max"] == 59
    code, error = get_error(run, jp_fetch, path, columns="nope")
    assert code == 400 and "nope" in error["error"]


def test_view_details(extension, jp_fetch, run):
    namespace = new_namespace()
    schema = {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "type": "long", "required": False}]}
    body = {
        "name": "recent", "schema": schema, "properties": {"comment": "the last orders"},
        "view-version": {
            "version-id": 1, "timestamp-ms": 1714560000000, "schema-id": 0, "summary": {"engine-name": "spark"},
            "default-namespace": [namespace],
            "representations": [{"type": "sql", "sql": "SELECT id FROM orders", "dialect": "spark"},
                                {"type": "sql", "sql": "SELECT id FROM orders", "dialect": "trino"}],
        },
    }
    AIStorClient.from_env().catalog_call("POST", f"/{WAREHOUSE}/namespaces/{namespace}/views", body)

    views = f"aistor-lab/api/warehouses/{WAREHOUSE}/namespaces/{namespace}/views"
    view = get(run, jp_fetch, f"{views}/recent")
    assert (view["warehouse"], view["namespace"], view["view"]) == (WAREHOUSE, namespace, "recent")
    assert view["sql"] == [{"dialect": "spark", "sql": "SELECT id FROM orders"},
                           {"dialect": "trino", "sql": "SELECT id FROM orders"}]
    assert [f["name"] for f in view["schema"]["fields"]] == ["id"] and view["currentVersionId"] == 1
    assert view["versions"] == [{"versionId": 1, "timestampMs": 1714560000000, "summary": {"engine-name": "spark"}}]
    assert view["properties"]["comment"] == "the last orders" and view["location"]
    code, error = get_error(run, jp_fetch, f"{views}/nope")
    assert code == 404 and "nope" in error["error"]
