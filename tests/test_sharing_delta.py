"""Delta tables written by deltalake into the server's S3, shared, and read back with the released
``delta-sharing`` client (1.4.2) in both response formats: the answers must equal what deltalake
reads from the same table directly."""

from __future__ import annotations

import datetime
import json
import time

import delta_sharing
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, QueryBuilder, write_deltalake

from .conftest import admin_call, make_s3_client
from .sharing_support import (
    create_share,
    ndjson,
    share_profile,
    sharing_request,
    storage_options,
    table_path,
    write_profile,
)

EMPLOYEES = pd.DataFrame({
    "id": [1, 2, 3, 4, 5],
    "name": ["Alice", "Bob", "Carol", "David", "Eve"],
    "department": ["Engineering", "Sales", "Engineering", "Marketing", "Sales"],
    "salary": [95000, 65000, 110000, 72000, 68000],
})


def rows(df: pd.DataFrame, by: str | list[str] = "id") -> list[dict]:
    """Order-free, dtype-tolerant rows for comparing a shared read with a direct one."""
    columns = sorted(c for c in df.columns if c != "_commit_timestamp")
    frame = df[columns].sort_values(by=by).reset_index(drop=True)
    return json.loads(frame.to_json(orient="records", date_format="iso"))


@pytest.fixture
def table(server, s3, bucket):
    """A function writing a Delta table under the test's bucket; returns (s3 uri, spec, options)."""
    options = storage_options(server)

    def make(name: str, df: pd.DataFrame, **kwargs) -> tuple[str, str]:
        uri = f"s3://{bucket}/tables/{name}"
        write_deltalake(uri, df, storage_options=options, **kwargs)
        return uri, f"{name}:delta:{bucket}:tables/{name}"

    make.options = options
    make.bucket = bucket
    return make


def direct(uri: str, options: dict, **kwargs) -> pd.DataFrame:
    """deltalake's own read, through its query engine (its plain pyarrow path ignores column mapping)."""
    table = DeltaTable(uri, storage_options=options, **kwargs)
    return pa.table(QueryBuilder().register("t", table).execute("select * from t").read_all()).to_pandas()


def test_seed_quickstart_consumer_code(server, table, tmp_path):
    """Seed 003's consumer code, unchanged but for the profile path."""
    _, spec = table("employees", EMPLOYEES)
    share, profile = share_profile(server, tmp_path, "HR", [spec])

    client = delta_sharing.SharingClient(profile)
    assert [s.name for s in client.list_shares()] == [share]
    assert [(t.share, t.schema, t.name) for t in client.list_all_tables()] == [(share, "HR", "employees")]
    df = delta_sharing.load_as_pandas(f"{profile}#{share}.HR.employees")
    assert rows(df) == rows(EMPLOYEES)
    eng = df[df["department"] == "Engineering"]
    assert sorted(eng["name"]) == ["Alice", "Carol"]


def test_both_formats_equal_deltalake_after_appends_deletes_updates(server, table, tmp_path):
    uri, spec = table("events", EMPLOYEES, partition_by=["department"])
    write_deltalake(uri, EMPLOYEES.assign(id=EMPLOYEES["id"] + 10), mode="append", storage_options=table.options)
    dt = DeltaTable(uri, storage_options=table.options)
    dt.delete("id = 2")
    dt.update({"salary": "1"}, predicate="id = 13")
    share, profile = share_profile(server, tmp_path, "s", [spec])
    url = f"{profile}#{share}.s.events"

    expected = rows(direct(uri, table.options))
    assert rows(delta_sharing.load_as_pandas(url)) == expected
    assert rows(delta_sharing.load_as_pandas(url, use_delta_format=False)) == expected
    assert rows(delta_sharing.load_as_pandas(url, use_delta_format=True)) == expected
    assert delta_sharing.get_table_version(url) == dt.version() == 3
    metadata = delta_sharing.get_table_metadata(url, use_delta_format=False)
    assert list(metadata.partition_columns) == ["department"]
    assert [f["name"] for f in json.loads(metadata.schema_string)["fields"]] == list(EMPLOYEES.columns)


def test_limit_returns_that_many_rows_and_fewer_files(server, table, tmp_path):
    uri, spec = table("limited", EMPLOYEES.iloc[:2])
    for start in range(2, 10, 2):
        write_deltalake(uri, EMPLOYEES.iloc[:2].assign(id=[start + 1, start + 2]), mode="append",
                        storage_options=table.options)
    share, profile = share_profile(server, tmp_path, "s", [spec])
    url = f"{profile}#{share}.s.limited"

    assert len(delta_sharing.load_as_pandas(url, limit=3)) == 3
    assert len(delta_sharing.load_as_pandas(url, limit=3, use_delta_format=True)) == 3
    assert len(delta_sharing.load_as_pandas(url, limit=0)) == 0
    all_files = [line for line in ndjson(sharing_request(profile, "POST", table_path(share, "s", "limited") + "/query",
                                                         json_body={})) if "file" in line]
    limited = [line for line in ndjson(sharing_request(profile, "POST", table_path(share, "s", "limited") + "/query",
                                                       json_body={"limitHint": 3})) if "file" in line]
    assert len(all_files) == 5
    assert len(limited) == 2  # two files of two rows hold the first three rows


def test_time_travel_by_version_and_timestamp(server, table, tmp_path):
    uri, spec = table("history", EMPLOYEES.iloc[:1])
    stamps = []
    for i in range(2, 4):
        time.sleep(1.2)  # commit times a clear second apart, so a timestamp between them is unambiguous
        stamps.append(datetime.datetime.now(datetime.UTC))
        time.sleep(1.2)
        write_deltalake(uri, EMPLOYEES.iloc[i - 1:i], mode="append", storage_options=table.options)
    share, profile = share_profile(server, tmp_path, "s", [spec])
    url = f"{profile}#{share}.s.history"

    for version in range(3):
        expected = rows(direct(uri, table.options, version=version))
        assert len(expected) == version + 1
        assert rows(delta_sharing.load_as_pandas(url, version=version)) == expected
        assert rows(delta_sharing.load_as_pandas(url, version=version, use_delta_format=True)) == expected
    for version, stamp in enumerate(stamps):
        text = stamp.strftime("%Y-%m-%dT%H:%M:%SZ") if stamp.microsecond == 0 else stamp.isoformat()
        dt = DeltaTable(uri, storage_options=table.options)
        dt.load_as_version(stamp)
        assert dt.version() == version
        assert rows(delta_sharing.load_as_pandas(url, timestamp=text)) == rows(direct(uri, table.options,
                                                                                     version=dt.version()))
        # The first version committed at or after the timestamp.
        assert delta_sharing.get_table_version(url, starting_timestamp=text) == version + 1


def test_json_predicate_hints_prune_partitions_and_skip_on_stats(server, table, tmp_path):
    uri, spec = table("pruned", EMPLOYEES, partition_by=["department"])
    write_deltalake(uri, EMPLOYEES.assign(id=EMPLOYEES["id"] + 100), mode="append", storage_options=table.options)
    share, profile = share_profile(server, tmp_path, "s", [spec])
    url = f"{profile}#{share}.s.pruned"
    sales = json.dumps({"op": "equal", "children": [
        {"op": "column", "name": "department", "valueType": "string"},
        {"op": "literal", "value": "Sales", "valueType": "string"}]})

    df = delta_sharing.load_as_pandas(url, jsonPredicateHints=sales)
    expected = direct(uri, table.options)
    assert rows(df) == rows(expected[expected["department"] == "Sales"])
    df = delta_sharing.load_as_pandas(url, jsonPredicateHints=sales, use_delta_format=True)
    assert set(df["department"]) == {"Sales"}

    def files(hint) -> list[dict]:
        body = {} if hint is None else {"jsonPredicateHints": hint}
        answer = ndjson(sharing_request(profile, "POST", table_path(share, "s", "pruned") + "/query", json_body=body))
        return [line["file"] for line in answer if "file" in line]

    assert len(files(None)) == 6
    # Data skipping on stats: only the second commit's files hold ids above 100.
    high_ids = json.dumps({"op": "greaterThan", "children": [
        {"op": "column", "name": "id", "valueType": "long"}, {"op": "literal", "value": "100", "valueType": "long"}]})
    assert {json.loads(f["stats"])["minValues"]["id"] > 100 for f in files(high_ids)} == {True}
    assert len(files(high_ids)) == 3
    either = json.dumps({"op": "or", "children": [json.loads(sales), json.loads(high_ids)]})
    assert len(files(either)) == 4
    negated = json.dumps({"op": "not", "children": [json.loads(sales)]})
    assert {f["partitionValues"]["department"] for f in files(negated)} == {"Engineering", "Marketing"}
    # Hints the server cannot use are ignored, as the protocol says: every file comes back.
    assert len(files("{not json")) == 6
    assert len(files(json.dumps({"op": "equal", "children": []}))) == 6
    unknown_column = json.dumps({"op": "equal", "children": [
        {"op": "column", "name": "nope", "valueType": "int"}, {"op": "literal", "value": "1", "valueType": "int"}]})
    assert len(files(unknown_column)) == 6


def test_change_data_feed_by_version_and_timestamp(server, table, tmp_path):
    uri, spec = table("cdf", EMPLOYEES, configuration={"delta.enableChangeDataFeed": "true"})
    dt = DeltaTable(uri, storage_options=table.options)
    time.sleep(1.2)
    middle = datetime.datetime.now(datetime.UTC)
    time.sleep(1.2)
    dt.delete("id = 2")
    dt.update({"salary": "0"}, predicate="id = 3")
    write_deltalake(uri, EMPLOYEES.iloc[:1].assign(id=[9]), mode="append", storage_options=table.options)
    share, profile = share_profile(server, tmp_path, "s", [spec])
    url = f"{profile}#{share}.s.cdf"
    by = ["_commit_version", "_change_type", "id"]

    def expected(start: int, end: int | None = None) -> list[dict]:
        table_now = DeltaTable(uri, storage_options=table.options)
        reader = table_now.load_cdf(starting_version=start, ending_version=end)
        return rows(pa.table(reader.read_all()).to_pandas(), by)

    assert rows(delta_sharing.load_table_changes_as_pandas(url, 0, 3), by) == expected(0, 3)
    assert rows(delta_sharing.load_table_changes_as_pandas(url, 1, 2), by) == expected(1, 2)
    assert rows(delta_sharing.load_table_changes_as_pandas(url, 1, use_delta_format=True), by) == expected(1)
    changes = delta_sharing.load_table_changes_as_pandas(url, starting_timestamp=middle.isoformat())
    assert rows(changes, by) == expected(1)
    assert set(changes["_change_type"]) == {"delete", "update_preimage", "update_postimage", "insert"}
    # Commit timestamps are the versions' timestamps.
    version_1 = changes[changes["_commit_version"] == 1]["_commit_timestamp"].iloc[0]
    assert abs(version_1 - middle.timestamp() * 1000) < 60_000


def test_change_data_feed_refused_on_tables_without_it(server, table, tmp_path):
    _, spec = table("nocdf", EMPLOYEES)
    share, profile = share_profile(server, tmp_path, "s", [spec])
    response = sharing_request(profile, "GET", table_path(share, "s", "nocdf") + "/changes",
                               params={"startingVersion": 0})
    assert response.status_code == 400
    assert response.json()["errorCode"] == "INVALID_PARAMETER_VALUE"
    assert "delta.enableChangeDataFeed" in response.json()["message"]


def _commit_history(uri: str, options: dict, commits: int) -> None:
    for i in range(commits):
        write_deltalake(uri, EMPLOYEES.assign(id=EMPLOYEES["id"] + 10 * (i + 1)), mode="append",
                        storage_options=options)


def _drop_commits_before(s3, bucket: str, log: str, version: int) -> None:
    """Log cleanup: the commits before the checkpoint are gone, so only the checkpoint can tell."""
    for v in range(version + 1):
        s3.delete_object(Bucket=bucket, Key=f"{log}/{v:020d}.json")


@pytest.mark.parametrize("layout", ["classic", "multi-part", "v2-json", "v2-parquet"])
def test_checkpoints(server, table, tmp_path, layout):
    name = f"ckpt-{layout}"
    uri, spec = table(name, EMPLOYEES, partition_by=["department"])
    _commit_history(uri, table.options, 3)
    dt = DeltaTable(uri, storage_options=table.options)
    dt.delete("id = 11")
    dt.create_checkpoint()  # at version 4
    write_deltalake(uri, EMPLOYEES.iloc[:1].assign(id=[99]), mode="append", storage_options=table.options)
    expected = rows(direct(uri, table.options))
    expected_v4 = rows(direct(uri, table.options, version=4))
    s3 = make_s3_client(server.endpoint)
    bucket, log = table.bucket, f"tables/{name}/_delta_log"
    classic = f"{log}/{4:020d}.checkpoint.parquet"
    checkpoint = pq.read_table(pa.BufferReader(s3.get_object(Bucket=bucket, Key=classic)["Body"].read()))
    if layout != "classic":
        s3.delete_object(Bucket=bucket, Key=classic)
        s3.delete_object(Bucket=bucket, Key=f"{log}/_last_checkpoint")
    if layout == "multi-part":
        half = checkpoint.num_rows // 2
        for part, piece in enumerate([checkpoint.slice(0, half), checkpoint.slice(half)], start=1):
            s3.put_object(Bucket=bucket, Key=f"{log}/{4:020d}.checkpoint.{part:010d}.{2:010d}.parquet",
                          Body=_parquet_bytes(piece))
    elif layout.startswith("v2"):
        adds = checkpoint.filter(pa.compute.is_valid(checkpoint.column("add"))).select(["add"])
        sidecar = "00000000000000000004.sidecar-1.parquet"
        s3.put_object(Bucket=bucket, Key=f"{log}/_sidecars/{sidecar}", Body=_parquet_bytes(adds))
        rest = [row for row in checkpoint.select(["protocol", "metaData"]).to_pylist()
                if row["protocol"] or row["metaData"]]
        actions = [{"checkpointMetadata": {"version": 4}}] + [
            {k: _json_map(v) for k, v in row.items() if v} for row in rest
        ] + [{"sidecar": {"path": sidecar, "sizeInBytes": 1, "modificationTime": 0}}]
        name_v2 = f"{log}/{4:020d}.checkpoint.3a0d65cd-4056-49b8-937b-95f9e3ee90e5"
        if layout == "v2-json":
            s3.put_object(Bucket=bucket, Key=f"{name_v2}.json", Body="\n".join(json.dumps(a) for a in actions))
        else:
            s3.put_object(Bucket=bucket, Key=f"{name_v2}.parquet", Body=_parquet_bytes(pa.Table.from_pylist(
                [{"checkpointMetadata": None, "sidecar": None, **row} for row in rest]
                + [{"sidecar": actions[-1]["sidecar"], "protocol": None, "metaData": None}])))
    _drop_commits_before(s3, bucket, log, 4)
    share, profile = share_profile(server, tmp_path, "s", [spec])
    url = f"{profile}#{share}.s.{name}"

    assert rows(delta_sharing.load_as_pandas(url)) == expected
    assert rows(delta_sharing.load_as_pandas(url, use_delta_format=True)) == expected
    assert rows(delta_sharing.load_as_pandas(url, version=4)) == expected_v4
    response = sharing_request(profile, "POST", table_path(share, "s", name) + "/query", json_body={"version": 3})
    assert response.status_code == 400 and response.json()["errorCode"] == "INVALID_PARAMETER_VALUE"


def _parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def _json_map(action: dict) -> dict:
    """A checkpoint row's action as JSON commits write it (Parquet maps read as key/value lists)."""
    out = {}
    for key, value in action.items():
        if isinstance(value, list) and value and isinstance(value[0], tuple):
            value = dict(value)
        elif isinstance(value, dict):
            value = _json_map(value)
        if value is not None:
            out[key] = value
    if "configuration" in action and not action["configuration"]:
        out["configuration"] = {}
    return out


@pytest.mark.parametrize("mode", ["name", "id"])
def test_column_mapping(server, table, tmp_path, mode):
    name = f"mapped-{mode}"
    uri, spec = table(name, EMPLOYEES, partition_by=["department"],
                      configuration={"delta.columnMapping.mode": mode})
    DeltaTable(uri, storage_options=table.options).delete("id = 4")
    share, profile = share_profile(server, tmp_path, "s", [spec])
    url = f"{profile}#{share}.s.{name}"

    expected = rows(direct(uri, table.options))
    assert rows(delta_sharing.load_as_pandas(url)) == expected  # the client picks the delta format
    sales = json.dumps({"op": "equal", "children": [
        {"op": "column", "name": "department", "valueType": "string"},
        {"op": "literal", "value": "Sales", "valueType": "string"}]})
    assert set(delta_sharing.load_as_pandas(url, jsonPredicateHints=sales, use_delta_format=True)["department"]) \
        == {"Sales"}
    # The parquet format cannot carry column mapping: a clear refusal, not wrong columns.
    response = sharing_request(profile, "POST", table_path(share, "s", name) + "/query", json_body={})
    assert response.status_code == 400
    assert response.json()["errorCode"] == "UNSUPPORTED_OPERATION"
    assert "columnmapping" in response.json()["message"]


def test_deletion_vectors_served_in_delta_format(server, table, tmp_path):
    """deltalake enables the feature but rewrites files on delete, so the vector is written here, in
    the Delta protocol's format, and committed as Spark would."""
    uri, spec = table("dv", EMPLOYEES, configuration={"delta.enableDeletionVectors": "true"})
    s3 = make_s3_client(server.endpoint)
    bucket, root = table.bucket, "tables/dv"
    add = next(json.loads(line)["add"] for line in s3.get_object(
        Bucket=bucket, Key=f"{root}/_delta_log/{0:020d}.json")["Body"].read().splitlines() if b'"add"' in line)
    descriptor = _write_deletion_vector(s3, bucket, root, rows_to_delete=[1, 3])
    now = int(time.time() * 1000)
    commit = [
        {"commitInfo": {"timestamp": now, "operation": "DELETE"}},
        {"remove": {"path": add["path"], "deletionTimestamp": now, "dataChange": True,
                    "extendedFileMetadata": True, "partitionValues": {}, "size": add["size"]}},
        {"add": {**add, "modificationTime": now, "deletionVector": descriptor}},
    ]
    s3.put_object(Bucket=bucket, Key=f"{root}/_delta_log/{1:020d}.json", IfNoneMatch="*",
                  Body="\n".join(json.dumps(a) for a in commit))
    share, profile = share_profile(server, tmp_path, "s", [spec])
    url = f"{profile}#{share}.s.dv"

    expected = EMPLOYEES.drop(index=[1, 3])
    assert rows(direct(uri, table.options)) == rows(expected)
    assert rows(delta_sharing.load_as_pandas(url)) == rows(expected)
    assert rows(delta_sharing.load_as_pandas(url, version=0, use_delta_format=True)) == rows(EMPLOYEES)
    answer = ndjson(sharing_request(profile, "POST", table_path(share, "s", "dv") + "/query", json_body={},
                                    headers={"delta-sharing-capabilities":
                                             "responseformat=delta;readerfeatures=deletionvectors"}))
    vector = answer[2]["file"]["deltaSingleAction"]["add"]["deletionVector"]
    assert vector["storageType"] == "p" and "X-Amz-Signature=" in vector["pathOrInlineDv"]
    response = sharing_request(profile, "POST", table_path(share, "s", "dv") + "/query", json_body={})
    assert response.status_code == 400 and response.json()["errorCode"] == "UNSUPPORTED_OPERATION"


def _write_deletion_vector(s3, bucket: str, root: str, rows_to_delete: list[int]) -> dict:
    """A deletion vector file (format version 1: size, RoaringBitmapArray with magic, CRC-32) under a
    random prefix, and its descriptor in the ``u`` (relative, Z85 UUID) form."""
    import uuid
    import zlib

    from pyroaring import BitMap

    bitmap = (1681511377).to_bytes(4, "little") + (1).to_bytes(8, "little") + (0).to_bytes(4, "little") \
        + BitMap(rows_to_delete).serialize()
    data = b"\x01" + len(bitmap).to_bytes(4, "big") + bitmap + zlib.crc32(bitmap).to_bytes(4, "big")
    file_id = uuid.uuid4()
    s3.put_object(Bucket=bucket, Key=f"{root}/ab/deletion_vector_{file_id}.bin", Body=data)
    return {"storageType": "u", "pathOrInlineDv": "ab" + _z85(file_id.bytes), "offset": 1,
            "sizeInBytes": len(bitmap), "cardinality": len(rows_to_delete)}


def _z85(data: bytes) -> str:
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
    out = []
    for start in range(0, len(data), 4):
        value = int.from_bytes(data[start:start + 4], "big")
        out.append("".join(alphabet[value // 85 ** i % 85] for i in range(4, -1, -1)))
    return "".join(out)


def test_oauth_client_credentials_profile(server, table, tmp_path):
    _, spec = table("oauth", EMPLOYEES)
    share = create_share(server, "s", [spec])
    status, client = admin_call(server, "POST", f"/shares/{share}/clients", {"description": "partner"})
    assert status == 201
    profile = client["profile"]
    assert profile["shareCredentialsVersion"] == 2 and profile["type"] == "oauth_client_credentials"
    path = write_profile(tmp_path, profile)

    assert [t.name for t in delta_sharing.SharingClient(path).list_all_tables()] == ["oauth"]
    assert rows(delta_sharing.load_as_pandas(f"{path}#{share}.s.oauth")) == rows(EMPLOYEES)

    import requests
    token = requests.post(profile["tokenEndpoint"], data={"grant_type": "client_credentials"},
                          auth=(profile["clientId"], profile["clientSecret"]), timeout=30)
    assert token.status_code == 200 and token.json()["expires_in"] > 600
    wrong = requests.post(profile["tokenEndpoint"], data={"grant_type": "client_credentials"},
                          auth=(profile["clientId"], "wrong"), timeout=30)
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    # Deleting the client revokes the access tokens it was given.
    access = {"endpoint": profile["endpoint"], "bearerToken": token.json()["access_token"]}
    assert sharing_request(access, "GET", "/shares").status_code == 200
    assert admin_call(server, "DELETE", f"/shares/{share}/clients/{client['clientId']}")[0] == 200
    assert sharing_request(access, "GET", "/shares").status_code == 401


def test_unique_names_do_not_collide_across_shares(server, table, tmp_path):
    """Two shares of the same table, each with its own token, see only themselves."""
    _, spec = table("both", EMPLOYEES)
    first, first_profile = share_profile(server, tmp_path, "s", [spec])
    second, second_profile = share_profile(server, tmp_path, "s", [spec])
    assert [s.name for s in delta_sharing.SharingClient(first_profile).list_shares()] == [first]
    assert [s.name for s in delta_sharing.SharingClient(second_profile).list_shares()] == [second]
    response = sharing_request(first_profile, "GET", f"/shares/{second}/schemas")
    assert response.status_code == 404 and response.json()["errorCode"] == "RESOURCE_DOES_NOT_EXIST"
