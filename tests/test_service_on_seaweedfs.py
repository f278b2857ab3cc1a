"""Everything the service does, on a SeaweedFS cluster: one ``aistor-lab server`` whose store is the
cluster (``AISTOR_STORE_ENDPOINT``), driven by real clients: boto3 (buckets, objects, multipart with
checksums, listings), PyIceberg (create, append, scan, a lost commit race, vended credentials), the
delta-sharing client, IAM policies, a compaction run and a lifecycle expiration rule.
"""

from __future__ import annotations

import hashlib
import io
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import delta_sharing
import pyarrow as pa
import pytest
from boto3.s3.transfer import TransferConfig
from botocore.exceptions import ClientError
from pyiceberg.catalog import load_catalog

from aistor_lab.workbench.jupyter.process import ServiceProcess

from .conftest import (
    NO_BACKGROUND_MAINTENANCE,
    catalog_call,
    make_s3_client,
    make_user,
    seed_catalog_properties,
)
from .peer_servers import ACCESS_KEY, SECRET_KEY
from .sharing_support import share_profile

# The lifecycle runner's "day" lasts a second and its rules run twice a second (as in
# test_lifecycle_runner.py), so an expiration rule acts within the test.
FAST_LIFECYCLE = {"AISTOR_LIFECYCLE_INTERVAL_SECONDS": "0.5", "AISTOR_LIFECYCLE_DAY_SECONDS": "1"}
PATIENCE = 60  # seconds a lifecycle rule may take on a loaded machine
SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])


@pytest.fixture(scope="module")
def server(seaweedfs, tmp_path_factory) -> Iterator[ServiceProcess]:
    data = tmp_path_factory.mktemp("on-seaweedfs")
    env = {**NO_BACKGROUND_MAINTENANCE, **FAST_LIFECYCLE, "AISTOR_STORE_ENDPOINT": seaweedfs,
           "AISTOR_STORE_ACCESS_KEY": ACCESS_KEY, "AISTOR_STORE_SECRET_KEY": SECRET_KEY}
    with ServiceProcess(data, env=env, log_path=data / "server.log") as service:
        yield service


@pytest.fixture(scope="module")
def s3(server):
    return make_s3_client(server.endpoint)


@contextmanager
def bucket_of(s3) -> Iterator[str]:
    """A new bucket, emptied and dropped at the end."""
    name = f"sw-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    try:
        yield name
    finally:
        for upload in s3.list_multipart_uploads(Bucket=name).get("Uploads", []):
            s3.abort_multipart_upload(Bucket=name, Key=upload["Key"], UploadId=upload["UploadId"])
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=name):
            for entry in page.get("Contents", []):
                s3.delete_object(Bucket=name, Key=entry["Key"])
        s3.delete_bucket(Bucket=name)


@contextmanager
def warehouse_of(server) -> Iterator[str]:
    """A new warehouse with a namespace ``ns``, force-dropped at the end."""
    name = f"sw-{uuid.uuid4().hex[:8]}"
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": name})
    assert status == 200, body
    try:
        assert catalog_call(server, "POST", f"/v1/{name}/namespaces", {"namespace": ["ns"]})[0] == 200
        yield name
    finally:
        assert catalog_call(server, "DELETE", f"/v1/warehouses/{name}?force=true")[0] == 204


def rows(ids) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int64()), "name": [f"name-{i}" for i in ids]}, schema=SCHEMA)


def ids_of(table) -> list[int]:
    return sorted(table.scan().to_arrow()["id"].to_pylist())


# -- S3 API -------------------------------------------------------------------------------
def test_buckets_objects_and_listings(s3):
    with bucket_of(s3) as bucket:
        assert bucket in [entry["Name"] for entry in s3.list_buckets()["Buckets"]]
        keys = ["a/1", "a/2", "a/b/3", "b", "c"]
        for key in keys:
            s3.put_object(Bucket=bucket, Key=key, Body=key.encode(), Metadata={"k": key})
        assert [e["Key"] for e in s3.list_objects_v2(Bucket=bucket)["Contents"]] == keys
        page = s3.list_objects_v2(Bucket=bucket, Prefix="a/", Delimiter="/")
        assert [e["Key"] for e in page["Contents"]] == ["a/1", "a/2"]
        assert [p["Prefix"] for p in page["CommonPrefixes"]] == ["a/b/"]
        got = s3.get_object(Bucket=bucket, Key="a/b/3")
        assert (got["Body"].read(), got["Metadata"], got["ContentType"]) == (b"a/b/3", {"k": "a/b/3"},
                                                                            "binary/octet-stream")
        assert s3.get_object(Bucket=bucket, Key="c", Range="bytes=0-0")["Body"].read() == b"c"
        s3.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "b"})
        assert s3.get_object(Bucket=bucket, Key="copy")["Body"].read() == b"b"
        with pytest.raises(ClientError) as refused:
            s3.put_object(Bucket=bucket, Key="b", Body=b"again", IfNoneMatch="*")
        assert refused.value.response["Error"]["Code"] == "PreconditionFailed"
        with pytest.raises(ClientError) as missing:
            s3.put_object(Bucket=f"sw-missing-{uuid.uuid4().hex[:8]}", Key="k", Body=b"x")
        assert missing.value.response["Error"]["Code"] == "NoSuchBucket"
    assert bucket not in [entry["Name"] for entry in s3.list_buckets()["Buckets"]]


def test_multipart_upload_with_checksums(s3, seaweedfs):
    """boto3's managed upload: parts with CRC32 checksums, which the cluster wants named at completion
    (the server records them beside the upload and forgets them once it is completed or aborted)."""
    data = os.urandom(12 * 1024 * 1024 + 5)
    with bucket_of(s3) as bucket:
        config = TransferConfig(multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024)
        s3.upload_fileobj(io.BytesIO(data), bucket, "big", Config=config,
                          ExtraArgs={"ChecksumAlgorithm": "CRC32"})
        head = s3.head_object(Bucket=bucket, Key="big", ChecksumMode="ENABLED")
        assert head["ContentLength"] == len(data) and head["ETag"].strip('"').endswith("-3")
        assert head.get("ChecksumCRC32", "").endswith("-3")
        assert hashlib.sha256(s3.get_object(Bucket=bucket, Key="big")["Body"].read()).digest() == \
            hashlib.sha256(data).digest()
        upload = s3.create_multipart_upload(Bucket=bucket, Key="aborted")["UploadId"]
        s3.upload_part(Bucket=bucket, Key="aborted", UploadId=upload, PartNumber=1, Body=b"x")
        assert [u["UploadId"] for u in s3.list_multipart_uploads(Bucket=bucket)["Uploads"]] == [upload]
        s3.abort_multipart_upload(Bucket=bucket, Key="aborted", UploadId=upload)
        assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
        cluster = make_s3_client(seaweedfs, ACCESS_KEY, SECRET_KEY)
        records = cluster.list_objects_v2(Bucket="aistor-system", Prefix=f"upload-records/{bucket}/")
        assert records.get("Contents", []) == []


# -- catalog ------------------------------------------------------------------------------
def test_iceberg_tables_create_append_scan_and_a_lost_commit_race(server):
    with warehouse_of(server) as warehouse:
        catalog = load_catalog("on-seaweedfs", **seed_catalog_properties(server, warehouse))
        table = catalog.create_table("ns.events", SCHEMA)
        table.append(rows([1, 2]))
        stale = catalog.load_table("ns.events")
        seen = stale.metadata.current_snapshot_id
        table.append(rows([3]))
        # A commit that requires the snapshot it saw is refused now that another one landed...
        status, body = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces/ns/tables/events", {
            "requirements": [{"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": seen}],
            "updates": [{"action": "set-properties", "updates": {"lost": "race"}}]})
        assert status == 409 and body["error"]["type"] == "CommitFailedException", body
        # ... and PyIceberg, refused the same way, refreshes and retries its append.
        stale.append(rows([4]))
        table = catalog.load_table("ns.events")
        assert ids_of(table) == [1, 2, 3, 4]
        assert len(table.snapshots()) == 3 and "lost" not in table.properties


def test_vended_credentials_read_and_write_the_table(server):
    with warehouse_of(server) as warehouse:
        seeded = seed_catalog_properties(server, warehouse)
        load_catalog("creator", **seeded).create_table("ns.vended", SCHEMA).append(rows([1, 2, 3]))
        vended = load_catalog("vended", **{k: v for k, v in seeded.items() if not k.startswith("s3.")},
                              **{"header.X-Iceberg-Access-Delegation": "vended-credentials"})
        table = vended.load_table("ns.vended")
        assert table.io.properties.get("s3.session-token")  # the catalog's, not ours
        assert ids_of(table) == [1, 2, 3]
        table.append(rows([4]))
        assert ids_of(vended.load_table("ns.vended")) == [1, 2, 3, 4]


def test_a_compaction_run_merges_small_files(server):
    with warehouse_of(server) as warehouse:
        catalog = load_catalog("compaction", **seed_catalog_properties(server, warehouse))
        table = catalog.create_table("ns.small", SCHEMA)
        for first in range(0, 40, 5):
            table.append(rows(range(first, first + 5)))
        before = len(table.inspect.files())
        path = f"/v1/{warehouse}/namespaces/ns/tables/small/maintenance/runs"
        status, run = catalog_call(server, "POST", path, {"operations": ["compact"]})
        assert status == 200 and not run["errors"], run
        table = catalog.load_table("ns.small")
        assert len(table.inspect.files()) < before
        assert ids_of(table) == list(range(40))


# -- sharing and IAM ----------------------------------------------------------------------
def test_a_delta_share_of_an_iceberg_table(server, tmp_path):
    with warehouse_of(server) as warehouse:
        catalog = load_catalog("sharing", **seed_catalog_properties(server, warehouse))
        table = catalog.create_table("ns.sales", SCHEMA)
        table.append(rows([1, 2]))
        table.append(rows([3]))
        share, profile = share_profile(server, tmp_path, "sales", [f"sales:uniform:{warehouse}:ns:sales"])
        client = delta_sharing.SharingClient(profile)
        assert [t.name for t in client.list_all_tables()] == ["sales"]
        shared = delta_sharing.load_as_pandas(f"{profile}#{share}.sales.sales")
        assert sorted(shared["id"].tolist()) == [1, 2, 3]


def test_a_user_with_a_policy_is_allowed_its_bucket_and_denied_another(server, s3):
    with bucket_of(s3) as mine, bucket_of(s3) as theirs:
        s3.put_object(Bucket=theirs, Key="secret", Body=b"no")
        policy = {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:ListBucket"],
             "Resource": [f"arn:aws:s3:::{mine}", f"arn:aws:s3:::{mine}/*"]}]}
        user, secret = make_user(server, policy)
        client = make_s3_client(server.endpoint, user, secret)
        client.put_object(Bucket=mine, Key="k", Body=b"yes")
        assert client.get_object(Bucket=mine, Key="k")["Body"].read() == b"yes"
        for denied in (lambda: client.get_object(Bucket=theirs, Key="secret"),
                       lambda: client.put_object(Bucket=theirs, Key="k", Body=b"x")):
            with pytest.raises(ClientError) as refused:
                denied()
            assert refused.value.response["Error"]["Code"] == "AccessDenied"
        assert s3.get_object(Bucket=theirs, Key="secret")["Body"].read() == b"no"


# -- lifecycle ----------------------------------------------------------------------------
def test_a_lifecycle_expiration_rule_runs(s3):
    with bucket_of(s3) as bucket:
        for key in ("logs/a", "logs/b", "keep/c"):
            s3.put_object(Bucket=bucket, Key=key, Body=b"x")
        s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [
            {"ID": "logs", "Filter": {"Prefix": "logs/"}, "Status": "Enabled", "Expiration": {"Days": 1}}]})
        deadline = time.monotonic() + PATIENCE
        while [e["Key"] for e in s3.list_objects_v2(Bucket=bucket).get("Contents", [])] != ["keep/c"]:
            assert time.monotonic() < deadline, "logs/ did not expire"
            time.sleep(0.2)
