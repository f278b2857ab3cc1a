"""The catalog, table protection and Delta Sharing in buckets with versioning enabled.

The catalog writes each metadata file once under a fresh name, so versioning a warehouse bucket adds
no versions of them; a purge leaves the purged files as noncurrent versions (recoverable, removed by
a lifecycle rule or by deleting the versions). Shares read the latest versions.
"""

from __future__ import annotations

import uuid

import delta_sharing
import pyarrow as pa
import pytest
from deltalake import write_deltalake
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from .conftest import catalog_call, make_s3_client, seed_catalog_properties
from .sharing_support import share_profile, storage_options

SCHEMA = Schema(NestedField(1, "id", LongType(), required=True))


def ids(count: int, start: int = 0) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + count), pa.int64())}, schema=pa.schema(
        [pa.field("id", pa.int64(), nullable=False)]))


@pytest.fixture(scope="module")
def versioned_warehouse(server):
    name = f"versioned-{uuid.uuid4().hex[:8]}"
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": name})
    assert status in (200, 201), body
    make_s3_client(server.endpoint).put_bucket_versioning(
        Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    return name


def test_iceberg_tables_work_in_a_versioned_warehouse(server, versioned_warehouse):
    s3 = make_s3_client(server.endpoint)
    catalog = load_catalog("aistor", **seed_catalog_properties(server, versioned_warehouse))
    catalog.create_namespace("ns")
    table = catalog.create_table("ns.events", schema=SCHEMA)
    table.append(ids(3))
    table.append(ids(2, start=3))
    assert sorted(catalog.load_table("ns.events").scan().to_arrow().column("id").to_pylist()) == [0, 1, 2, 3, 4]

    # Every file of the table was written once: one version per key, no noncurrent ones.
    prefix = table.location().removeprefix(f"s3://{versioned_warehouse}/").rstrip("/") + "/"
    listed = s3.list_object_versions(Bucket=versioned_warehouse, Prefix=prefix)
    assert listed["Versions"] and all(v["IsLatest"] for v in listed["Versions"])

    # Protection: the current metadata file cannot be hidden by a delete marker nor removed by version.
    metadata_key = table.metadata_location.removeprefix(f"s3://{versioned_warehouse}/")
    version = s3.head_object(Bucket=versioned_warehouse, Key=metadata_key)["VersionId"]
    for extra in ({}, {"VersionId": version}):
        with pytest.raises(s3.exceptions.ClientError) as refused:
            s3.delete_object(Bucket=versioned_warehouse, Key=metadata_key, **extra)
        assert refused.value.response["Error"]["Code"] == "AccessDenied"

    # A purge hides the files; their versions stay until removed, and then the bucket can go.
    catalog.purge_table("ns.events")
    assert s3.list_objects_v2(Bucket=versioned_warehouse, Prefix=prefix)["KeyCount"] == 0
    kept = s3.list_object_versions(Bucket=versioned_warehouse, Prefix=prefix)
    assert kept["Versions"] and all(not v["IsLatest"] for v in kept["Versions"])
    assert {m["Key"] for m in kept["DeleteMarkers"]} == {v["Key"] for v in kept["Versions"]}


def test_a_shared_delta_table_in_a_versioned_bucket(server, bucket, tmp_path):
    s3 = make_s3_client(server.endpoint)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    location = f"s3://{bucket}/sales"
    write_deltalake(location, pa.table({"id": [1, 2]}), storage_options=storage_options(server))
    write_deltalake(location, pa.table({"id": [3]}), mode="overwrite", storage_options=storage_options(server))
    share, profile = share_profile(server, tmp_path, "s", [f"sales:delta:{bucket}:sales"])
    frame = delta_sharing.load_as_pandas(f"{profile}#{share}.s.sales")
    assert frame["id"].tolist() == [3]
