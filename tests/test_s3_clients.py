"""The Python data ecosystem, unchanged, against the embedded store: minio, pyarrow, s3fs, deltalake."""

from __future__ import annotations

import io
import os
from urllib.parse import urlparse

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from minio import Minio
from minio.commonconfig import CopySource
from minio.error import S3Error

from .conftest import ROOT_PASSWORD, ROOT_USER


@pytest.fixture
def minio_client(server):
    return Minio(urlparse(server.endpoint).netloc, access_key=ROOT_USER, secret_key=ROOT_PASSWORD, secure=False)


def test_minio_sdk(minio_client):
    client = minio_client
    if not client.bucket_exists("minio-sdk"):
        client.make_bucket("minio-sdk")
    assert client.bucket_exists("minio-sdk")
    data = os.urandom(12 * 1024 * 1024)  # above the SDK's part size threshold? it uses 5 MiB+ parts
    client.put_object("minio-sdk", "big/object", io.BytesIO(data), len(data), part_size=5 * 1024 * 1024)
    client.put_object("minio-sdk", "small.txt", io.BytesIO(b"small"), 5, content_type="text/plain",
                      metadata={"x-amz-meta-kind": "note"})
    assert client.get_object("minio-sdk", "big/object").read() == data
    # ?partNumber=N reads that part only: 5 MiB parts, the last one shorter.
    five = 5 * 1024 * 1024
    third = client.get_object("minio-sdk", "big/object", extra_query_params={"partNumber": "3"})
    assert (third.status, third.headers["x-amz-mp-parts-count"]) == (206, "3")
    assert third.read() == data[2 * five:]
    with pytest.raises(S3Error) as excinfo:
        client.get_object("minio-sdk", "big/object", extra_query_params={"partNumber": "4"})
    assert (excinfo.value.code, excinfo.value.response.status) == ("InvalidPartNumber", 416)
    stat = client.stat_object("minio-sdk", "small.txt")
    assert stat.size == 5 and stat.content_type == "text/plain"
    assert stat.metadata["x-amz-meta-kind"] == "note"
    names = [o.object_name for o in client.list_objects("minio-sdk", recursive=True)]
    assert names == ["big/object", "small.txt"]
    assert sorted(o.object_name for o in client.list_objects("minio-sdk")) == ["big/", "small.txt"]
    client.copy_object("minio-sdk", "copied.txt", CopySource("minio-sdk", "small.txt"))
    assert client.get_object("minio-sdk", "copied.txt").read() == b"small"
    assert client.get_object("minio-sdk", "big/object", offset=100, length=50).read() == data[100:150]
    errors = list(client.remove_objects("minio-sdk", []))
    assert errors == []
    from minio.deleteobjects import DeleteObject

    assert list(client.remove_objects("minio-sdk", [DeleteObject(n) for n in ("copied.txt", "small.txt")])) == []
    client.remove_object("minio-sdk", "big/object")
    client.remove_bucket("minio-sdk")
    assert not client.bucket_exists("minio-sdk")


def test_minio_sdk_removes_a_bucket_holding_only_unfinished_uploads(minio_client, bucket):
    client = minio_client
    upload = client._create_multipart_upload(bucket, "pending", {})
    client._upload_part(bucket, "pending", b"part", None, upload, 1)
    client.put_object(bucket, "k", io.BytesIO(b"x"), 1)
    with pytest.raises(S3Error) as excinfo:
        client.remove_bucket(bucket)
    assert excinfo.value.code == "BucketNotEmpty"
    assert [u.upload_id for u in client._list_multipart_uploads(bucket).uploads] == [upload]
    client.remove_object(bucket, "k")
    client.remove_bucket(bucket)
    assert not client.bucket_exists(bucket)
    client.make_bucket(bucket)
    assert client._list_multipart_uploads(bucket).uploads == []


def arrow_fs(server):
    from pyarrow import fs

    return fs.S3FileSystem(
        access_key=ROOT_USER, secret_key=ROOT_PASSWORD, endpoint_override=server.endpoint,
        scheme="http", region="us-east-1",
    )


def test_pyarrow_parquet_dataset(server, bucket):
    filesystem = arrow_fs(server)
    table = pa.table({
        "id": pa.array(range(200_000), pa.int64()),
        "group": pa.array([f"g{i % 4}" for i in range(200_000)]),
        "value": pa.array([i * 0.5 for i in range(200_000)]),
    })
    ds.write_dataset(table, f"{bucket}/dataset", format="parquet", filesystem=filesystem,
                     partitioning=["group"], partitioning_flavor="hive",
                     max_rows_per_file=60_000, max_rows_per_group=20_000)
    read = ds.dataset(f"{bucket}/dataset", format="parquet", filesystem=filesystem, partitioning="hive")
    result = read.to_table().sort_by("id")
    assert result.num_rows == 200_000
    assert result.column("value").to_pylist()[:3] == [0.0, 0.5, 1.0]
    filtered = read.to_table(filter=ds.field("group") == "g1")
    assert filtered.num_rows == 50_000
    # one big file through the multipart path with aws-chunked parts and CRC64NVME trailers
    big = pa.table({"x": pa.array(os.urandom(24 * 1024 * 1024), pa.uint8())})
    pq.write_table(big, f"{bucket}/big.parquet", filesystem=filesystem, compression="none")
    assert pq.read_table(f"{bucket}/big.parquet", filesystem=filesystem).equals(big)
    info = filesystem.get_file_info(f"{bucket}/big.parquet")
    assert info.size > 24 * 1024 * 1024
    filesystem.create_dir(f"{bucket}/empty-dir")
    filesystem.delete_file(f"{bucket}/big.parquet")
    assert filesystem.get_file_info(f"{bucket}/big.parquet").type.name == "NotFound"


def test_s3fs(server, bucket):
    import s3fs

    fs = s3fs.S3FileSystem(key=ROOT_USER, secret=ROOT_PASSWORD, client_kwargs={"endpoint_url": server.endpoint},
                           use_listings_cache=False)
    with fs.open(f"{bucket}/notes/a.txt", "wb") as f:
        f.write(b"alpha")
    data = os.urandom(11 * 1024 * 1024)
    with fs.open(f"{bucket}/notes/big.bin", "wb", block_size=5 * 1024 * 1024) as f:
        f.write(data)
    assert fs.cat(f"{bucket}/notes/a.txt") == b"alpha"
    with fs.open(f"{bucket}/notes/big.bin", "rb", block_size=1024 * 1024) as f:
        f.seek(3 * 1024 * 1024)
        assert f.read(4096) == data[3 * 1024 * 1024: 3 * 1024 * 1024 + 4096]
    assert sorted(fs.ls(f"{bucket}/notes")) == [f"{bucket}/notes/a.txt", f"{bucket}/notes/big.bin"]
    assert fs.info(f"{bucket}/notes/big.bin")["size"] == len(data)
    assert fs.isdir(f"{bucket}/notes")
    fs.copy(f"{bucket}/notes/a.txt", f"{bucket}/copy.txt")
    assert fs.cat(f"{bucket}/copy.txt") == b"alpha"
    fs.rm(f"{bucket}/notes", recursive=True)
    assert not fs.exists(f"{bucket}/notes/a.txt")
    df = pd.DataFrame({"a": [1, 2, 3]})
    with fs.open(f"{bucket}/frame.parquet", "wb") as f:
        df.to_parquet(f)
    with fs.open(f"{bucket}/frame.parquet", "rb") as f:
        assert pd.read_parquet(f).equals(df)


def test_deltalake_write_and_read(server, bucket):
    from deltalake import DeltaTable, write_deltalake

    # The storage options exactly as the product documentation writes them.
    options = {
        "AWS_ACCESS_KEY_ID": ROOT_USER,
        "AWS_SECRET_ACCESS_KEY": ROOT_PASSWORD,
        "AWS_ENDPOINT_URL": server.endpoint,
        "AWS_ALLOW_HTTP": "true",
    }
    data = pd.DataFrame({
        "id": [1, 2, 3, 4, 5],
        "name": ["Alice", "Bob", "Carol", "David", "Eve"],
        "department": ["Engineering", "Sales", "Engineering", "Marketing", "Sales"],
        "salary": [95000, 65000, 110000, 72000, 68000],
    })
    uri = f"s3://{bucket}/employees/"
    write_deltalake(uri, data, mode="overwrite", storage_options=options)
    write_deltalake(uri, data.head(2), mode="append", storage_options=options)
    table = DeltaTable(uri, storage_options=options)
    assert table.version() == 1
    frame = table.to_pandas().sort_values("id").reset_index(drop=True)
    assert len(frame) == 7 and frame["salary"].sum() == data["salary"].sum() + 95000 + 65000
    assert len(DeltaTable(uri, version=0, storage_options=options).to_pandas()) == 5
    write_deltalake(uri, data.head(1), mode="overwrite", storage_options=options)
    assert DeltaTable(uri, storage_options=options).to_pandas()["name"].tolist() == ["Alice"]
