"""Delta Sharing gaps: refresh tokens (``includeRefreshToken`` in a query, ``refreshToken`` to get new URLs
of the same version), checked with raw protocol requests as PROTOCOL.md writes them (the released Python
client never sends them), and time travel on shared Iceberg tables by snapshot id, through the released
delta-sharing client."""

from __future__ import annotations

import json
import uuid

import delta_sharing
import pyarrow as pa
import pytest
import requests
from deltalake import write_deltalake
from pyiceberg.catalog import load_catalog

from aistor_lab.sharing.delta_log import DeltaLogSource
from aistor_lab.sharing.errors import InvalidParameter
from aistor_lab.sharing.presign import Presigner
from aistor_lab.sharing.protocol import Capabilities, PageTokens
from aistor_lab.sharing.queries import REFRESH_TOKEN_LIFETIME_MS, TableQueries
from aistor_lab.store import LocalStore

from .conftest import catalog_call, make_s3_client, seed_catalog_properties
from .sharing_support import (
    create_share,
    create_token,
    sharing_request,
    storage_options,
    unique,
    write_profile,
)

BUCKET = f"gaps-share-{uuid.uuid4().hex[:8]}"


def _lines(response: requests.Response) -> list[dict]:
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines()]


def _query(profile: dict, share: str, table: str, body: dict) -> requests.Response:
    return sharing_request(profile, "POST", f"/shares/{share}/schemas/s/tables/{table}/query", json_body=body)


def _files(lines: list[dict]) -> dict[str, str]:
    """File id -> presigned URL."""
    return {line["file"]["id"]: line["file"]["url"] for line in lines if "file" in line}


@pytest.fixture(scope="module")
def delta_tables(server):
    make_s3_client(server.endpoint).create_bucket(Bucket=BUCKET)
    for path in ("events", "other"):
        write_deltalake(f"s3://{BUCKET}/{path}", pa.table({"id": [1, 2], "day": ["a", "b"]}),
                        partition_by=["day"], storage_options=storage_options(server))
    share = create_share(server, "s", [f"events:delta:{BUCKET}:events", f"other:delta:{BUCKET}:other"])
    yield share, create_token(server, share, expires="1d")["profile"]
    s3 = make_s3_client(server.endpoint)
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        for item in page.get("Contents", []):
            s3.delete_object(Bucket=BUCKET, Key=item["Key"])
    s3.delete_bucket(Bucket=BUCKET)


def test_refresh_token_gives_new_urls_of_the_same_version(server, delta_tables):
    share, profile = delta_tables
    first = _lines(_query(profile, share, "events", {"includeRefreshToken": True}))
    end = first[-1]["endStreamAction"]
    assert end["refreshToken"] and end["minUrlExpirationTimestamp"] > 0
    assert len(_files(first)) == 2

    # The table moves on; a refresh still answers the version the read started on.
    write_deltalake(f"s3://{BUCKET}/events", pa.table({"id": [3], "day": ["c"]}), mode="append",
                    partition_by=["day"], storage_options=storage_options(server))
    refreshed = _query(profile, share, "events", {"refreshToken": end["refreshToken"], "includeRefreshToken": True})
    assert refreshed.headers["Delta-Table-Version"] == "0"
    lines = _lines(refreshed)
    assert set(_files(lines)) == set(_files(first))
    assert lines[-1]["endStreamAction"]["refreshToken"]  # a long read can refresh again
    for url in _files(lines).values():
        assert requests.get(url, timeout=30).status_code == 200
    # Without the token: the latest version, three files.
    latest = _query(profile, share, "events", {})
    assert latest.headers["Delta-Table-Version"] == "1" and len(_files(_lines(latest))) == 3
    # No endStreamAction unless asked for.
    assert "endStreamAction" not in _lines(latest)[-1]


def test_refresh_token_is_bound_to_its_query(server, delta_tables):
    share, profile = delta_tables
    hints = json.dumps({"op": "equal", "children": [{"op": "column", "name": "day", "valueType": "string"},
                                                    {"op": "literal", "value": "a", "valueType": "string"}]})
    token = _lines(_query(profile, share, "events", {"includeRefreshToken": True, "jsonPredicateHints": hints}))
    token = token[-1]["endStreamAction"]["refreshToken"]
    assert len(_files(_lines(_query(profile, share, "events", {"refreshToken": token, "jsonPredicateHints": hints})))) == 1

    other_share = create_share(server, "s", [f"events:delta:{BUCKET}:events"])
    other_profile = create_token(server, other_share, expires="1d")["profile"]
    refused = [
        _query(profile, share, "events", {"refreshToken": token}),  # other predicates
        _query(profile, share, "other", {"refreshToken": token, "jsonPredicateHints": hints}),  # other table
        _query(other_profile, other_share, "events", {"refreshToken": token, "jsonPredicateHints": hints}),
        _query(profile, share, "events", {"refreshToken": token[:-2] + "xx", "jsonPredicateHints": hints}),
        _query(profile, share, "events", {"refreshToken": token, "jsonPredicateHints": hints, "version": 0}),
        _query(profile, share, "events", {"includeRefreshToken": True, "version": 0}),
        _query(profile, share, "events", {"includeRefreshToken": "yes"}),
    ]
    for response in refused:
        assert response.status_code == 400, response.text
        assert response.json()["errorCode"] == "INVALID_PARAMETER_VALUE"


def test_refresh_tokens_expire(tmp_path):
    """The service's own query code on a local store, its clock moved past the token's lifetime."""
    store = LocalStore(tmp_path / "store")
    store.create_bucket("b")
    actions = [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
               {"metaData": {"id": "x", "format": {"provider": "parquet"}, "partitionColumns": [],
                             "schemaString": '{"type":"struct","fields":[]}', "configuration": {}}},
               {"add": {"path": "a.parquet", "size": 1, "partitionValues": {}, "dataChange": True}}]
    store.put_bytes("b", "t/_delta_log/00000000000000000000.json", "\n".join(map(json.dumps, actions)).encode())
    now = [1_000_000.0]
    queries = TableQueries(Presigner("http://127.0.0.1:1", "key", "secret"), PageTokens(b"k"), clock=lambda: now[0])
    source, caps = DeltaLogSource(store, "b", "t"), Capabilities()
    token = queries.query(source, "share/t", {"includeRefreshToken": True}, caps).lines[-1]["endStreamAction"]
    assert queries.query(source, "share/t", {"refreshToken": token["refreshToken"]}, caps).version == 0
    now[0] += REFRESH_TOKEN_LIFETIME_MS / 1000 + 1
    with pytest.raises(InvalidParameter, match="expired"):
        queries.query(source, "share/t", {"refreshToken": token["refreshToken"]}, caps)
    store.close()


def test_iceberg_time_travel_by_snapshot_id(server, tmp_path):
    warehouse = unique("gaps-wh")
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] == 200
    try:
        catalog = load_catalog("gaps", **seed_catalog_properties(server, warehouse))
        catalog.create_namespace("ns")
        table = catalog.create_table(("ns", "t"), pa.schema([("id", pa.int64())]))
        table.append(pa.table({"id": [1, 2]}))
        first = table.current_snapshot().snapshot_id
        table.append(pa.table({"id": [3]}))
        second = table.current_snapshot().snapshot_id

        share = create_share(server, "s", [f"t:uniform:{warehouse}:ns:t"])
        profile = write_profile(tmp_path, create_token(server, share, expires="1d")["profile"])
        url = f"{profile}#{share}.s.t"
        assert sorted(delta_sharing.load_as_pandas(url, version=first)["id"]) == [1, 2]
        assert sorted(delta_sharing.load_as_pandas(url, version=second)["id"]) == [1, 2, 3]
        assert sorted(delta_sharing.load_as_pandas(url)["id"]) == [1, 2, 3]
        # The version the snapshot id names is the one answered; an unknown id is a clear 400.
        response = sharing_request(profile, "POST", f"/shares/{share}/schemas/s/tables/t/query",
                                   json_body={"version": first})
        assert response.headers["Delta-Table-Version"] == "1"
        metadata = sharing_request(profile, "GET", f"/shares/{share}/schemas/s/tables/t/metadata",
                                   params={"version": str(second)})
        assert metadata.status_code == 200 and metadata.headers["Delta-Table-Version"] == "2"
        unknown = sharing_request(profile, "POST", f"/shares/{share}/schemas/s/tables/t/query",
                                  json_body={"version": first + 1})
        assert unknown.status_code == 400 and "out of range" in unknown.json()["message"]
    finally:
        catalog_call(server, "DELETE", f"/v1/warehouses/{warehouse}?force=true")
