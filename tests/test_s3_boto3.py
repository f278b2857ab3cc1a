"""The S3 API driven by boto3 exactly as applications use it."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import threading
import time
import uuid
import zlib
from datetime import UTC

import pytest
import requests
from boto3.s3.transfer import TransferConfig
from botocore.exceptions import ClientError

from .conftest import ROOT_PASSWORD, ROOT_USER, make_s3_client, signed_call


def error_code(excinfo) -> str:
    return excinfo.value.response["Error"]["Code"]


def test_bucket_lifecycle(s3):
    s3.create_bucket(Bucket="lifecycle-bucket")
    names = [b["Name"] for b in s3.list_buckets()["Buckets"]]
    assert "lifecycle-bucket" in names
    assert not any(name.startswith(".") for name in names)
    s3.head_bucket(Bucket="lifecycle-bucket")
    assert s3.get_bucket_location(Bucket="lifecycle-bucket")["LocationConstraint"] is None
    with pytest.raises(ClientError) as excinfo:
        s3.create_bucket(Bucket="lifecycle-bucket")
    assert error_code(excinfo) == "BucketAlreadyOwnedByYou"
    s3.put_object(Bucket="lifecycle-bucket", Key="k", Body=b"x")
    with pytest.raises(ClientError) as excinfo:
        s3.delete_bucket(Bucket="lifecycle-bucket")
    assert error_code(excinfo) == "BucketNotEmpty"
    s3.delete_object(Bucket="lifecycle-bucket", Key="k")
    s3.delete_bucket(Bucket="lifecycle-bucket")
    with pytest.raises(ClientError) as excinfo:
        s3.head_bucket(Bucket="lifecycle-bucket")
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_list_buckets_pages_and_prefix(server, s3):
    prefix = f"pages-{uuid.uuid4().hex[:8]}-"
    names = [f"{prefix}{n}" for n in range(3)]
    for name in names:
        s3.create_bucket(Bucket=name)
    everything = s3.list_buckets(Prefix=prefix)
    assert ([b["Name"] for b in everything["Buckets"]], everything["Prefix"]) == (names, prefix)
    assert "ContinuationToken" not in everything
    first = s3.list_buckets(Prefix=prefix, MaxBuckets=2)
    assert [b["Name"] for b in first["Buckets"]] == names[:2]
    rest = s3.list_buckets(Prefix=prefix, MaxBuckets=2, ContinuationToken=first["ContinuationToken"])
    assert [b["Name"] for b in rest["Buckets"]] == names[2:] and "ContinuationToken" not in rest
    assert b"<Code>InvalidArgument</Code>" in signed_call(server, "GET", "/?max-buckets=0").content
    for name in names:
        s3.delete_bucket(Bucket=name)


def test_unfinished_uploads_do_not_keep_a_bucket(s3, bucket):
    """As in S3: DeleteBucket aborts the uploads of a bucket without objects, and refuses one with
    objects without touching its uploads."""
    upload = s3.create_multipart_upload(Bucket=bucket, Key="pending")["UploadId"]
    s3.upload_part(Bucket=bucket, Key="pending", UploadId=upload, PartNumber=1, Body=b"part")
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    with pytest.raises(ClientError) as excinfo:
        s3.delete_bucket(Bucket=bucket)
    assert error_code(excinfo) == "BucketNotEmpty"
    assert [u["UploadId"] for u in s3.list_multipart_uploads(Bucket=bucket)["Uploads"]] == [upload]
    assert len(s3.list_parts(Bucket=bucket, Key="pending", UploadId=upload)["Parts"]) == 1
    s3.delete_object(Bucket=bucket, Key="k")
    s3.create_multipart_upload(Bucket=bucket, Key="dir/other")
    s3.delete_bucket(Bucket=bucket)
    with pytest.raises(ClientError) as excinfo:
        s3.upload_part(Bucket=bucket, Key="pending", UploadId=upload, PartNumber=2, Body=b"late")
    assert error_code(excinfo) == "NoSuchBucket"
    s3.create_bucket(Bucket=bucket)
    assert "Uploads" not in s3.list_multipart_uploads(Bucket=bucket)
    with pytest.raises(ClientError) as excinfo:
        s3.list_parts(Bucket=bucket, Key="pending", UploadId=upload)
    assert error_code(excinfo) == "NoSuchUpload"


@pytest.mark.parametrize("name", ["ab", "Upper", "has_underscore", "-leading", "a..b", "192.168.1.1", "x" * 64])
def test_invalid_bucket_names_are_refused(s3, name):
    with pytest.raises(ClientError) as excinfo:
        s3.create_bucket(Bucket=name)
    assert error_code(excinfo) == "InvalidBucketName"
    assert name not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_put_get_head_with_metadata(s3, bucket):
    body = os.urandom(100_000)
    put = s3.put_object(
        Bucket=bucket, Key="dir/obj.bin", Body=body, ContentType="application/x-test",
        Metadata={"Owner": "alice", "purpose": "tests"}, CacheControl="max-age=60",
    )
    assert put["ETag"] == f'"{hashlib.md5(body).hexdigest()}"'
    got = s3.get_object(Bucket=bucket, Key="dir/obj.bin")
    assert got["Body"].read() == body
    assert got["ContentType"] == "application/x-test"
    assert got["Metadata"] == {"owner": "alice", "purpose": "tests"}
    assert got["CacheControl"] == "max-age=60"
    head = s3.head_object(Bucket=bucket, Key="dir/obj.bin")
    assert head["ContentLength"] == len(body)
    assert head["ETag"] == put["ETag"]
    with pytest.raises(ClientError) as excinfo:
        s3.get_object(Bucket=bucket, Key="missing")
    assert error_code(excinfo) == "NoSuchKey"


def test_non_ascii_metadata_is_signed_as_utf8_and_answered_rfc2047_encoded(s3, bucket):
    """botocore signs header text as UTF-8 and sends its UTF-8 bytes; S3 stores the text and answers
    a value that is not ASCII RFC 2047-encoded (which boto3 does not decode)."""

    def raw_header(params, **_):
        params["headers"]["x-amz-meta-greeting"] = "Hello World\u00e9 \u20ac"

    s3.meta.events.register("before-call.s3.PutObject", raw_header)
    try:
        s3.put_object(Bucket=bucket, Key="meta", Body=b"x", Metadata={"plain": "ascii"})
    finally:
        s3.meta.events.unregister("before-call.s3.PutObject", raw_header)
    encoded = "=?UTF-8?B?" + base64.b64encode("Hello World\u00e9 \u20ac".encode()).decode() + "?="
    assert s3.head_object(Bucket=bucket, Key="meta")["Metadata"] == {"greeting": encoded, "plain": "ascii"}
    # an encoded word sent is stored decoded (and answered encoded again)
    s3.put_object(Bucket=bucket, Key="sent-encoded", Body=b"x", Metadata={"greeting": encoded})
    assert s3.head_object(Bucket=bucket, Key="sent-encoded")["Metadata"] == {"greeting": encoded}


@pytest.mark.parametrize(
    ("sent", "kept"),
    [("gzip", "gzip"), ("deflate, gzip", "deflate, gzip"), ("gzip, aws-chunked", "gzip"),
     ("aws-chunked, gzip", "gzip"), ("aws-chunked", None)],
)
def test_content_encoding_loses_only_aws_chunked(s3, bucket, sent, kept):
    s3.put_object(Bucket=bucket, Key="encoded", Body=b"body", ContentEncoding=sent)
    assert s3.head_object(Bucket=bucket, Key="encoded").get("ContentEncoding") == kept
    assert s3.get_object(Bucket=bucket, Key="encoded")["Body"].read() == b"body"


def test_unicode_and_odd_keys(s3, bucket):
    keys = ["a b/c+d", "ünïcødé/ключ", "x%2Fy", "trailing/", "q?x=1&y", "~tilde*star"]
    for key in keys:
        s3.put_object(Bucket=bucket, Key=key, Body=key.encode())
    for key in keys:
        assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == key.encode()
    listed = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]]
    assert listed == sorted(keys, key=lambda k: k.encode())


def test_ranges(s3, bucket):
    body = bytes(range(256)) * 40
    s3.put_object(Bucket=bucket, Key="r", Body=body)
    assert s3.get_object(Bucket=bucket, Key="r", Range="bytes=10-19")["Body"].read() == body[10:20]
    assert s3.get_object(Bucket=bucket, Key="r", Range="bytes=10000-")["Body"].read() == body[10000:]
    assert s3.get_object(Bucket=bucket, Key="r", Range="bytes=-5")["Body"].read() == body[-5:]
    part = s3.get_object(Bucket=bucket, Key="r", Range="bytes=0-99999")
    assert part["ContentRange"] == f"bytes 0-{len(body) - 1}/{len(body)}"
    with pytest.raises(ClientError) as excinfo:
        s3.get_object(Bucket=bucket, Key="r", Range=f"bytes={len(body)}-")
    assert error_code(excinfo) == "InvalidRange"


def test_conditional_reads(s3, bucket):
    etag = s3.put_object(Bucket=bucket, Key="c", Body=b"v1")["ETag"]
    assert s3.get_object(Bucket=bucket, Key="c", IfMatch=etag)["Body"].read() == b"v1"
    with pytest.raises(ClientError) as excinfo:
        s3.get_object(Bucket=bucket, Key="c", IfMatch='"0000"')
    assert error_code(excinfo) == "PreconditionFailed"
    with pytest.raises(ClientError) as excinfo:
        s3.get_object(Bucket=bucket, Key="c", IfNoneMatch=etag)
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 304
    # a 304 carries what a cache revalidates with, as S3's does
    headers = excinfo.value.response["ResponseMetadata"]["HTTPHeaders"]
    modified = s3.head_object(Bucket=bucket, Key="c")["ResponseMetadata"]["HTTPHeaders"]["last-modified"]
    assert (headers["etag"], headers["last-modified"]) == (etag, modified)
    past, future = time.time() - 3600, time.time() + 3600
    from datetime import datetime

    with pytest.raises(ClientError) as excinfo:
        s3.get_object(Bucket=bucket, Key="c", IfModifiedSince=datetime.fromtimestamp(future, UTC))
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 304
    assert s3.get_object(Bucket=bucket, Key="c", IfModifiedSince=datetime.fromtimestamp(past, UTC))
    with pytest.raises(ClientError) as excinfo:
        s3.get_object(Bucket=bucket, Key="c", IfUnmodifiedSince=datetime.fromtimestamp(past, UTC))
    assert error_code(excinfo) == "PreconditionFailed"


def test_conditional_writes(s3, bucket):
    first = s3.put_object(Bucket=bucket, Key="w", Body=b"one", IfNoneMatch="*")["ETag"]
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="w", Body=b"two", IfNoneMatch="*")
    assert error_code(excinfo) == "PreconditionFailed"
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="w", Body=b"two", IfMatch='"deadbeef"')
    assert error_code(excinfo) == "PreconditionFailed"
    s3.put_object(Bucket=bucket, Key="w", Body=b"three", IfMatch=first)
    assert s3.get_object(Bucket=bucket, Key="w")["Body"].read() == b"three"
    # If-None-Match with ETags: refused while the key has one of them, else written
    current = s3.head_object(Bucket=bucket, Key="w")["ETag"]
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="w", Body=b"four", IfNoneMatch=current)
    assert error_code(excinfo) == "PreconditionFailed"
    s3.put_object(Bucket=bucket, Key="w", Body=b"five", IfNoneMatch=first)
    s3.put_object(Bucket=bucket, Key="fresh", Body=b"new", IfNoneMatch=first)
    assert [s3.get_object(Bucket=bucket, Key=k)["Body"].read() for k in ("w", "fresh")] == [b"five", b"new"]
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="absent", Body=b"x", IfMatch="*")
    assert error_code(excinfo) == "NoSuchKey"


def test_conditional_put_race_has_one_winner(s3, bucket):
    winners, barrier = [], threading.Barrier(8)

    def attempt(i):
        client = make_s3_client(s3.meta.endpoint_url)
        barrier.wait()
        try:
            client.put_object(Bucket=bucket, Key="race", Body=f"writer-{i}".encode(), IfNoneMatch="*")
            winners.append(i)
        except ClientError as exc:
            assert exc.response["Error"]["Code"] == "PreconditionFailed"

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1
    assert s3.get_object(Bucket=bucket, Key="race")["Body"].read() == f"writer-{winners[0]}".encode()


def test_flexible_checksums_are_stored_and_returned(server, s3, bucket):
    body = b"checksum me" * 1000
    for algorithm in ("CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"):
        put = s3.put_object(Bucket=bucket, Key=f"ck-{algorithm}", Body=body, ChecksumAlgorithm=algorithm)
        assert put[f"Checksum{algorithm}"]
        got = s3.get_object(Bucket=bucket, Key=f"ck-{algorithm}", ChecksumMode="ENABLED")
        assert got[f"Checksum{algorithm}"] == put[f"Checksum{algorithm}"]
        assert got["Body"].read() == body
    expected = base64.b64encode(zlib.crc32(body).to_bytes(4, "big")).decode()
    assert s3.head_object(Bucket=bucket, Key="ck-CRC32", ChecksumMode="ENABLED")["ChecksumCRC32"] == expected
    # Without x-amz-checksum-mode: ENABLED the stored checksums are not sent.
    assert "ChecksumCRC32" not in s3.head_object(Bucket=bucket, Key="ck-CRC32")
    # (boto3 sends it on every GET by default, hence the raw request)
    assert "x-amz-checksum-crc32" not in signed_call(server, "GET", f"/{bucket}/ck-CRC32").headers
    assert signed_call(server, "GET", f"/{bucket}/ck-CRC32", headers={"x-amz-checksum-mode": "ENABLED"}
                       ).headers["x-amz-checksum-crc32"] == expected


def test_wrong_checksum_is_refused_and_nothing_stored(s3, bucket):
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="bad", Body=b"data", ChecksumCRC32="AAAAAA==")
    assert error_code(excinfo) == "BadDigest"
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="bad", Body=b"data", ContentMD5=base64.b64encode(b"0" * 16).decode())
    assert error_code(excinfo) == "BadDigest"
    with pytest.raises(ClientError) as excinfo:
        s3.head_object(Bucket=bucket, Key="bad")
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_copy_object_directives(s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"payload", Metadata={"a": "1"}, ContentType="text/plain")
    s3.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "src"})
    copied = s3.get_object(Bucket=bucket, Key="copy")
    assert copied["Body"].read() == b"payload"
    assert copied["Metadata"] == {"a": "1"} and copied["ContentType"] == "text/plain"
    s3.copy_object(
        Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "src"},
        MetadataDirective="REPLACE", Metadata={"b": "2"}, ContentType="application/json",
    )
    replaced = s3.head_object(Bucket=bucket, Key="copy")
    assert replaced["Metadata"] == {"b": "2"} and replaced["ContentType"] == "application/json"
    with pytest.raises(ClientError) as excinfo:
        s3.copy_object(Bucket=bucket, Key="src", CopySource={"Bucket": bucket, "Key": "src"})
    assert error_code(excinfo) == "InvalidRequest"
    s3.copy_object(
        Bucket=bucket, Key="src", CopySource={"Bucket": bucket, "Key": "src"},
        MetadataDirective="REPLACE", Metadata={"c": "3"},
    )
    assert s3.head_object(Bucket=bucket, Key="src")["Metadata"] == {"c": "3"}
    with pytest.raises(ClientError) as excinfo:
        s3.copy_object(Bucket=bucket, Key="x", CopySource={"Bucket": bucket, "Key": "nope"})
    assert error_code(excinfo) == "NoSuchKey"
    with pytest.raises(ClientError) as excinfo:
        s3.copy_object(
            Bucket=bucket, Key="x", CopySource={"Bucket": bucket, "Key": "src"}, CopySourceIfMatch='"beef"'
        )
    assert error_code(excinfo) == "PreconditionFailed"


def test_delete_objects_batch(s3, bucket):
    for i in range(5):
        s3.put_object(Bucket=bucket, Key=f"d/{i}", Body=b"x")
    result = s3.delete_objects(
        Bucket=bucket, Delete={"Objects": [{"Key": f"d/{i}"} for i in range(3)] + [{"Key": "d/missing"}]}
    )
    assert sorted(d["Key"] for d in result["Deleted"]) == ["d/0", "d/1", "d/2", "d/missing"]
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["d/3", "d/4"]
    quiet = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "d/3"}], "Quiet": True})
    assert "Deleted" not in quiet


def test_listing_v2_paginates_with_delimiter(s3, bucket):
    keys = [f"p/{d}/f{i}" for d in ("a", "b", "c") for i in range(3)] + [f"p/top{i}" for i in range(4)] + ["q"]
    for key in keys:
        s3.put_object(Bucket=bucket, Key=key, Body=b"")
    seen_keys, seen_prefixes, token = [], [], None
    while True:
        kwargs = {"ContinuationToken": token} if token else {}
        page = s3.list_objects_v2(Bucket=bucket, Prefix="p/", Delimiter="/", MaxKeys=2, **kwargs)
        seen_keys += [o["Key"] for o in page.get("Contents", [])]
        seen_prefixes += [p["Prefix"] for p in page.get("CommonPrefixes", [])]
        assert page["KeyCount"] <= 2
        if not page["IsTruncated"]:
            break
        token = page["NextContinuationToken"]
    assert seen_prefixes == ["p/a/", "p/b/", "p/c/"]
    assert seen_keys == [f"p/top{i}" for i in range(4)]
    after = s3.list_objects_v2(Bucket=bucket, StartAfter="p/c/f1")
    assert [o["Key"] for o in after["Contents"]][:2] == ["p/c/f2", "p/top0"]
    paginator = s3.get_paginator("list_objects_v2")
    all_keys = [o["Key"] for page in paginator.paginate(Bucket=bucket, PaginationConfig={"PageSize": 3})
                for o in page["Contents"]]
    assert all_keys == sorted(keys)
    owned = s3.list_objects_v2(Bucket=bucket, FetchOwner=True, MaxKeys=1)["Contents"][0]
    assert owned["Owner"]["ID"]
    assert s3.list_objects_v2(Bucket=bucket, MaxKeys=0)["KeyCount"] == 0


def test_listing_v1_and_url_encoding(s3, bucket):
    keys = ["a", "b c", "d\u00e9", "e"]
    for key in keys:
        s3.put_object(Bucket=bucket, Key=key, Body=b"")
    page = s3.list_objects(Bucket=bucket, MaxKeys=2)
    assert [o["Key"] for o in page["Contents"]] == ["a", "b c"] and page["IsTruncated"]
    rest = s3.list_objects(Bucket=bucket, Marker=page.get("NextMarker", "b c"))
    assert [o["Key"] for o in rest["Contents"]] == ["d\u00e9", "e"]
    # asked for explicitly, keys come back percent-encoded (boto3 decodes only what it asked for itself)
    encoded = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, EncodingType="url")["Contents"]]
    assert encoded == ["a", "b%20c", "d%C3%A9", "e"]
    # S3 encodes the echoed Prefix of v2 listings only
    v1 = s3.list_objects(Bucket=bucket, Prefix="b c", EncodingType="url")
    v2 = s3.list_objects_v2(Bucket=bucket, Prefix="b c", EncodingType="url")
    assert (v1["Prefix"], v2["Prefix"], v1["Contents"][0]["Key"]) == ("b c", "b%20c", "b%20c")


def test_listing_is_exact_under_concurrent_writes(s3, bucket):
    stop = threading.Event()
    written: list[str] = []

    def writer():
        client = make_s3_client(s3.meta.endpoint_url)
        i = 0
        while not stop.is_set() and i < 300:
            key = f"c/{i:05d}"
            client.put_object(Bucket=bucket, Key=key, Body=b"x")
            written.append(key)
            i += 1

    thread = threading.Thread(target=writer)
    thread.start()
    for _ in range(20):
        before = list(written)
        listed = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
                  for o in page.get("Contents", [])]
        assert listed == sorted(listed)
        assert set(before) <= set(listed)
    stop.set()
    thread.join()
    final = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
             for o in page.get("Contents", [])]
    assert final == sorted(written)


def test_multipart_via_upload_file(s3, bucket, tmp_path):
    data = os.urandom(17 * 1024 * 1024 + 123)
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    config = TransferConfig(multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024)
    s3.upload_file(str(path), bucket, "big.bin", Config=config)
    head = s3.head_object(Bucket=bucket, Key="big.bin")
    assert head["ContentLength"] == len(data)
    assert head["ETag"].strip('"').endswith("-4")
    parts = [hashlib.md5(data[i:i + 5 * 1024 * 1024]).digest() for i in range(0, len(data), 5 * 1024 * 1024)]
    assert head["ETag"].strip('"') == hashlib.md5(b"".join(parts)).hexdigest() + "-4"
    out = io.BytesIO()
    s3.download_fileobj(bucket, "big.bin", out, Config=config)
    assert out.getvalue() == data


def test_part_number_reads_only_that_part(s3, bucket):
    five = 5 * 1024 * 1024
    parts = [os.urandom(five), os.urandom(five + 7), b"tail"]
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    listed = [{"PartNumber": n, "ETag": s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=n,
                                                        Body=data)["ETag"]}
              for n, data in enumerate(parts, 1)]
    s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload={"Parts": listed})
    total, start = sum(map(len, parts)), 0
    for n, data in enumerate(parts, 1):
        got = s3.get_object(Bucket=bucket, Key="mp", PartNumber=n)
        assert got["ResponseMetadata"]["HTTPStatusCode"] == 206
        assert (got["PartsCount"], got["ContentLength"]) == (3, len(data))
        assert got["ContentRange"] == f"bytes {start}-{start + len(data) - 1}/{total}"
        assert got["Body"].read() == data
        head = s3.head_object(Bucket=bucket, Key="mp", PartNumber=n)
        assert (head["ContentLength"], head["ContentRange"]) == (len(data), got["ContentRange"])
        start += len(data)
    with pytest.raises(ClientError) as excinfo:
        s3.get_object(Bucket=bucket, Key="mp", PartNumber=4)
    assert (error_code(excinfo), excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]) == (
        "InvalidPartNumber", 416)
    with pytest.raises(ClientError) as excinfo:
        s3.get_object(Bucket=bucket, Key="mp", PartNumber=1, Range="bytes=0-1")
    assert error_code(excinfo) == "InvalidRequest"


def test_part_number_one_of_a_plain_object_is_all_of_it(s3, bucket):
    s3.put_object(Bucket=bucket, Key="plain", Body=b"0123456789")
    got = s3.get_object(Bucket=bucket, Key="plain", PartNumber=1)
    assert (got["ResponseMetadata"]["HTTPStatusCode"], got["ContentRange"]) == (206, "bytes 0-9/10")
    assert got["Body"].read() == b"0123456789"
    assert "PartsCount" not in got
    with pytest.raises(ClientError) as excinfo:
        s3.head_object(Bucket=bucket, Key="plain", PartNumber=2)
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 416


def test_multipart_low_level(s3, bucket):
    five = 5 * 1024 * 1024
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ChecksumAlgorithm="CRC32")["UploadId"]
    assert [u["UploadId"] for u in s3.list_multipart_uploads(Bucket=bucket)["Uploads"]] == [upload]
    p1 = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1, Body=b"a" * five,
                        ChecksumAlgorithm="CRC32")
    s3.put_object(Bucket=bucket, Key="source", Body=b"0123456789" * 100)
    p2 = s3.upload_part_copy(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=2,
                             CopySource={"Bucket": bucket, "Key": "source"}, CopySourceRange="bytes=10-29")
    listed = s3.list_parts(Bucket=bucket, Key="mp", UploadId=upload)["Parts"]
    assert [(p["PartNumber"], p["Size"]) for p in listed] == [(1, five), (2, 20)]
    done = s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=upload,
        MultipartUpload={"Parts": [
            {"PartNumber": 1, "ETag": p1["ETag"], "ChecksumCRC32": p1["ChecksumCRC32"]},
            {"PartNumber": 2, "ETag": p2["CopyPartResult"]["ETag"]},
        ]},
    )
    assert done["ETag"].strip('"').endswith("-2")
    body = s3.get_object(Bucket=bucket, Key="mp")["Body"].read()
    assert body == b"a" * five + (b"0123456789" * 100)[10:30]
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_multipart_errors_and_abort(s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="small")["UploadId"]
    e1 = s3.upload_part(Bucket=bucket, Key="small", UploadId=upload, PartNumber=1, Body=b"tiny")["ETag"]
    e2 = s3.upload_part(Bucket=bucket, Key="small", UploadId=upload, PartNumber=2, Body=b"tiny")["ETag"]
    with pytest.raises(ClientError) as excinfo:
        s3.complete_multipart_upload(Bucket=bucket, Key="small", UploadId=upload, MultipartUpload={
            "Parts": [{"PartNumber": 1, "ETag": e1}, {"PartNumber": 2, "ETag": e2}]})
    assert error_code(excinfo) == "EntityTooSmall"
    with pytest.raises(ClientError) as excinfo:
        s3.complete_multipart_upload(Bucket=bucket, Key="small", UploadId=upload, MultipartUpload={
            "Parts": [{"PartNumber": 2, "ETag": e2}, {"PartNumber": 1, "ETag": e1}]})
    assert error_code(excinfo) == "InvalidPartOrder"
    with pytest.raises(ClientError) as excinfo:
        s3.complete_multipart_upload(Bucket=bucket, Key="small", UploadId=upload, MultipartUpload={
            "Parts": [{"PartNumber": 1, "ETag": '"0123"'}]})
    assert error_code(excinfo) == "InvalidPart"
    with pytest.raises(ClientError) as excinfo:
        s3.upload_part(Bucket=bucket, Key="small", UploadId=upload, PartNumber=10001, Body=b"x")
    assert error_code(excinfo) == "InvalidArgument"
    s3.abort_multipart_upload(Bucket=bucket, Key="small", UploadId=upload)
    with pytest.raises(ClientError) as excinfo:
        s3.list_parts(Bucket=bucket, Key="small", UploadId=upload)
    assert error_code(excinfo) == "NoSuchUpload"
    with pytest.raises(ClientError):
        s3.head_object(Bucket=bucket, Key="small")


def test_presigned_urls_v2_and_v4(s3, bucket):
    s3.put_object(Bucket=bucket, Key="shared.txt", Body=b"hello")
    for signature in ("s3", "s3v4"):  # boto3's default for us-east-1 is SigV2 query auth
        client = make_s3_client(s3.meta.endpoint_url, signature_version=signature)
        url = client.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "shared.txt"})
        assert requests.get(url, timeout=10).content == b"hello"
        put_url = client.generate_presigned_url(
            "put_object", Params={"Bucket": bucket, "Key": f"up-{signature}"}, ExpiresIn=60
        )
        assert requests.put(put_url, data=b"uploaded", timeout=10).status_code == 200
        assert s3.get_object(Bucket=bucket, Key=f"up-{signature}")["Body"].read() == b"uploaded"
        # Bucket-level calls: botocore signs a SigV2 bucket URL as /bucket/ though it ends in /bucket.
        list_url = client.generate_presigned_url("list_objects_v2", Params={"Bucket": bucket})
        assert b"<Key>shared.txt</Key>" in requests.get(list_url, timeout=10).content


def test_expired_presign_and_bad_signature(s3, bucket, server):
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    client = make_s3_client(server.endpoint, signature_version="s3v4")
    url = client.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "k"}, ExpiresIn=1)
    time.sleep(2)
    response = requests.get(url, timeout=10)
    assert response.status_code == 403 and b"<Code>AccessDenied</Code>" in response.content
    # (botocore's CRT signer refuses to make such a URL; its Python one does not)
    from botocore.auth import S3SigV4QueryAuth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    request = AWSRequest(method="PUT", url=f"{server.endpoint}/{bucket}/k")
    S3SigV4QueryAuth(Credentials(ROOT_USER, ROOT_PASSWORD), "s3", "us-east-1", expires=-1000).add_auth(request)
    response = requests.put(request.url, data=b"late", timeout=10)
    assert response.status_code == 403 and b"X-Amz-Expires must be non-negative" in response.content
    tampered = client.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "k"})
    response = requests.get(tampered.replace("X-Amz-Signature=", "X-Amz-Signature=00"), timeout=10)
    assert b"SignatureDoesNotMatch" in response.content or b"AuthorizationQueryParametersError" in response.content
    wrong = make_s3_client(server.endpoint, secret_key="not-the-secret")
    with pytest.raises(ClientError) as excinfo:
        wrong.put_object(Bucket=bucket, Key="k", Body=b"overwrite")
    assert error_code(excinfo) == "SignatureDoesNotMatch"
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"


def test_anonymous_requests_are_refused(server, bucket):
    response = requests.get(f"{server.endpoint}/{bucket}", timeout=10)
    assert response.status_code == 403
    assert b"<Code>AccessDenied</Code>" in response.content
    response = requests.put(f"{server.endpoint}/{bucket}/anon", data=b"x", timeout=10)
    assert response.status_code == 403


def test_unknown_access_key(server):
    client = make_s3_client(server.endpoint, access_key="nobody")
    with pytest.raises(ClientError) as excinfo:
        client.list_buckets()
    assert error_code(excinfo) == "InvalidAccessKeyId"


def test_unsigned_payload_and_checksum_when_required(server, bucket):
    client = make_s3_client(
        server.endpoint, request_checksum_calculation="when_required", signature_version="s3v4",
        s3={"addressing_style": "path", "payload_signing_enabled": False},
    )
    client.put_object(Bucket=bucket, Key="u", Body=b"unsigned")
    assert client.get_object(Bucket=bucket, Key="u")["Body"].read() == b"unsigned"


def test_health_endpoints(server):
    assert requests.get(server.endpoint + "/_aistor/health", timeout=5).json()["status"] == "ok"
    assert requests.get(server.endpoint + "/minio/health/live", timeout=5).status_code == 200


def test_clock_skew_is_refused(server, bucket, s3):
    headers = {
        "x-amz-date": "20000101T000000Z",
        "x-amz-content-sha256": hashlib.sha256(b"").hexdigest(),
        "Authorization": "AWS4-HMAC-SHA256 Credential=minioadmin/20000101/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + "0" * 64,
    }
    response = requests.get(f"{server.endpoint}/{bucket}", headers=headers, timeout=5)
    assert response.status_code == 403
    assert b"RequestTimeTooSkewed" in response.content
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


def test_get_object_attributes(s3, bucket):
    five = 5 * 1024 * 1024
    parts = [os.urandom(five), os.urandom(five), b"end"]
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ChecksumAlgorithm="CRC32")["UploadId"]
    listed = [{"PartNumber": n, **{k: v for k, v in s3.upload_part(
        Bucket=bucket, Key="mp", UploadId=upload, PartNumber=n, Body=data, ChecksumAlgorithm="CRC32",
    ).items() if k in ("ETag", "ChecksumCRC32")}} for n, data in enumerate(parts, 1)]
    done = s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload={"Parts": listed})
    every = ["ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize"]
    got = s3.get_object_attributes(Bucket=bucket, Key="mp", ObjectAttributes=every)
    assert got["ETag"] == done["ETag"].strip('"')
    assert (got["ObjectSize"], got["StorageClass"]) == (sum(map(len, parts)), "STANDARD")
    assert got["Checksum"]["ChecksumCRC32"] == done["ChecksumCRC32"]
    assert got["ObjectParts"]["TotalPartsCount"] == 3
    assert [(p["PartNumber"], p["Size"]) for p in got["ObjectParts"]["Parts"]] == [(1, five), (2, five), (3, 3)]
    page = s3.get_object_attributes(Bucket=bucket, Key="mp", ObjectAttributes=["ObjectParts"], MaxParts=2)
    assert (page["ObjectParts"]["IsTruncated"], page["ObjectParts"]["NextPartNumberMarker"]) == (True, 2)
    assert "ETag" not in page
    rest = s3.get_object_attributes(Bucket=bucket, Key="mp", ObjectAttributes=["ObjectParts"], PartNumberMarker=2)
    assert [p["PartNumber"] for p in rest["ObjectParts"]["Parts"]] == [3]

    s3.put_object(Bucket=bucket, Key="plain", Body=b"0123456789")
    plain = s3.get_object_attributes(Bucket=bucket, Key="plain", ObjectAttributes=every)
    assert (plain["ObjectSize"], "ObjectParts" in plain) == (10, False)
    with pytest.raises(ClientError) as excinfo:
        s3.get_object_attributes(Bucket=bucket, Key="missing", ObjectAttributes=["ETag"])
    assert error_code(excinfo) == "NoSuchKey"
    with pytest.raises(ClientError) as excinfo:
        s3.get_object_attributes(Bucket=bucket, Key="plain", ObjectAttributes=["Colour"])
    assert error_code(excinfo) == "InvalidArgument"
