"""AIStor Tables driven by PyIceberg, unchanged, with the configuration of the product documentation."""

from __future__ import annotations

import datetime
import re
import threading
import time
import uuid

import pyarrow as pa
import pyarrow.compute as pc
import pytest
import requests
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import (
    BadRequestError,
    CommitFailedException,
    ForbiddenError,
    NamespaceNotEmptyError,
    NoSuchTableError,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import (
    BucketTransform,
    DayTransform,
    HourTransform,
    IdentityTransform,
    MonthTransform,
    TruncateTransform,
)
from pyiceberg.types import (
    BooleanType,
    DateType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
)

from aistor_lab.workbench.client import ServiceError
from aistor_lab.workbench.commands.registry import execute, notebook_front

from .conftest import (
    ROOT_PASSWORD,
    ROOT_USER,
    catalog_call,
    documented_read_only_user,
    make_s3_client,
    seed_catalog_properties,
    signed_call,
)

WAREHOUSE = "analytics"
SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType(), required=False),
)
ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])


def rows(ids, names=None) -> pa.Table:
    names = names or [f"name-{i}" for i in ids]
    return pa.table({"id": pa.array(ids, pa.int64()), "name": names}, schema=ARROW_SCHEMA)


@pytest.fixture(scope="module")
def catalog(server):
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})
    assert status in (200, 409), body
    return load_catalog("aistor", **seed_catalog_properties(server, WAREHOUSE))


@pytest.fixture
def namespace(catalog):
    name = f"ns_{uuid.uuid4().hex[:8]}"
    catalog.create_namespace(name)
    return name


def test_warehouse_api_and_config(server, catalog):
    status, listed = catalog_call(server, "GET", "/v1/warehouses")
    assert status == 200 and WAREHOUSE in listed["warehouses"]
    status, config = catalog_call(server, "GET", f"/v1/config?warehouse={WAREHOUSE}")
    assert status == 200 and config["overrides"]["prefix"] == WAREHOUSE
    assert "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}" in config["endpoints"]
    status, error = catalog_call(server, "GET", "/v1/config?warehouse=no-such-warehouse")
    assert status == 404 and error["error"]["code"] == 404
    # a warehouse is a bucket
    assert WAREHOUSE in [b["Name"] for b in make_s3_client(server.endpoint).list_buckets()["Buckets"]]


def test_seed_quickstart_create_insert_query(catalog, namespace):
    table = catalog.create_table(f"{namespace}.mytable", schema=SCHEMA)
    assert (namespace, "mytable") in catalog.list_tables(namespace)
    table.append(rows([1, 2, 3]))
    result = catalog.load_table(f"{namespace}.mytable").scan().to_arrow().sort_by("id")
    assert result.column("id").to_pylist() == [1, 2, 3]
    assert table.location().startswith(f"s3://{WAREHOUSE}/")
    # unique locations: s3://WAREHOUSE/<uuid>/
    assert uuid.UUID(table.location().removeprefix(f"s3://{WAREHOUSE}/").strip("/").split("/")[0])


def test_overwrite_delete_and_time_travel(catalog, namespace):
    table = catalog.create_table(f"{namespace}.events", schema=SCHEMA)
    table.append(rows([1, 2, 3]))
    first = table.current_snapshot()
    time.sleep(0.01)
    after_first_ms = int(time.time() * 1000)
    time.sleep(0.01)
    table.overwrite(rows([10, 20]))
    table.delete(delete_filter="id == 10")
    assert table.scan().to_arrow().column("id").to_pylist() == [20]
    assert sorted(table.scan(snapshot_id=first.snapshot_id).to_arrow().column("id").to_pylist()) == [1, 2, 3]
    as_of = table.snapshot_as_of_timestamp(after_first_ms)
    assert as_of.snapshot_id == first.snapshot_id
    assert len(catalog.load_table(f"{namespace}.events").history()) == len(table.metadata.snapshot_log)


def test_schema_evolution(catalog, namespace):
    schema = Schema(NestedField(1, "id", IntegerType(), required=True), NestedField(2, "name", StringType()))
    table = catalog.create_table(f"{namespace}.evolving", schema=schema)
    with table.update_schema() as update:
        update.add_column("score", LongType())
        update.rename_column("name", "full_name")
        update.update_column("id", field_type=LongType())
    with table.update_schema() as update:
        update.delete_column("score")
    loaded = catalog.load_table(f"{namespace}.evolving")
    assert [f.name for f in loaded.schema().fields] == ["id", "full_name"]
    assert loaded.schema().find_field("id").field_type == LongType()
    assert len(loaded.schemas()) == 3
    loaded.append(pa.table({"id": pa.array([7], pa.int64()), "full_name": ["x"]},
                           schema=pa.schema([pa.field("id", pa.int64(), False), pa.field("full_name", pa.string())])))
    assert loaded.scan().to_arrow().column("full_name").to_pylist() == ["x"]


def test_partitioned_table_and_partition_evolution(catalog, namespace):
    schema = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "ts", TimestampType()),
                    NestedField(3, "region", StringType()))
    spec = PartitionSpec(PartitionField(source_id=3, field_id=1000, transform=IdentityTransform(), name="region"))
    table = catalog.create_table(f"{namespace}.sales", schema=schema, partition_spec=spec)
    data = pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "ts": pa.array([datetime.datetime(2024, 3, d) for d in (1, 2, 3)], pa.timestamp("us")),
        "region": ["eu", "us", "eu"],
    }, schema=pa.schema([pa.field("id", pa.int64(), False), pa.field("ts", pa.timestamp("us")),
                         pa.field("region", pa.string())]))
    table.append(data)
    with table.update_spec() as update:
        update.add_field("ts", DayTransform(), "ts_day")
    table.append(data)
    loaded = catalog.load_table(f"{namespace}.sales")
    assert len(loaded.specs()) == 2 and loaded.spec().spec_id == 1
    eu = loaded.scan(row_filter="region == 'eu'").to_arrow()
    assert eu.num_rows == 4
    assert set(pc.unique(eu.column("region")).to_pylist()) == {"eu"}


@pytest.mark.parametrize(("transform", "column", "type_name"), [
    (DayTransform(), "id", "long"), (BucketTransform(8), "flag", "boolean"), (TruncateTransform(4), "day", "date"),
    (HourTransform(), "day", "date"), (MonthTransform(), "name", "string")])
def test_a_transform_that_does_not_fit_its_column_is_refused_at_create(catalog, namespace, transform, column,
                                                                       type_name):
    schema = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "flag", BooleanType()),
                    NestedField(3, "day", DateType()), NestedField(4, "name", StringType()))
    source = schema.find_field(column).field_id
    spec = PartitionSpec(PartitionField(source_id=source, field_id=1000, transform=transform, name="p"))
    with pytest.raises(BadRequestError, match=rf"Invalid source type {type_name} for transform: "
                                              rf"{re.escape(str(transform))} \(partition field 'p' on column "
                                              rf"'{column}'\)"):
        catalog.create_table(f"{namespace}.refused", schema=schema, partition_spec=spec)
    assert not catalog.table_exists(f"{namespace}.refused")


def test_a_transform_that_does_not_fit_its_column_is_refused_at_update_spec(server, catalog, namespace):
    """The REST error of the reference implementation (PyIceberg checks its own updates before sending, so
    the request is sent as another client would)."""
    table = catalog.create_table(f"{namespace}.events", schema=Schema(
        NestedField(1, "id", LongType(), required=True), NestedField(2, "ts", TimestampType())))
    path = f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/events"

    def add_spec(source_id: int, transform: str) -> tuple[int, dict]:
        return catalog_call(server, "POST", path, {"requirements": [], "updates": [
            {"action": "add-spec", "spec": {"fields": [
                {"source-id": source_id, "field-id": 1000, "name": "p", "transform": transform}]}},
            {"action": "set-default-spec", "spec-id": -1}]})

    status, error = add_spec(1, "day")
    assert status == 400 and error["error"] == {
        "type": "ValidationException", "code": 400,
        "message": "Invalid source type long for transform: day (partition field 'p' on column 'id'): day applies "
                   "to date, timestamp, timestamp_ns, timestamptz, timestamptz_ns columns"}
    assert catalog.load_table(f"{namespace}.events").metadata_location == table.metadata_location
    status, _ = add_spec(2, "day")  # what fits passes
    assert status == 200 and catalog.load_table(f"{namespace}.events").spec().fields[0].transform == DayTransform()
    status, error = catalog_call(server, "POST", path, {"requirements": [], "updates": [{
        "action": "add-sort-order", "sort-order": {"order-id": 1, "fields": [
            {"source-id": 1, "transform": "hour", "direction": "asc", "null-order": "nulls-first"}]}}]})
    assert status == 400 and error["error"]["type"] == "ValidationException"
    assert error["error"]["message"].startswith("Invalid source type long for transform: hour (sort field on column 'id')")


def test_a_transform_that_does_not_fit_is_refused_through_the_table_create_command(server, catalog, namespace,
                                                                                  monkeypatch):
    """``%aistor table create ... --partition`` (and the CLI, and the panel) send the spec as typed: the
    service's refusal is the command's one-line error."""
    for name, setting in {"AISTOR_ENDPOINT": server.endpoint, "AISTOR_ACCESS_KEY": ROOT_USER,
                          "AISTOR_SECRET_KEY": ROOT_PASSWORD}.items():
        monkeypatch.setenv(name, setting)  # as in a JupyterLab kernel
    argv = ["table", "create", WAREHOUSE, namespace, "orders", "--schema", "id long not null, placed date",
            "--partition", "hour(placed)"]
    with pytest.raises(ServiceError, match=r"Invalid source type date for transform: hour \(partition field "
                                           r"'placed_hour' on column 'placed'\): hour applies to timestamp") as err:
        execute(argv, notebook_front())
    assert err.value.status == 400 and err.value.code == "ValidationException"
    assert not catalog.table_exists(f"{namespace}.orders")
    execute([*argv[:-1], "day(placed)"], notebook_front())
    assert catalog.load_table(f"{namespace}.orders").spec().fields[0].name == "placed_day"


def test_multi_level_namespaces(catalog):
    top = f"org_{uuid.uuid4().hex[:6]}"
    catalog.create_namespace(top)
    catalog.create_namespace((top, "analytics"))
    catalog.create_namespace((top, "analytics", "sales"), properties={"owner": "data-team"})
    assert catalog.list_namespaces(top) == [(top, "analytics")]
    assert catalog.list_namespaces((top, "analytics")) == [(top, "analytics", "sales")]
    assert catalog.load_namespace_properties((top, "analytics", "sales"))["owner"] == "data-team"
    table = catalog.create_table((top, "analytics", "sales", "revenue"), schema=SCHEMA)
    table.append(rows([5]))
    assert catalog.list_tables((top, "analytics", "sales")) == [(top, "analytics", "sales", "revenue")]
    with pytest.raises(NamespaceNotEmptyError):
        catalog.drop_namespace((top, "analytics", "sales"))
    summary = catalog.update_namespace_properties((top, "analytics", "sales"), removals={"owner", "absent"},
                                                  updates={"team": "bi"})
    assert summary.removed == ["owner"] and summary.missing == ["absent"] and summary.updated == ["team"]


def test_drop_purge_rename_register(server, catalog, namespace):
    s3 = make_s3_client(server.endpoint)
    table = catalog.create_table(f"{namespace}.to_purge", schema=SCHEMA)
    table.append(rows([1]))
    prefix = table.location().removeprefix(f"s3://{WAREHOUSE}/").rstrip("/") + "/"
    assert s3.list_objects_v2(Bucket=WAREHOUSE, Prefix=prefix)["KeyCount"] > 0
    catalog.purge_table(f"{namespace}.to_purge")
    assert not catalog.table_exists(f"{namespace}.to_purge")
    assert s3.list_objects_v2(Bucket=WAREHOUSE, Prefix=prefix)["KeyCount"] == 0

    kept = catalog.create_table(f"{namespace}.to_drop", schema=SCHEMA)
    kept.append(rows([2]))
    metadata_location = catalog.load_table(f"{namespace}.to_drop").metadata_location
    catalog.drop_table(f"{namespace}.to_drop")
    with pytest.raises(NoSuchTableError):
        catalog.load_table(f"{namespace}.to_drop")
    registered = catalog.register_table(f"{namespace}.registered", metadata_location)
    assert registered.scan().to_arrow().column("id").to_pylist() == [2]

    catalog.rename_table(f"{namespace}.registered", f"{namespace}.renamed")
    assert catalog.table_exists(f"{namespace}.renamed") and not catalog.table_exists(f"{namespace}.registered")
    assert catalog.load_table(f"{namespace}.renamed").scan().to_arrow().num_rows == 1


def test_concurrent_appends_all_land(server, catalog, namespace):
    catalog.create_table(f"{namespace}.busy", schema=SCHEMA)
    conflicts = []

    def writer(offset: int) -> None:
        own = load_catalog("aistor", **seed_catalog_properties(server, WAREHOUSE))
        for i in range(4):
            while True:
                table = own.load_table(f"{namespace}.busy")
                try:
                    table.append(rows([offset + i]))
                    break
                except CommitFailedException:
                    conflicts.append(offset + i)  # a lost race: reload and try again, as engines do

    threads = [threading.Thread(target=writer, args=(n * 100,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = sorted(catalog.load_table(f"{namespace}.busy").scan().to_arrow().column("id").to_pylist())
    assert ids == [0, 1, 2, 3, 100, 101, 102, 103]
    assert len(catalog.load_table(f"{namespace}.busy").snapshots()) == 8


def test_read_only_policy_of_the_documentation(server, catalog, namespace):
    catalog.create_table(f"{namespace}.guarded", schema=SCHEMA).append(rows([1]))
    # S3 rights on the whole warehouse; the credentials the catalog vends are still read-only
    user, secret = documented_read_only_user(server, WAREHOUSE)
    reader = load_catalog("reader", **seed_catalog_properties(server, WAREHOUSE, user, secret))
    assert (namespace,) in reader.list_namespaces()
    assert (namespace, "guarded") in reader.list_tables(namespace)
    table = reader.load_table(f"{namespace}.guarded")
    assert table.scan().to_arrow().column("id").to_pylist() == [1]
    with pytest.raises(ForbiddenError):
        reader.create_table(f"{namespace}.not_allowed", schema=SCHEMA)
    # PyIceberg asks for vended credentials: read-only ones for a reader, so no data file is written
    with pytest.raises(OSError, match="ACCESS_DENIED"):
        table.append(rows([2]))
    with pytest.raises(ForbiddenError):
        reader.drop_table(f"{namespace}.guarded")
    assert catalog.load_table(f"{namespace}.guarded").scan().to_arrow().num_rows == 1


def test_unknown_bearer_tokens_and_unsigned_requests_are_refused(server, catalog):
    # bearer tokens come from the catalog's OAuth2 endpoint (test_catalog_oauth.py); others are refused
    for headers in ({"Authorization": "Bearer some-token"}, {}):
        response = requests.get(f"{server.endpoint}/_iceberg/v1/{WAREHOUSE}/namespaces", headers=headers, timeout=5)
        assert response.status_code == 401
        assert response.json()["error"]["type"] == "NotAuthorizedException"
    s3_signed = signed_call(server, "GET", f"/_iceberg/v1/config?warehouse={WAREHOUSE}")  # service s3
    assert s3_signed.status_code == 401
    response = requests.get(f"{server.endpoint}/_iceberg/v1/config?warehouse={WAREHOUSE}", timeout=5)
    assert response.status_code == 401


def test_load_table_etag_and_snapshots_filter(server, catalog, namespace):
    table = catalog.create_table(f"{namespace}.etagged", schema=SCHEMA)
    table.append(rows([1]))
    table.append(rows([2]))
    path = f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/etagged"
    response = signed_call(server, "GET", f"/_iceberg{path}", service="s3tables")
    etag = response.headers["ETag"]
    status, _ = catalog_call(server, "GET", path, headers={"If-None-Match": etag})
    assert status == 304
    table.append(rows([3]))
    status, body = catalog_call(server, "GET", path, headers={"If-None-Match": etag})
    assert status == 200 and len(body["metadata"]["snapshots"]) == 3
    status, refs_only = catalog_call(server, "GET", path + "?snapshots=refs")
    assert status == 200 and len(refs_only["metadata"]["snapshots"]) == 1


def test_bad_input_is_refused_and_changes_nothing(server, catalog, namespace):
    table = catalog.create_table(f"{namespace}.stable", schema=SCHEMA)
    table.append(rows([1]))
    before = catalog.load_table(f"{namespace}.stable").metadata_location
    path = f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/stable"
    status, error = catalog_call(server, "POST", path, b"{not json")
    assert status == 400 and error["error"]["type"] == "BadRequestException"
    status, error = catalog_call(server, "POST", path, {"requirements": [], "updates": [{"action": "explode"}]})
    assert status == 400
    status, error = catalog_call(server, "POST", path, {
        "requirements": [{"type": "assert-current-schema-id", "current-schema-id": 42}],
        "updates": [{"action": "set-properties", "updates": {"a": "b"}}]})
    assert status == 409 and error["error"]["type"] == "CommitFailedException"
    status, error = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces", {"namespace": ["bad\u0000name"]})
    assert status == 400
    status, error = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables",
                                 {"name": "", "schema": {"type": "struct", "fields": []}})
    assert status == 400
    assert catalog.load_table(f"{namespace}.stable").metadata_location == before
    assert "a" not in catalog.load_table(f"{namespace}.stable").properties


def test_commit_racing_a_drop(server, catalog, namespace):
    table = catalog.create_table(f"{namespace}.doomed", schema=SCHEMA)
    catalog.drop_table(f"{namespace}.doomed")
    with pytest.raises(Exception, match="NoSuchTableException"):
        table.append(rows([1]))
    assert not catalog.table_exists(f"{namespace}.doomed")


def test_paging_namespaces(server, catalog):
    parent = f"paged_{uuid.uuid4().hex[:6]}"
    catalog.create_namespace(parent)
    for i in range(5):
        catalog.create_namespace((parent, f"child{i}"))
    seen, token = [], ""
    while True:
        status, page = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces?parent={parent}&pageSize=2&pageToken={token}")
        assert status == 200
        seen += [ns[-1] for ns in page["namespaces"]]
        token = page.get("next-page-token")
        if not token:
            break
    assert seen == [f"child{i}" for i in range(5)]
    status, unpaged = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces?parent={parent}")
    assert len(unpaged["namespaces"]) == 5 and unpaged.get("next-page-token") is None


def test_table_files_are_protected_in_the_s3_api(server, catalog, namespace):
    table = catalog.create_table(f"{namespace}.protected", schema=SCHEMA)
    table.append(rows([1]))
    table.append(rows([2]))
    s3 = make_s3_client(server.endpoint)
    metadata_key = table.metadata_location.removeprefix(f"s3://{WAREHOUSE}/")
    manifest_list_key = table.current_snapshot().manifest_list.removeprefix(f"s3://{WAREHOUSE}/")
    for key in (metadata_key, manifest_list_key):
        with pytest.raises(Exception, match="AccessDenied"):
            s3.delete_object(Bucket=WAREHOUSE, Key=key)
    data_key = next(
        o["Key"] for o in s3.list_objects_v2(Bucket=WAREHOUSE, Prefix=metadata_key.split("/")[0])["Contents"]
        if o["Key"].endswith(".parquet"))
    with pytest.raises(Exception, match="AccessDenied"):
        s3.put_object(Bucket=WAREHOUSE, Key=data_key, Body=b"corrupt")
    with pytest.raises(Exception, match="AccessDenied"):
        s3.copy_object(Bucket=WAREHOUSE, Key=metadata_key, CopySource={"Bucket": WAREHOUSE, "Key": data_key})
    result = s3.delete_objects(Bucket=WAREHOUSE, Delete={"Objects": [{"Key": metadata_key}]})
    assert result["Errors"][0]["Code"] == "AccessDenied"
    # new files can still be written, and the table still reads
    new_key = metadata_key.rsplit("/", 1)[0] + "/extra-file.txt"
    s3.put_object(Bucket=WAREHOUSE, Key=new_key, Body=b"new")
    s3.delete_object(Bucket=WAREHOUSE, Key=new_key)
    assert sorted(catalog.load_table(f"{namespace}.protected").scan().to_arrow().column("id").to_pylist()) == [1, 2]
    # once expired from the metadata, an old metadata file may be removed
    old_metadata = catalog.load_table(f"{namespace}.protected").metadata.metadata_log[0].metadata_file
    s3.delete_object(Bucket=WAREHOUSE, Key=old_metadata.removeprefix(f"s3://{WAREHOUSE}/"))


def test_directory_markers_may_be_written_again_under_a_table(server, catalog, namespace):
    """pyarrow's S3 filesystem writes a zero-byte ``dir/`` marker back each time it deletes a directory's
    last file (as PyIceberg does when it cleans up); under a table location that is not an overwrite to refuse."""
    from pyarrow.fs import S3FileSystem

    table = catalog.create_table(f"{namespace}.markers", schema=SCHEMA)
    table.append(rows([1]))
    arrow_fs = S3FileSystem(access_key=ROOT_USER, secret_key=ROOT_PASSWORD, region="us-east-1", scheme="http",
                            endpoint_override=server.endpoint.removeprefix("http://"))
    scratch = table.location().removeprefix("s3://") + "/data/scratch"
    for _ in range(2):
        for name in ("a", "b"):
            with arrow_fs.open_output_stream(f"{scratch}/{name}") as out:
                out.write(b"x")
        arrow_fs.delete_file(f"{scratch}/a")
        arrow_fs.delete_file(f"{scratch}/b")  # writes the marker again: it exists from the first round
    s3 = make_s3_client(server.endpoint)
    marker = scratch.removeprefix(f"{WAREHOUSE}/") + "/"
    assert s3.head_object(Bucket=WAREHOUSE, Key=marker)["ContentLength"] == 0
    # anything but an empty marker over an empty marker is still an overwrite
    with pytest.raises(Exception, match="AccessDenied"):
        s3.put_object(Bucket=WAREHOUSE, Key=marker, Body=b"not a marker")
    data_key = next(o["Key"] for o in s3.list_objects_v2(Bucket=WAREHOUSE, Prefix=marker.split("/")[0])["Contents"]
                    if o["Key"].endswith(".parquet"))
    with pytest.raises(Exception, match="AccessDenied"):
        s3.put_object(Bucket=WAREHOUSE, Key=data_key, Body=b"")
    assert table.scan().to_arrow().column("id").to_pylist() == [1]
