"""The Delta Sharing protocol on the wire: headers, paging, errors, presigned URLs, tokens, the
configurable endpoint and the audit log. Raw requests where the released client never goes."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import delta_sharing
import pandas as pd
import pytest
import requests
from deltalake import write_deltalake
from requests.exceptions import HTTPError

from aistor_lab.workbench.jupyter.process import ServiceProcess

from .conftest import admin_call, make_s3_client
from .sharing_support import (
    create_share,
    create_token,
    ndjson,
    read_profile,
    share_profile,
    sharing_request,
    storage_options,
    table_path,
    write_profile,
)

DATA = pd.DataFrame({"id": [1, 2, 3], "part": ["a", "b", "c"]})


@pytest.fixture(scope="module")
def shared(server, tmp_path_factory):
    """One bucket with a 3-commit partitioned table (9 files) in a share of three schemas."""
    s3 = make_s3_client(server.endpoint)
    bucket = f"sharing-protocol-{int(time.time() * 1000)}"
    s3.create_bucket(Bucket=bucket)
    options = storage_options(server)
    for i in range(3):
        write_deltalake(f"s3://{bucket}/t", DATA.assign(id=DATA["id"] + 10 * i), partition_by=["part"],
                        mode="append", storage_options=options)
    specs = [f"t{i}:delta:{bucket}:t" for i in range(5)]
    share = create_share(server, "s1", specs[:2])
    assert admin_call(server, "PATCH", f"/shares/{share}",
                      {"add": [f"s2:{specs[2]}", f"s3:{specs[3]}", f"s3:{specs[4]}"]})[0] == 200
    profile_path = write_profile(tmp_path_factory.mktemp("profiles"), create_token(server, share, expires="1d")["profile"])
    return {"share": share, "profile": profile_path, "bucket": bucket, "server": server}


def _query(shared, body=None, headers=None, table="t0", schema="s1"):
    return sharing_request(shared["profile"], "POST", table_path(shared["share"], schema, table) + "/query",
                           json_body=body if body is not None else {}, headers=headers)


def test_list_apis_page_with_tokens(shared):
    profile, share = shared["profile"], shared["share"]
    first = sharing_request(profile, "GET", f"/shares/{share}/all-tables", params={"maxResults": 2}).json()
    assert [t["name"] for t in first["items"]] == ["t0", "t1"] and first["nextPageToken"]
    names = [t["name"] for t in first["items"]]
    token = first["nextPageToken"]
    while token:
        page = sharing_request(profile, "GET", f"/shares/{share}/all-tables",
                               params={"maxResults": 2, "pageToken": token}).json()
        names += [t["name"] for t in page["items"]]
        token = page.get("nextPageToken")
    assert names == ["t0", "t1", "t2", "t3", "t4"]
    schemas = sharing_request(profile, "GET", f"/shares/{share}/schemas", params={"maxResults": 1}).json()
    assert schemas["items"] == [{"name": "s1", "share": share}] and "nextPageToken" in schemas
    tables = sharing_request(profile, "GET", f"/shares/{share}/schemas/S3/tables").json()
    assert [(t["schema"], t["name"]) for t in tables["items"]] == [("s3", "t3"), ("s3", "t4")]
    assert "nextPageToken" not in tables
    assert sharing_request(profile, "GET", "/shares").json()["items"][0]["name"] == share
    assert sharing_request(profile, "GET", f"/shares/{share.upper()}").json()["share"]["name"] == share
    empty = sharing_request(profile, "GET", f"/shares/{share}/all-tables", params={"maxResults": 0}).json()
    assert empty["items"] == [] and empty["nextPageToken"]


@pytest.mark.parametrize("params", [{"pageToken": "garbage"}, {"pageToken": "e30.AAAA"}, {"maxResults": "-1"},
                                    {"maxResults": "many"}])
def test_bad_paging_parameters_are_400(shared, params):
    response = sharing_request(shared["profile"], "GET", f"/shares/{shared['share']}/all-tables", params=params)
    assert response.status_code == 400
    assert response.json()["errorCode"] == "INVALID_PARAMETER_VALUE"


def test_page_token_of_another_listing_is_refused(shared):
    profile, share = shared["profile"], shared["share"]
    token = sharing_request(profile, "GET", f"/shares/{share}/schemas/s3/tables",
                            params={"maxResults": 1}).json()["nextPageToken"]
    response = sharing_request(profile, "GET", f"/shares/{share}/schemas/s1/tables", params={"pageToken": token})
    assert response.status_code == 400


def test_query_pages_with_max_files(shared):
    full = [line["file"] for line in ndjson(_query(shared)) if "file" in line]
    assert len(full) == 9
    seen, token, pages = [], None, 0
    while True:
        body = {"maxFiles": 4, **({"pageToken": token} if token else {})}
        lines = ndjson(_query(shared, body))
        assert "protocol" in lines[0] and "metaData" in lines[1] and "endStreamAction" in lines[-1]
        seen += [line["file"]["id"] for line in lines if "file" in line]
        token = lines[-1]["endStreamAction"].get("nextPageToken")
        pages += 1
        if not token:
            break
    assert pages == 3 and sorted(seen) == sorted(f["id"] for f in full)
    # A page token is bound to its query and cannot be forged.
    token = ndjson(_query(shared, {"maxFiles": 4}))[-1]["endStreamAction"]["nextPageToken"]
    other = _query(shared, {"maxFiles": 4, "pageToken": token, "limitHint": 1})
    assert other.status_code == 400 and "another query" in other.json()["message"]
    forged = token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB")
    assert _query(shared, {"maxFiles": 4, "pageToken": forged}).status_code == 400
    assert _query(shared, {"maxFiles": 0}).status_code == 400


def test_query_pages_stay_on_their_version(server, shared):
    """A table changing between pages does not change the pages: the token pins the version."""
    uri, options = f"s3://{shared['bucket']}/pinned", storage_options(server)
    write_deltalake(uri, DATA, partition_by=["part"], storage_options=options)
    spec = f"s1:pinned:delta:{shared['bucket']}:pinned"
    assert admin_call(server, "PATCH", f"/shares/{shared['share']}", {"add": [spec]})[0] == 200
    first = ndjson(_query(shared, {"maxFiles": 2}, table="pinned"))
    write_deltalake(uri, DATA, partition_by=["part"], mode="append", storage_options=options)
    token = first[-1]["endStreamAction"]["nextPageToken"]
    second = ndjson(_query(shared, {"maxFiles": 2, "pageToken": token}, table="pinned"))
    assert len([x for x in first + second if "file" in x]) == 3
    assert "nextPageToken" not in second[-1]["endStreamAction"]
    assert len([x for x in ndjson(_query(shared, table="pinned")) if "file" in x]) == 6


def test_headers_capabilities_and_end_stream(shared):
    response = _query(shared)
    assert response.headers["Delta-Table-Version"] == "2"
    assert response.headers["delta-sharing-capabilities"] == "responseformat=parquet"
    assert response.headers["Content-Type"].startswith("application/x-ndjson")
    lines = ndjson(response)
    assert lines[0] == {"protocol": {"minReaderVersion": 1}}
    assert set(lines[1]["metaData"]) >= {"id", "format", "schemaString", "partitionColumns"}
    delta = _query(shared, headers={"delta-sharing-capabilities": "responseformat=delta"})
    assert delta.headers["delta-sharing-capabilities"] == "responseformat=delta"
    delta_lines = ndjson(delta)
    assert delta_lines[0]["protocol"]["deltaProtocol"]["minReaderVersion"] == 1
    assert "deltaSingleAction" in delta_lines[2]["file"]
    both = _query(shared, headers={"delta-sharing-capabilities": "responseformat=delta,parquet"})
    assert both.headers["delta-sharing-capabilities"] == "responseformat=parquet"
    ended = _query(shared, headers={"delta-sharing-capabilities": "responseformat=parquet;includeendstreamaction=true"})
    assert ended.headers["delta-sharing-capabilities"] == "responseformat=parquet;includeendstreamaction=true"
    last = ndjson(ended)[-1]["endStreamAction"]
    assert "nextPageToken" not in last and last["minUrlExpirationTimestamp"] > time.time() * 1000
    hashed = _query(shared, headers={"fileidhash": "DELTA"})
    assert hashed.headers["fileidhash"] == "delta" and len(ndjson(hashed)[2]["file"]["id"]) == 64
    assert _query(shared, headers={"fileidhash": "sha1"}).status_code == 400


def test_version_metadata_and_streaming_query(shared):
    profile, path = shared["profile"], table_path(shared["share"], "s1", "t0")
    credentials = read_profile(profile)
    head = requests.head(credentials["endpoint"] + path, timeout=30,
                         headers={"Authorization": f"Bearer {credentials['bearerToken']}"})
    assert head.status_code == 200 and head.headers["Delta-Table-Version"] == "2"
    version = sharing_request(profile, "GET", path + "/version")
    assert version.status_code == 200 and version.headers["Delta-Table-Version"] == "2"
    assert sharing_request(profile, "GET", path + "/version",
                           params={"startingTimestamp": "2000-01-01T00:00:00Z"}).headers["Delta-Table-Version"] == "0"
    future = sharing_request(profile, "GET", path + "/version", params={"startingTimestamp": "2999-01-01T00:00:00Z"})
    assert future.status_code == 400
    metadata = sharing_request(profile, "GET", path + "/metadata", params={"version": 1})
    assert metadata.headers["Delta-Table-Version"] == "1"
    assert ndjson(metadata)[1]["metaData"]["version"] == 1
    streaming = _query(shared, {"startingVersion": 1})
    assert streaming.headers["Delta-Table-Version"] == "1"
    adds = [line["add"] for line in ndjson(streaming) if "add" in line]
    assert sorted(a["version"] for a in adds) == [1, 1, 1, 2, 2, 2]
    assert all(a["timestamp"] > 0 for a in adds)


@pytest.mark.parametrize("path, code", [
    ("/shares/nope", 404), ("/shares/{share}/schemas/nope/tables", 404),
    ("/shares/{share}/schemas/s1/tables/nope/metadata", 404), ("/shares/{share}/schemas/nope/tables/t0/version", 404),
    ("/nonsense", 404),
])
def test_unknown_share_schema_table_are_404(shared, path, code):
    response = sharing_request(shared["profile"], "GET", path.format(share=shared["share"]))
    assert response.status_code == code
    assert response.json()["errorCode"] == "RESOURCE_DOES_NOT_EXIST" and response.json()["message"]


def test_unknown_table_through_the_client_is_404(shared):
    with pytest.raises(HTTPError) as error:
        delta_sharing.load_as_pandas(f"{shared['profile']}#{shared['share']}.s1.nope")
    assert error.value.response.status_code == 404


@pytest.mark.parametrize("body", [{"version": 3}, {"version": -1}, {"version": "x"}, {"version": 1, "timestamp":
                                  "2020-01-01T00:00:00Z"}, {"timestamp": "yesterday"},
                                  {"timestamp": "2000-01-01T00:00:00Z"}, {"startingVersion": 9}])
def test_bad_versions_are_400(shared, body):
    response = _query(shared, body)
    assert response.status_code == 400
    assert response.json()["errorCode"] == "INVALID_PARAMETER_VALUE"


def test_malformed_body_and_bad_predicates(shared):
    response = sharing_request(shared["profile"], "POST", table_path(shared["share"], "s1", "t0") + "/query",
                               headers={"Content-Type": "application/json"})
    assert response.status_code == 200  # an empty body means {}
    credentials = read_profile(shared["profile"])
    raw = requests.post(credentials["endpoint"] + table_path(shared["share"], "s1", "t0") + "/query",
                        data=b"{oops", timeout=30, headers={"Authorization": f"Bearer {credentials['bearerToken']}"})
    assert raw.status_code == 400 and raw.json()["errorCode"] == "MALFORMED_REQUEST"
    ignored = ndjson(_query(shared, {"jsonPredicateHints": "[1, 2", "predicateHints": ["id >>> 3"]}))
    assert len([x for x in ignored if "file" in x]) == 9


def test_tokens_missing_wrong_expired_revoked(server, shared, tmp_path):
    share = shared["share"]
    endpoint = read_profile(shared["profile"])["endpoint"]
    assert requests.get(endpoint + "/shares", timeout=30).status_code == 401
    wrong = sharing_request({"endpoint": endpoint, "bearerToken": "dapi" + "0" * 64}, "GET", "/shares")
    assert wrong.status_code == 401 and wrong.json()["errorCode"] == "UNAUTHENTICATED"
    short = create_token(server, share, expires="1s")
    time.sleep(1.5)
    expired = sharing_request(short["profile"], "GET", "/shares")
    assert expired.status_code == 401 and "expired" in expired.json()["message"]
    revocable = create_token(server, share, expires="1h")
    assert sharing_request(revocable["profile"], "GET", "/shares").status_code == 200
    assert admin_call(server, "DELETE", f"/shares/{share}/tokens/{revocable['id']}")[0] == 200
    assert sharing_request(revocable["profile"], "GET", "/shares").status_code == 401
    with pytest.raises(HTTPError) as error:
        delta_sharing.SharingClient(write_profile(tmp_path, revocable["profile"])).list_shares()
    assert error.value.response.status_code == 401


def test_presigned_urls(shared):
    lines = ndjson(_query(shared))
    url = lines[2]["file"]["url"]
    query = dict(part.split("=", 1) for part in urlsplit(url).query.split("&"))
    assert query["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256" and query["X-Amz-SignedHeaders"] == "host"
    assert query["X-Amz-Expires"] == "3600" and len(query["X-Amz-Signature"]) == 64
    assert abs(lines[2]["file"]["expirationTimestamp"] - (time.time() + 3600) * 1000) < 120_000
    data = requests.get(url, timeout=30)
    assert data.status_code == 200 and data.content[:4] == b"PAR1"
    assert data.headers["Content-Length"] == str(lines[2]["file"]["size"])
    tampered = url.replace("X-Amz-Signature=", "X-Amz-Signature=0")[:-1]
    assert requests.get(tampered, timeout=30).status_code == 403
    assert "/t/part%3D" in url
    # Some HTTP clients normalize the path (yarl turns %3D back into =): the signature still holds.
    assert requests.get(url.replace("/t/part%3D", "/t/part="), timeout=30).status_code == 200


def test_audit_log(server, shared):
    share = shared["share"]
    _query(shared, {"version": 1})
    _query(shared, {"version": 7})
    status, records = admin_call(server, "GET", f"/shares/{share}/audit?limit=2")
    assert status == 200 and len(records) == 2
    failed, succeeded = records
    assert failed["status"] == 400 and failed["error"] == "INVALID_PARAMETER_VALUE"
    assert succeeded["operation"] == "query" and succeeded["version"] == 1 and succeeded["files"] == 6
    assert succeeded["table"] == "t0" and succeeded["schema"] == "s1" and succeeded["tokenId"]
    assert succeeded["format"] == "parquet" and succeeded["time"].endswith("Z")


def test_configured_endpoint_and_url_expiry(tmp_path):
    """AISTOR_DELTA_SHARING_ENDPOINT goes into profiles and data URLs (here: localhost for 127.0.0.1)."""
    service = ServiceProcess(tmp_path / "data", env={})
    service.env.update(AISTOR_DELTA_SHARING_ENDPOINT=f"http://localhost:{service.port}/delta-sharing",
                       AISTOR_DELTA_SHARING_URL_EXPIRY="120")
    with service:
        s3 = make_s3_client(service.endpoint)
        s3.create_bucket(Bucket="data")
        write_deltalake("s3://data/t", DATA, storage_options=storage_options(service))
        share, profile = share_profile(service, tmp_path, "s", ["t:delta:data:t"])
        endpoint = read_profile(profile)["endpoint"]
        assert endpoint == f"http://localhost:{service.port}/delta-sharing"
        lines = ndjson(sharing_request(profile, "POST", table_path(share, "s", "t") + "/query", json_body={}))
        url = lines[2]["file"]["url"]
        assert url.startswith(f"http://localhost:{service.port}/data/t/") and "X-Amz-Expires=120&" in url
        assert lines[2]["file"]["expirationTimestamp"] <= (time.time() + 121) * 1000
        assert len(delta_sharing.load_as_pandas(f"{profile}#{share}.s.t")) == 3
