"""Delta checkpoints of shared Delta tables (issue 22): written on request through the admin API,
then read by the sharing server (from ``_last_checkpoint`` on) and by deltalake, with the same
answers as before; the log's rules for what a checkpoint holds; refusals that write nothing."""

from __future__ import annotations

import json
import time
import uuid

import delta_sharing
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, write_deltalake
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from aistor_lab.sharing.delta_checkpoint import SCHEMA, write_checkpoint
from aistor_lab.sharing.delta_log import DeltaLogSource
from aistor_lab.sharing.errors import InvalidParameter, UnsupportedOperation
from aistor_lab.store import LocalStore
from aistor_lab.workbench.client import AIStorClient, ServiceError
from aistor_lab.workbench.commands.registry import execute, panel_front
from aistor_lab.workbench.service_config import ServiceConfig

from .conftest import ROOT_PASSWORD, ROOT_USER, admin_call, catalog_call, seed_catalog_properties
from .sharing_support import ndjson, share_profile, sharing_request, storage_options, table_path

APPENDS = 60
DAY_MS = 86_400_000


def _checkpoint_path(share: str, schema: str, table: str) -> str:
    return f"/shares/{share}/schemas/{schema}/tables/{table}/checkpoint"


def _rows(df: pd.DataFrame, by: list[str]) -> list[dict]:
    columns = sorted(c for c in df.columns if c != "_commit_timestamp")
    return json.loads(df[columns].sort_values(by=by).reset_index(drop=True).to_json(orient="records"))


def _files(lines: list[dict]) -> list[str]:
    """The file lines of a query or changes answer, without what changes with every answer (presigned
    URLs and their expiry), in a stable order."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("url", "path", "expirationTimestamp")}
        return value

    kinds = ("file", "add", "cdf", "remove")
    return sorted(json.dumps(strip(line), sort_keys=True) for line in lines if any(k in line for k in kinds))


def _add_actions(uri: str, options: dict) -> list[dict]:
    """deltalake's view of the table's live files, in path order."""
    actions = pa.table(DeltaTable(uri, storage_options=options).get_add_actions(flatten=True)).to_pylist()
    return sorted(actions, key=lambda action: action["path"])


def _keys(s3, bucket: str) -> dict[str, str]:
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
    return {o["Key"]: o["ETag"] for page in pages for o in page.get("Contents", [])}


@pytest.fixture
def long_log(server, bucket):
    """A partitioned Delta table with change data feed: 60 appends, a delete and an overwrite of one
    partition (so the log has remove actions), written by deltalake through the server's S3."""
    options = storage_options(server)
    uri = f"s3://{bucket}/tables/events"
    frame = pd.DataFrame({"id": [0, 1], "day": ["d0", "d1"], "value": [0.0, 0.5]})
    write_deltalake(uri, frame, partition_by=["day"], storage_options=options,
                    configuration={"delta.enableChangeDataFeed": "true"})
    for i in range(1, APPENDS + 1):
        write_deltalake(uri, pd.DataFrame({"id": [10 * i, 10 * i + 1], "day": [f"d{i % 3}", f"d{i % 5}"],
                                           "value": [i * 1.5, i * 2.5]}), mode="append", storage_options=options)
    table = DeltaTable(uri, storage_options=options)
    table.delete("id = 20")
    write_deltalake(uri, pd.DataFrame({"id": [999], "day": ["d4"], "value": [9.9]}), mode="overwrite",
                    predicate="day = 'd4'", storage_options=options)
    return uri, f"events:delta:{bucket}:tables/events", options


def _answers(profile: str, share: str, old_version: int, latest: int) -> dict:
    """What recipients get: rows and files at the latest and an old version, and change data."""
    url = f"{profile}#{share}.s.events"
    query = table_path(share, "s", "events") + "/query"
    changes = table_path(share, "s", "events") + "/changes"
    by = ["_commit_version", "_change_type", "id"]
    return {
        "rows": _rows(delta_sharing.load_as_pandas(url), ["id"]),
        "rows_delta_format": _rows(delta_sharing.load_as_pandas(url, use_delta_format=True), ["id"]),
        "old_rows": _rows(delta_sharing.load_as_pandas(url, version=old_version), ["id"]),
        "files": _files(ndjson(sharing_request(profile, "POST", query, json_body={}))),
        "old_files": _files(ndjson(sharing_request(profile, "POST", query, json_body={"version": old_version}))),
        "delta_files": _files(ndjson(sharing_request(profile, "POST", query, json_body={},
                                                     headers={"delta-sharing-capabilities": "responseformat=delta"}))),
        "changes": _rows(delta_sharing.load_table_changes_as_pandas(url, 0, latest), by),
        "recent_changes": _files(ndjson(sharing_request(profile, "GET", changes,
                                                        params={"startingVersion": latest - 3}))),
        "version": delta_sharing.get_table_version(url),
    }


def test_checkpoint_keeps_every_answer_and_deltalake_reads_it(server, s3, bucket, long_log, tmp_path):
    uri, spec, options = long_log
    latest = DeltaTable(uri, storage_options=options).version()
    assert latest == APPENDS + 2
    share, profile = share_profile(server, tmp_path, "s", [spec])
    before = _answers(profile, share, 5, latest)
    adds_before = _add_actions(uri, options)
    assert before["rows"] and len(before["old_rows"]) == 12

    status, result = admin_call(server, "POST", _checkpoint_path(share, "s", "events"))
    assert status == 200, result
    checkpoint_key = f"tables/events/_delta_log/{latest:020d}.checkpoint.parquet"
    assert result == {"version": latest, "path": f"s3://{bucket}/{checkpoint_key}", "written": True,
                      "addFiles": len(adds_before), "bytes": result["bytes"]}
    assert result["bytes"] == s3.head_object(Bucket=bucket, Key=checkpoint_key)["ContentLength"]
    last = json.loads(s3.get_object(Bucket=bucket, Key="tables/events/_delta_log/_last_checkpoint")["Body"].read())
    assert last["version"] == latest and last["numOfAddFiles"] == len(adds_before)
    assert last["sizeInBytes"] == result["bytes"]
    written = pq.read_table(pa.BufferReader(s3.get_object(Bucket=bucket, Key=checkpoint_key)["Body"].read()))
    assert written.schema.equals(SCHEMA) and last["size"] == written.num_rows
    assert written.column("remove").drop_null().to_pylist()  # the delete's and overwrite's tombstones

    assert _answers(profile, share, 5, latest) == before
    after = DeltaTable(uri, storage_options=options)
    assert after.version() == latest
    assert _add_actions(uri, options) == adds_before
    assert sorted(pa.table(after.to_pyarrow_dataset().to_table()).column("id").to_pylist()) == sorted(
        r["id"] for r in before["rows"])

    # Asked again: that version has its checkpoint; nothing is written.
    keys = _keys(s3, bucket)
    status, again = admin_call(server, "POST", _checkpoint_path(share, "s", "events"))
    assert status == 200 and again == {**result, "written": False}
    assert _keys(s3, bucket) == keys

    # Log cleanup: without the commits before it, the checkpoint alone carries the table.
    for version in range(latest):
        s3.delete_object(Bucket=bucket, Key=f"tables/events/_delta_log/{version:020d}.json")
    assert _add_actions(uri, options) == adds_before
    url = f"{profile}#{share}.s.events"
    assert _rows(delta_sharing.load_as_pandas(url), ["id"]) == before["rows"]
    response = sharing_request(profile, "POST", table_path(share, "s", "events") + "/query", json_body={"version": 5})
    assert response.status_code == 400 and response.json()["errorCode"] == "INVALID_PARAMETER_VALUE"


def test_new_commits_after_a_checkpoint_are_served_and_checkpointed(server, s3, bucket, long_log, tmp_path):
    uri, spec, options = long_log
    share, profile = share_profile(server, tmp_path, "s", [spec])
    url = f"{profile}#{share}.s.events"
    assert admin_call(server, "POST", _checkpoint_path(share, "s", "events"))[0] == 200
    write_deltalake(uri, pd.DataFrame({"id": [5000], "day": ["d9"], "value": [1.0]}), mode="append",
                    storage_options=options)
    expected = sorted(DeltaTable(uri, storage_options=options).to_pyarrow_dataset().to_table().column("id").to_pylist())
    assert sorted(delta_sharing.load_as_pandas(url)["id"]) == expected
    client = AIStorClient(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD))
    done = execute(["share", "checkpoint", share, "s/events"], panel_front(), service=client.config)[1]
    assert done.data()["written"] and done.data()["version"] == APPENDS + 3
    assert done.text().startswith(f"Checkpoint of version {APPENDS + 3} of s/events written")
    again = execute(["share", "checkpoint", share, "s/events"], panel_front(), service=client.config)[1]
    assert not again.data()["written"] and "nothing written" in again.text()
    with pytest.raises(ServiceError) as refused:
        client.checkpoint_shared_table(share, "s", "no-such-table")
    assert refused.value.status == 404
    last = json.loads(s3.get_object(Bucket=bucket, Key="tables/events/_delta_log/_last_checkpoint")["Body"].read())
    assert last["version"] == APPENDS + 3
    assert sorted(delta_sharing.load_as_pandas(url)["id"]) == expected


def _iceberg_table(server) -> str:
    warehouse = f"wh-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] in (200, 201)
    catalog = load_catalog("checkpoint", **seed_catalog_properties(server, warehouse))
    catalog.create_namespace("ns")
    catalog.create_table("ns.t", Schema(NestedField(1, "id", LongType(), required=False)))
    return warehouse


def test_refusals_write_nothing(server, s3, bucket, tmp_path):
    options = storage_options(server)
    write_deltalake(f"s3://{bucket}/tables/kept", pd.DataFrame({"id": [1]}), storage_options=options)
    write_deltalake(f"s3://{bucket}/tables/unshared", pd.DataFrame({"id": [1]}), storage_options=options)
    warehouse = _iceberg_table(server)
    share, _ = share_profile(server, tmp_path, "s", [f"kept:delta:{bucket}:tables/kept",
                                                     f"ice:uniform:{warehouse}:ns:t",
                                                     f"empty:delta:{bucket}:tables/nothing-here"])
    keys = _keys(s3, bucket)

    status, body = admin_call(server, "POST", _checkpoint_path(share, "s", "ice"))
    assert status == 400 and body["code"] == "INVALID_PARAMETER_VALUE" and "Iceberg" in body["message"]
    for path in (_checkpoint_path(share, "s", "unshared"), _checkpoint_path(share, "other", "kept"),
                 _checkpoint_path("no-such-share", "s", "kept"), _checkpoint_path(share, "s", "empty")):
        status, body = admin_call(server, "POST", path)
        assert status == 404 and body["code"] == "RESOURCE_DOES_NOT_EXIST", (path, body)
    status, body = admin_call(server, "POST", _checkpoint_path(share, "s", "..%2Fkept"))
    assert status in (400, 404) and body["code"] in ("INVALID_PARAMETER_VALUE", "RESOURCE_DOES_NOT_EXIST")
    assert _keys(s3, bucket) == keys


# -- in process: what a checkpoint holds, and how the reader falls back ---------------------------
@pytest.fixture
def store(tmp_path):
    store = LocalStore(tmp_path / "store")
    store.create_bucket("b")
    yield store
    store.close()


def _commit(store, version: int, *actions: dict) -> None:
    store.put_bytes("b", f"t/_delta_log/{version:020d}.json", "\n".join(map(json.dumps, actions)).encode())


def _add(path: str, **fields) -> dict:
    return {"add": {"path": path, "size": 1, "partitionValues": {"p": "a b"}, "modificationTime": 1,
                    "dataChange": True, "stats": '{"numRecords":1}', **fields}}


PROTOCOL = {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": ["deletionVectors"],
                         "writerFeatures": ["deletionVectors", "domainMetadata"]}}
METADATA = {"metaData": {"id": "x", "format": {"provider": "parquet", "options": {}}, "partitionColumns": ["p"],
                         "schemaString": '{"type":"struct","fields":[{"name":"p","type":"string",'
                                         '"nullable":true,"metadata":{}}]}',
                         "configuration": {"delta.deletedFileRetentionDuration": "interval 2 days"}}}
DV = {"storageType": "u", "pathOrInlineDv": "ab^-aqEH.-t@S}K{vb[*k^", "offset": 4, "sizeInBytes": 40,
      "cardinality": 2}


def test_checkpoint_holds_what_the_protocol_asks(store):
    now = int(time.time() * 1000)
    _commit(store, 0, PROTOCOL, METADATA, _add("p=a%2520b/old.parquet"), _add("p=a%2520b/expired.parquet"),
            {"txn": {"appId": "app", "version": 1, "lastUpdated": 1}},
            {"domainMetadata": {"domain": "gone", "configuration": "{}", "removed": False}})
    _commit(store, 1, {"remove": {"path": "p=a%2520b/old.parquet", "deletionTimestamp": now - DAY_MS,
                                  "dataChange": True, "partitionValues": {"p": "a b"}, "size": 1}},
            {"remove": {"path": "p=a%2520b/expired.parquet", "deletionTimestamp": now - 3 * DAY_MS,
                        "dataChange": True}},
            _add("p=a%2520b/new.parquet", deletionVector=DV),
            {"txn": {"appId": "app", "version": 2, "lastUpdated": 2}},
            {"domainMetadata": {"domain": "gone", "configuration": "{}", "removed": True}},
            {"domainMetadata": {"domain": "kept", "configuration": '{"a":1}', "removed": False}})
    source = DeltaLogSource(store, "b", "t")
    served = source.table_version()
    result = write_checkpoint(source, now)
    assert (result.version, result.written, result.add_files) == (1, True, 1)
    rows = pq.read_table(pa.BufferReader(store.get_bytes("b", "t/_delta_log/00000000000000000001.checkpoint.parquet")[1]))
    actions = {name: [a for a in rows.column(name).to_pylist() if a] for name in rows.column_names}
    assert [a["path"] for a in actions["add"]] == ["p=a%2520b/new.parquet"]  # as the log wrote it
    assert actions["add"][0]["deletionVector"] == DV and actions["add"][0]["partitionValues"] == [("p", "a b")]
    assert [a["path"] for a in actions["remove"]] == ["p=a%2520b/old.parquet"]  # the other one expired
    assert [(t["appId"], t["version"]) for t in actions["txn"]] == [("app", 2)]
    assert [d["domain"] for d in actions["domainMetadata"]] == ["kept"]
    assert actions["protocol"][0]["writerFeatures"] == ["deletionVectors", "domainMetadata"]
    assert dict(actions["metaData"][0]["configuration"]) == METADATA["metaData"]["configuration"]
    # Read back from the checkpoint alone, the table is the same.
    store.delete_object("b", "t/_delta_log/00000000000000000000.json")
    store.delete_object("b", "t/_delta_log/00000000000000000001.json")
    assert DeltaLogSource(store, "b", "t").table_version().files == served.files


@pytest.mark.parametrize("last_checkpoint", [None, b"not json", b'{"version": 3}', b'{"version": 1, "size": 9}'])
def test_reader_falls_back_to_the_whole_log(store, last_checkpoint):
    """A missing or unreadable ``_last_checkpoint``, or one naming a checkpoint that is not there: the
    whole log is listed; one naming a real checkpoint: older versions are still listed when asked for."""
    _commit(store, 0, PROTOCOL, METADATA, _add("one.parquet"))
    _commit(store, 1, _add("two.parquet"))
    _commit(store, 2, {"remove": {"path": "one.parquet", "deletionTimestamp": 1, "dataChange": True}})
    _commit(store, 3, _add("three.parquet"))
    if last_checkpoint is not None:
        write_checkpoint(DeltaLogSource(store, "b", "t"), int(time.time() * 1000))  # at version 3
        if last_checkpoint != b'{"version": 3}':
            store.delete_object("b", "t/_delta_log/00000000000000000003.checkpoint.parquet")
        store.put_bytes("b", "t/_delta_log/_last_checkpoint", last_checkpoint)
    source = DeltaLogSource(store, "b", "t")
    assert source.latest_version() == 3 and source.earliest_version() == 0
    names = {v: sorted(f.path.rsplit("/", 1)[1] for f in source.table_version(v).files) for v in range(4)}
    assert names == {0: ["one.parquet"], 1: ["one.parquet", "two.parquet"], 2: ["two.parquet"],
                     3: ["three.parquet", "two.parquet"]}
    assert [c.version for c in source.changes(1)] == [1, 2, 3]
    assert source.version_at(source.version_timestamp(0)) == 0


def test_v2_checkpoint_tables_are_refused(store):
    protocol = {"protocol": {**PROTOCOL["protocol"], "writerFeatures": ["v2Checkpoint"]}}
    _commit(store, 0, protocol, METADATA, _add("one.parquet"))
    with pytest.raises(UnsupportedOperation, match="v2 checkpoints"):
        write_checkpoint(DeltaLogSource(store, "b", "t"), 0)
    assert [o.key for o in store.list_objects("b", prefix="t/").objects] == ["t/_delta_log/00000000000000000000.json"]


def test_earliest_version_follows_log_cleanup(store):
    for version in range(4):
        _commit(store, version, *([PROTOCOL, METADATA] if version == 0 else []), _add(f"{version}.parquet"))
    write_checkpoint(DeltaLogSource(store, "b", "t"), int(time.time() * 1000))  # at version 3
    source = DeltaLogSource(store, "b", "t")
    assert source.earliest_version() == 0 and source.earliest_version() == 0
    store.delete_object("b", "t/_delta_log/00000000000000000000.json")
    assert source.earliest_version() == 3
    assert len(source.table_version(3).files) == 4
    with pytest.raises(InvalidParameter, match="versions 3 to 3"):
        source.table_version(1)
