"""Server-side scan planning driven by PyIceberg 0.12 with ``scan-planning-mode=server``: the same rows
as PyIceberg's own (client-side) planning over a matrix of filters, snapshots and a partition
evolution; the raw endpoints (paging by plan-task tokens, plan ids, bad input, vended credentials);
and the access rule of loadTable."""

from __future__ import annotations

import datetime
import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import ForbiddenError
from pyiceberg.expressions import (
    AlwaysFalse,
    And,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNull,
    LessThan,
    Not,
    NotEqualTo,
    NotNull,
    Or,
    StartsWith,
)
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform
from pyiceberg.types import DateType, LongType, NestedField, StringType

from .conftest import catalog_call, documented_read_only_user, make_user, seed_catalog_properties

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "category", StringType(), required=False),
    NestedField(3, "day", DateType(), required=False),
)
ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("category", pa.string()),
                          pa.field("day", pa.date32())])
# No null category: PyIceberg 0.12's model of a plan rejects the null a partition tuple holds for a
# null value (the spec's form, which the service answers: test_a_null_partition_value_is_json_null).
CATEGORIES = ["alpha", "beta", "gamma", "delta"]


def batch(start: int, count: int) -> pa.Table:
    ids = list(range(start, start + count))
    return pa.table({
        "id": ids,
        "category": [CATEGORIES[i % 4] for i in ids],
        "day": [datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 10) for i in ids],
    }, schema=ARROW_SCHEMA)


FILTERS = [
    None,
    EqualTo("category", "beta"),
    In("category", {"alpha", "gamma"}),
    IsNull("category"),
    NotNull("category"),
    GreaterThan("id", 150),
    And(LessThan("id", 120), EqualTo("category", "alpha")),
    Or(EqualTo("category", "beta"), GreaterThanOrEqual("day", datetime.date(2024, 1, 8).isoformat())),
    Not(EqualTo("category", "gamma")),
    NotEqualTo("id", 3),
    StartsWith("category", "ga"),
    EqualTo("day", datetime.date(2024, 1, 3).isoformat()),
    AlwaysFalse(),
    EqualTo("id", 10_000),
]


@pytest.fixture(scope="module")
def warehouse(server):
    name = f"planning-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": name})[0] == 200
    yield name
    assert catalog_call(server, "DELETE", f"/v1/warehouses/{name}?force=true")[0] == 204


@pytest.fixture(scope="module")
def catalogs(server, warehouse):
    """(client-side planning, server-side planning), the same user on the same warehouse."""
    properties = seed_catalog_properties(server, warehouse)
    client = load_catalog("client-planning", **properties)
    planned = load_catalog("server-planning", **properties, **{"scan-planning-mode": "server"})
    client.create_namespace("db")
    return client, planned


@pytest.fixture(scope="module")
def evolved_table(catalogs):
    """Appends partitioned by category, then by category and day (a partition evolution), and a
    copy-on-write delete: four kinds of snapshots to plan."""
    client, _ = catalogs
    table = client.create_table("db.events", SCHEMA)
    with table.update_spec() as spec:
        spec.add_field("category", IdentityTransform(), "category")
    for start in range(0, 100, 20):
        table.append(batch(start, 20))
    with table.update_spec() as spec:
        spec.add_field("day", DayTransform(), "day_day")
    for start in range(100, 200, 25):
        table.append(batch(start, 25))
    table.delete(EqualTo("id", 3))
    return table.refresh()


def rows(scan) -> list[tuple]:
    table = scan.to_arrow()
    return sorted(zip(*(table.column(name).to_pylist() for name in table.column_names)), key=repr)


def scans(catalogs, identifier: str, **options):
    client, planned = catalogs
    return client.load_table(identifier).scan(**options), planned.load_table(identifier).scan(**options)


def test_the_catalog_advertises_planning(catalogs):
    _, planned = catalogs
    assert planned.supports_server_side_planning()


@pytest.mark.parametrize("row_filter", FILTERS, ids=repr)
def test_server_planning_returns_the_rows_of_client_planning(catalogs, evolved_table, row_filter):
    options = {} if row_filter is None else {"row_filter": row_filter}
    ours, theirs = scans(catalogs, "db.events", **options)
    assert theirs._should_use_server_side_planning() and not ours._should_use_server_side_planning()
    planned_files = sorted(task.file.file_path for task in theirs.plan_files())
    assert planned_files == sorted(task.file.file_path for task in ours.plan_files())
    assert rows(theirs) == rows(ours)
    assert theirs.count() == ours.count()


def test_pruning_keeps_only_the_files_a_partition_needs(catalogs, evolved_table):
    _, theirs = scans(catalogs, "db.events", row_filter=EqualTo("category", "beta"))
    tasks = list(theirs.plan_files())
    assert tasks and all(task.file.partition[0] == "beta" for task in tasks)
    everything = list(scans(catalogs, "db.events")[1].plan_files())
    assert len(tasks) < len(everything)


def test_time_travel_and_projection(catalogs, evolved_table):
    for snapshot in evolved_table.snapshots()[::2]:
        for row_filter in (None, EqualTo("category", "alpha"), GreaterThan("id", 50)):
            options = {"snapshot_id": snapshot.snapshot_id, "selected_fields": ("id", "category")}
            if row_filter is not None:
                options["row_filter"] = row_filter
            ours, theirs = scans(catalogs, "db.events", **options)
            assert rows(theirs) == rows(ours), (snapshot.snapshot_id, row_filter)


def test_an_empty_table_plans_nothing(catalogs):
    client, planned = catalogs
    client.create_table("db.empty", SCHEMA)
    assert planned.load_table("db.empty").scan().to_arrow().num_rows == 0
    client.drop_table("db.empty")


def plan_path(warehouse: str, table: str = "events") -> str:
    return f"/v1/{warehouse}/namespaces/db/tables/{table}"


def test_use_snapshot_schema_binds_the_filter_to_the_snapshots_schema(server, warehouse, catalogs):
    """A column renamed after a snapshot: time travel with use-snapshot-schema filters by its old name."""
    client, _ = catalogs
    table = client.create_table("db.renamed", SCHEMA)
    table.append(batch(0, 8))
    old_snapshot = table.current_snapshot().snapshot_id
    with table.update_schema() as update:
        update.rename_column("category", "kind")
    table.append(batch(8, 8).rename_columns(["id", "kind", "day"]))
    request = {"snapshot-id": old_snapshot, "filter": {"type": "eq", "term": "category", "value": "beta"}}
    status, body = catalog_call(server, "POST", plan_path(warehouse, "renamed") + "/plan",
                                {**request, "use-snapshot-schema": True})
    assert status == 200 and len(body["file-scan-tasks"]) == 1, body
    status, body = catalog_call(server, "POST", plan_path(warehouse, "renamed") + "/plan", request)
    assert status == 400 and "category" in body["error"]["message"]
    status, body = catalog_call(server, "POST", plan_path(warehouse, "renamed") + "/plan",
                                {"filter": {"type": "eq", "term": "kind", "value": "beta"}})
    assert status == 200 and len(body["file-scan-tasks"]) == 2
    client.drop_table("db.renamed")


def test_incremental_append_scan(server, warehouse, catalogs, evolved_table):
    appends = [s for s in evolved_table.snapshots() if s.summary.operation.value == "append"]
    start, end = appends[1].snapshot_id, appends[4].snapshot_id
    status, body = catalog_call(server, "POST", plan_path(warehouse) + "/plan",
                                {"start-snapshot-id": start, "end-snapshot-id": end})
    assert status == 200 and body["status"] == "completed", body
    expected = evolved_table.incremental_append_scan(from_snapshot_id_exclusive=start, to_snapshot_id_inclusive=end)
    assert sorted(task["data-file"]["file-path"] for task in body["file-scan-tasks"]) == sorted(
        task.file.file_path for task in expected.plan_files())
    assert "delete-files" not in body


def test_stats_fields_and_residuals(server, warehouse, evolved_table):
    request = {"filter": {"type": "and", "left": {"type": "eq", "term": "category", "value": "beta"},
                          "right": {"type": "gt", "term": "id", "value": 150}},
               "stats-fields": ["id"], "select": ["id"]}
    status, body = catalog_call(server, "POST", plan_path(warehouse) + "/plan", request)
    assert status == 200 and body["status"] == "completed", body
    for task in body["file-scan-tasks"]:
        data_file = task["data-file"]
        assert data_file["partition"][0] == "beta"
        assert data_file["lower-bounds"]["keys"] == [1] and data_file["upper-bounds"]["values"][0] > 150
        # The partition decides the category: what remains to check in the file is the id.
        assert task["residual-filter"] == {"type": "gt", "term": "id", "value": 150}


def test_big_plans_come_in_pages_of_plan_tasks(server, warehouse, catalogs, evolved_table):
    """A plan of more than one page answers its first page and a plan-task token for each other one;
    each token answers its page, and the plan id is its maker's to fetch and cancel."""
    client, planned = catalogs
    table = client.create_table("db.many", SCHEMA)
    with table.update_spec() as spec:
        spec.add_field("id", IdentityTransform(), "id")
    table.append(batch(0, 1_030))  # a file per id: more files than one page holds (1,000)
    status, body = catalog_call(server, "POST", plan_path(warehouse, "many") + "/plan", {})
    assert status == 200 and body["status"] == "completed"
    assert len(body["file-scan-tasks"]) == 1_000 and len(body["plan-tasks"]) == 1
    token = body["plan-tasks"][0]
    status, page = catalog_call(server, "POST", plan_path(warehouse, "many") + "/tasks", {"plan-task": token})
    assert status == 200 and len(page["file-scan-tasks"]) == 30
    # PyIceberg follows the tokens: all rows come back.
    assert planned.load_table("db.many").scan().to_arrow().num_rows == 1_030

    status, result = catalog_call(server, "GET", plan_path(warehouse, "many") + f"/plan/{body['plan-id']}")
    assert status == 200 and result["status"] == "completed" and result["plan-tasks"] == [token]
    # Another user who may load the table gets the same page (planned again from the token); the plan
    # id stays its maker's.
    other = documented_read_only_user(server, warehouse)
    assert catalog_call(server, "POST", plan_path(warehouse, "many") + "/tasks", {"plan-task": token},
                        credentials=other) == (200, page)
    status, error = catalog_call(server, "GET", plan_path(warehouse, "many") + f"/plan/{body['plan-id']}",
                                 credentials=other)
    assert status == 404 and error["error"]["type"] == "NoSuchPlanIdException"
    assert catalog_call(server, "DELETE", plan_path(warehouse, "many") + f"/plan/{body['plan-id']}")[0] == 204
    status, error = catalog_call(server, "GET", plan_path(warehouse, "many") + f"/plan/{body['plan-id']}")
    assert status == 404 and error["error"]["type"] == "NoSuchPlanIdException"
    # A token names its table's version: it is no plan task of another table.
    status, error = catalog_call(server, "POST", plan_path(warehouse, "events") + "/tasks", {"plan-task": token})
    assert status == 404 and error["error"]["type"] == "NoSuchPlanTaskException"
    client.drop_table("db.many")


@pytest.mark.parametrize("request_body, message", [
    ({"filter": {"type": "eq", "term": "no_such_column", "value": 1}}, "no_such_column"),
    ({"filter": {"type": "bogus"}}, "Invalid scan planning request"),
    ({"select": ["id", "nope"]}, "nope"),
    ({"stats-fields": ["nope"]}, "nope"),
    ({"snapshot-id": 1}, "Snapshot does not exist: 1"),
    ({"start-snapshot-id": 1}, "end-snapshot-id"),
    ({"snapshot-id": 1, "start-snapshot-id": 1, "end-snapshot-id": 2}, "Cannot specify both"),
    ({"case-sensitive": "yes"}, "case-sensitive must be a boolean"),
])
def test_bad_requests_answer_400(server, warehouse, evolved_table, request_body, message):
    status, body = catalog_call(server, "POST", plan_path(warehouse) + "/plan", request_body)
    assert status == 400 and body["error"]["type"] == "BadRequestException", body
    assert message in body["error"]["message"]


def test_a_null_partition_value_is_json_null(server, warehouse, catalogs):
    client, _ = catalogs
    table = client.create_table("db.nulls", SCHEMA)
    with table.update_spec() as spec:
        spec.add_field("category", IdentityTransform(), "category")
    table.append(pa.table({"id": [1], "category": [None], "day": [None]}, schema=ARROW_SCHEMA))
    status, body = catalog_call(server, "POST", plan_path(warehouse, "nulls") + "/plan", {})
    assert status == 200 and [task["data-file"]["partition"] for task in body["file-scan-tasks"]] == [[None]]
    client.drop_table("db.nulls")


def test_unknown_plan_and_task_and_table(server, warehouse, evolved_table):
    status, body = catalog_call(server, "GET", plan_path(warehouse) + "/plan/nope")
    assert status == 404 and body["error"]["type"] == "NoSuchPlanIdException"
    status, body = catalog_call(server, "POST", plan_path(warehouse) + "/tasks", {"plan-task": "nope:1"})
    assert status == 404 and body["error"]["type"] == "NoSuchPlanTaskException"
    status, body = catalog_call(server, "POST", plan_path(warehouse) + "/tasks", {})
    assert status == 400
    status, body = catalog_call(server, "POST", plan_path(warehouse, "nope") + "/plan", {})
    assert status == 404 and body["error"]["type"] == "NoSuchTableException"


def test_vended_credentials_are_read_only_and_table_scoped(server, warehouse, evolved_table):
    status, body = catalog_call(server, "POST", plan_path(warehouse) + "/plan", {},
                                headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
    assert status == 200 and body["status"] == "completed"
    [credential] = body["storage-credentials"]
    assert credential["prefix"] == evolved_table.location()
    import boto3

    s3 = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                      aws_access_key_id=credential["config"]["s3.access-key-id"],
                      aws_secret_access_key=credential["config"]["s3.secret-access-key"],
                      aws_session_token=credential["config"]["s3.session-token"])
    data_file = body["file-scan-tasks"][0]["data-file"]["file-path"]
    bucket, key = data_file.removeprefix("s3://").split("/", 1)
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read()[:4] == b"PAR1"
    with pytest.raises(s3.exceptions.ClientError):
        s3.put_object(Bucket=bucket, Key=key + ".copy", Body=b"x")


def test_a_user_who_may_not_load_may_not_plan(server, warehouse, evolved_table):
    reader = documented_read_only_user(server, warehouse)
    status, body = catalog_call(server, "POST", plan_path(warehouse) + "/plan", {}, credentials=reader)
    assert status == 200 and body["status"] == "completed"
    denied = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3tables:*"], "Resource": ["*"]},
        {"Effect": "Deny", "Action": ["s3tables:GetTable"], "Resource": ["*"]},
    ]})
    for method, path, body in (("POST", "/plan", {}), ("GET", "/plan/x", None), ("DELETE", "/plan/x", None),
                               ("POST", "/tasks", {"plan-task": "x:1"})):
        status, answer = catalog_call(server, method, plan_path(warehouse) + path, body, credentials=denied)
        assert status == 403 and answer["error"]["type"] == "ForbiddenException", (method, path, answer)
    properties = {**seed_catalog_properties(server, warehouse, *denied), "scan-planning-mode": "server"}
    with pytest.raises(ForbiddenError):
        load_catalog("denied", **properties).load_table("db.events")
