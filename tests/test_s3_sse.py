"""Server-side encryption at rest through the S3 API, with boto3: SSE-S3, SSE-KMS (the server's key
ring) and SSE-C on PUT/GET/HEAD, ranges, ?partNumber, multipart uploads and copies between modes;
bucket default encryption; S3's errors for missing, wrong and needless keys; and no plaintext byte
of an encrypted object anywhere in the data directory."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import uuid
from urllib.parse import urlparse

import delta_sharing
import pandas as pd
import pyarrow as pa
import pytest
import s3fs
from botocore.exceptions import ClientError
from deltalake import write_deltalake
from minio import Minio
from minio.sse import SseS3
from minio.sseconfig import Rule, SSEConfig
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from .conftest import catalog_call, make_s3_client, seed_catalog_properties, service_with
from .sharing_support import share_profile, sharing_request, storage_options, table_path

MAIN_KEY = os.urandom(32)
ARCHIVE_KEY = os.urandom(32)
MiB = 1024 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server of its own: a key ring, and SSE-C keys taken over plain HTTP on loopback."""
    env = {
        "AISTOR_KMS_SECRET_KEY": "main:" + base64.b64encode(MAIN_KEY).decode(),
        "AISTOR_KMS_KEYS": "archive:" + base64.b64encode(ARCHIVE_KEY).decode(),
        "AISTOR_SSE_C_OVER_HTTP": "on",
    }
    with service_with(tmp_path_factory, env) as service:
        yield service


@pytest.fixture(scope="module")
def s3(server):
    return make_s3_client(server.endpoint)


@pytest.fixture
def bucket(s3):
    name = f"sse-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def customer(key: bytes, prefix: str = "SSECustomer") -> dict:
    """boto3's SSE-C parameters (it adds the key's MD5 itself)."""
    return {f"{prefix}Algorithm": "AES256", f"{prefix}Key": key}


C_KEY = os.urandom(32)
MODES = {
    "sse-s3": ({"ServerSideEncryption": "AES256"}, {}),
    "sse-kms": ({"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": "archive"}, {}),
    "sse-kms-default-key": ({"ServerSideEncryption": "aws:kms"}, {}),
    "sse-c": (customer(C_KEY), customer(C_KEY)),
}


def pattern(size: int, seed: bytes = b"") -> bytes:
    """Bytes that never repeat, so that any 32-byte slice of the plaintext is recognisable."""
    blocks = (hashlib.sha256(seed + counter.to_bytes(8, "big")).digest() for counter in range(-(-size // 32)))
    return b"".join(blocks)[:size]


def error_of(call, *args, **kwargs) -> tuple[str, int]:
    with pytest.raises(ClientError) as caught:
        call(*args, **kwargs)
    response = caught.value.response
    return response["Error"]["Code"], response["ResponseMetadata"]["HTTPStatusCode"]


def check_mode_headers(response: dict, mode: str) -> None:
    if mode == "sse-c":
        assert response["SSECustomerAlgorithm"] == "AES256"
        assert response["SSECustomerKeyMD5"] == base64.b64encode(hashlib.md5(C_KEY).digest()).decode()
        assert "ServerSideEncryption" not in response
    elif mode == "sse-s3":
        assert response["ServerSideEncryption"] == "AES256"
    else:
        assert response["ServerSideEncryption"] == "aws:kms"
        assert response["SSEKMSKeyId"] == ("archive" if mode == "sse-kms" else "main")


@pytest.mark.parametrize("mode", MODES)
def test_put_get_head_and_ranges(s3, bucket, mode):
    write, read = MODES[mode]
    body = pattern(200_000, mode.encode())
    put = s3.put_object(Bucket=bucket, Key="o", Body=body, Metadata={"owner": "me"}, **write)
    check_mode_headers(put, mode)
    got = s3.get_object(Bucket=bucket, Key="o", **read)
    check_mode_headers(got, mode)
    assert got["Body"].read() == body and got["ContentLength"] == len(body)
    assert got["Metadata"] == {"owner": "me"}  # the stored key material never shows
    head = s3.head_object(Bucket=bucket, Key="o", **read)
    check_mode_headers(head, mode)
    assert head["ContentLength"] == len(body) and head["ETag"] == put["ETag"]
    for first, last in ((0, 0), (65_535, 65_536), (100, 150_000), (199_990, 199_999)):
        ranged = s3.get_object(Bucket=bucket, Key="o", Range=f"bytes={first}-{last}", **read)
        assert ranged["Body"].read() == body[first : last + 1]
        assert ranged["ContentRange"] == f"bytes {first}-{last}/{len(body)}"
    suffix = s3.get_object(Bucket=bucket, Key="o", Range="bytes=-10", **read)["Body"].read()
    assert suffix == body[-10:]
    assert s3.get_object(Bucket=bucket, Key="o", PartNumber=1, **read)["Body"].read() == body
    listed = s3.list_objects_v2(Bucket=bucket)["Contents"]
    assert [(entry["Key"], entry["Size"]) for entry in listed] == [("o", len(body))]


@pytest.mark.parametrize("mode", MODES)
def test_empty_object(s3, bucket, mode):
    write, read = MODES[mode]
    s3.put_object(Bucket=bucket, Key="empty", Body=b"", **write)
    got = s3.get_object(Bucket=bucket, Key="empty", **read)
    assert got["Body"].read() == b"" and got["ContentLength"] == 0
    assert s3.list_objects_v2(Bucket=bucket)["Contents"][0]["Size"] == 0


@pytest.mark.parametrize("mode", MODES)
def test_multipart_with_the_key_on_each_part(s3, bucket, mode):
    write, read = MODES[mode]
    parts_data = [pattern(5 * MiB, b"p1" + mode.encode()), pattern(5 * MiB + 3, b"p2"), pattern(70_000, b"p3")]
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", **write)
    check_mode_headers(upload, mode)
    parts = []
    for number, data in enumerate(parts_data, 1):
        answer = s3.upload_part(
            Bucket=bucket, Key="mp", UploadId=upload["UploadId"], PartNumber=number, Body=data, **read
        )
        check_mode_headers(answer, mode)
        parts.append({"PartNumber": number, "ETag": answer["ETag"]})
    # A part sent again answers the same ETag (clients retrying keep either); SSE-S3's is its MD5.
    again = s3.upload_part(
        Bucket=bucket, Key="mp", UploadId=upload["UploadId"], PartNumber=1, Body=parts_data[0], **read
    )
    assert again["ETag"] == parts[0]["ETag"]
    plain_md5 = '"' + hashlib.md5(parts_data[0]).hexdigest() + '"'
    assert (again["ETag"] == plain_md5) == (mode == "sse-s3")
    listed = s3.list_parts(Bucket=bucket, Key="mp", UploadId=upload["UploadId"])["Parts"]
    assert [part["Size"] for part in listed] == [len(data) for data in parts_data]
    assert [part["ETag"] for part in listed] == [part["ETag"] for part in parts]
    done = s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=upload["UploadId"], MultipartUpload={"Parts": parts}
    )
    if mode != "sse-c":  # the completion carries no key whose MD5 it could repeat
        check_mode_headers(done, mode)
    body = b"".join(parts_data)
    assert s3.get_object(Bucket=bucket, Key="mp", **read)["Body"].read() == body
    head = s3.head_object(Bucket=bucket, Key="mp", **read)
    assert head["ContentLength"] == len(body) and head["ETag"] == done["ETag"]
    part_digests = b"".join(bytes.fromhex(part["ETag"].strip('"')) for part in parts)
    assert done["ETag"] == '"' + hashlib.md5(part_digests).hexdigest() + '-3"'  # over the ETags answered
    assert s3.list_objects_v2(Bucket=bucket)["Contents"][0]["ETag"] == done["ETag"]
    assert s3.list_objects_v2(Bucket=bucket)["Contents"][0]["Size"] == len(body)
    second = s3.get_object(Bucket=bucket, Key="mp", PartNumber=2, **read)
    assert second["Body"].read() == parts_data[1] and second["PartsCount"] == 3
    assert second["ContentRange"] == f"bytes {5 * MiB}-{10 * MiB + 2}/{len(body)}"
    across = s3.get_object(Bucket=bucket, Key="mp", Range=f"bytes={5 * MiB - 10}-{5 * MiB + 9}", **read)
    assert across["Body"].read() == body[5 * MiB - 10 : 5 * MiB + 10]
    # boto3 encodes SSE-C keys for most operations, not for this one.
    raw = {} if not read else {
        "SSECustomerAlgorithm": "AES256", "SSECustomerKey": base64.b64encode(C_KEY).decode(),
        "SSECustomerKeyMD5": base64.b64encode(hashlib.md5(C_KEY).digest()).decode(),
    }  # fmt: skip
    attributes = s3.get_object_attributes(
        Bucket=bucket, Key="mp", ObjectAttributes=["ObjectParts", "ObjectSize"], MaxParts=10, **raw
    )
    assert attributes["ObjectSize"] == len(body)
    assert [part["Size"] for part in attributes["ObjectParts"]["Parts"]] == [len(data) for data in parts_data]


def test_encrypted_upload_parts_must_be_numbered_from_one(s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="gap", ServerSideEncryption="AES256")
    etag = s3.upload_part(Bucket=bucket, Key="gap", UploadId=upload["UploadId"], PartNumber=2, Body=b"x")["ETag"]
    code, status = error_of(
        s3.complete_multipart_upload, Bucket=bucket, Key="gap", UploadId=upload["UploadId"],
        MultipartUpload={"Parts": [{"PartNumber": 2, "ETag": etag}]},
    )  # fmt: skip
    assert (code, status) == ("InvalidRequest", 400)


def test_sse_c_part_without_or_with_a_wrong_key(s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="c", **customer(C_KEY))
    upload_id = upload["UploadId"]
    missing = error_of(s3.upload_part, Bucket=bucket, Key="c", UploadId=upload_id, PartNumber=1, Body=b"x")
    assert missing == ("InvalidRequest", 400)
    wrong = error_of(
        s3.upload_part, Bucket=bucket, Key="c", UploadId=upload_id, PartNumber=1, Body=b"x",
        **customer(os.urandom(32)),
    )  # fmt: skip
    assert wrong == ("AccessDenied", 403)
    assert s3.list_parts(Bucket=bucket, Key="c", UploadId=upload_id).get("Parts", []) == []


COPY_CASES = [
    ("plain", "sse-s3"),
    ("sse-s3", "sse-kms"),
    ("sse-kms", "sse-c"),
    ("sse-c", "plain"),
    ("sse-c", "sse-c-other"),
    ("sse-kms", "plain"),
]


def _write_options(mode: str) -> dict:
    if mode == "plain":
        return {}
    if mode == "sse-c-other":
        return customer(OTHER_C_KEY)
    return MODES[mode][0]


OTHER_C_KEY = os.urandom(32)


@pytest.mark.parametrize("source_mode,target_mode", COPY_CASES)
def test_copy_between_modes(s3, bucket, source_mode, target_mode):
    body = pattern(150_000, source_mode.encode())
    s3.put_object(Bucket=bucket, Key="src", Body=body, Metadata={"k": "v"}, Tagging="t=1",
                  **_write_options(source_mode))
    source_key = customer(C_KEY, "CopySourceSSECustomer") if source_mode == "sse-c" else {}
    answer = s3.copy_object(
        Bucket=bucket, Key="dst", CopySource={"Bucket": bucket, "Key": "src"},
        **source_key, **_write_options(target_mode),
    )  # fmt: skip
    read = {"sse-c": customer(C_KEY), "sse-c-other": customer(OTHER_C_KEY)}.get(target_mode, {})
    got = s3.get_object(Bucket=bucket, Key="dst", **read)
    assert got["Body"].read() == body and got["Metadata"] == {"k": "v"}
    expected = {"plain": None, "sse-s3": "AES256", "sse-kms": "aws:kms"}.get(target_mode)
    assert got.get("ServerSideEncryption") == expected
    assert answer.get("ServerSideEncryption") == expected
    assert ("SSECustomerAlgorithm" in got) == target_mode.startswith("sse-c")
    # The copy keeps the source's tags, whether re-encrypted or not; reading tags takes no SSE-C key.
    assert s3.get_object_tagging(Bucket=bucket, Key="dst")["TagSet"] == [{"Key": "t", "Value": "1"}]
    assert got["TagCount"] == 1


def test_copy_of_an_sse_c_source_needs_its_key(s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"secret", **customer(C_KEY))
    source = {"Bucket": bucket, "Key": "src"}
    assert error_of(s3.copy_object, Bucket=bucket, Key="dst", CopySource=source) == ("InvalidRequest", 400)
    wrong = customer(os.urandom(32), "CopySourceSSECustomer")
    assert error_of(s3.copy_object, Bucket=bucket, Key="dst", CopySource=source, **wrong) == ("AccessDenied", 403)
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket, Prefix="dst")


def test_upload_part_copy_between_modes(s3, bucket):
    first = pattern(5 * MiB, b"first")
    s3.put_object(Bucket=bucket, Key="src", Body=first, **customer(C_KEY))
    s3.put_object(Bucket=bucket, Key="plain", Body=b"tail of the object")
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ServerSideEncryption="aws:kms")
    upload_id = upload["UploadId"]
    one = s3.upload_part_copy(
        Bucket=bucket, Key="mp", UploadId=upload_id, PartNumber=1, CopySource={"Bucket": bucket, "Key": "src"},
        **customer(C_KEY, "CopySourceSSECustomer"),
    )  # fmt: skip
    two = s3.upload_part_copy(
        Bucket=bucket, Key="mp", UploadId=upload_id, PartNumber=2, CopySource={"Bucket": bucket, "Key": "plain"},
        CopySourceRange="bytes=5-11",
    )  # fmt: skip
    parts = [{"PartNumber": 1, "ETag": one["CopyPartResult"]["ETag"]}, {"PartNumber": 2, "ETag": two["CopyPartResult"]["ETag"]}]
    s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload_id, MultipartUpload={"Parts": parts})
    got = s3.get_object(Bucket=bucket, Key="mp")
    assert got["ServerSideEncryption"] == "aws:kms"
    assert got["Body"].read() == first + b"of the "


def test_reads_with_missing_wrong_or_needless_keys(s3, bucket):
    s3.put_object(Bucket=bucket, Key="c", Body=b"secret", **customer(C_KEY))
    s3.put_object(Bucket=bucket, Key="s3", Body=b"open", ServerSideEncryption="AES256")
    for call in (s3.get_object, s3.head_object):
        assert error_of(call, Bucket=bucket, Key="c")[1] == 400
        assert error_of(call, Bucket=bucket, Key="c", **customer(os.urandom(32)))[1] == 403
        assert error_of(call, Bucket=bucket, Key="s3", **customer(C_KEY))[1] == 400
    assert error_of(s3.get_object, Bucket=bucket, Key="c") == ("InvalidRequest", 400)
    assert error_of(s3.get_object, Bucket=bucket, Key="c", **customer(os.urandom(32))) == ("AccessDenied", 403)


def test_unknown_kms_key_and_malformed_headers(s3, bucket):
    code = error_of(s3.put_object, Bucket=bucket, Key="k", Body=b"x", ServerSideEncryption="aws:kms",
                    SSEKMSKeyId="nope")  # fmt: skip
    assert code == ("KMS.NotFoundException", 400)
    assert error_of(s3.put_object, Bucket=bucket, Key="k", Body=b"x", ServerSideEncryption="AES128")[0] == (
        "InvalidArgument"
    )
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)


def test_reserved_metadata_names_are_refused(s3, bucket):
    code = error_of(s3.put_object, Bucket=bucket, Key="m", Body=b"x", Metadata={"aistor-internal-sse-mode": "SSE-C"})
    assert code == ("InvalidArgument", 400)
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)


def test_bucket_default_encryption_applies_to_plain_writes(s3, bucket):
    s3.put_bucket_encryption(
        Bucket=bucket,
        ServerSideEncryptionConfiguration={
            "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": "archive"}}]
        },
    )
    put = s3.put_object(Bucket=bucket, Key="plain-put", Body=b"defaulted")
    assert put["ServerSideEncryption"] == "aws:kms" and put["SSEKMSKeyId"] == "archive"
    head = s3.head_object(Bucket=bucket, Key="plain-put")
    assert head["ServerSideEncryption"] == "aws:kms" and head["ContentLength"] == 9
    explicit = s3.put_object(Bucket=bucket, Key="explicit", Body=b"x", ServerSideEncryption="AES256")
    assert explicit["ServerSideEncryption"] == "AES256"  # a request's own choice wins
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp")
    assert upload["ServerSideEncryption"] == "aws:kms"
    s3.abort_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload["UploadId"])
    s3.delete_bucket_encryption(Bucket=bucket)
    assert "ServerSideEncryption" not in s3.put_object(Bucket=bucket, Key="after", Body=b"x")


def test_no_plaintext_reaches_the_data_directory(server, s3, bucket):
    big = pattern(300_000, b"on-disk big")
    small = pattern(3_000, b"on-disk small")  # small enough to live in the index itself
    s3.put_object(Bucket=bucket, Key="big", Body=big, ServerSideEncryption="AES256")
    s3.put_object(Bucket=bucket, Key="small", Body=small, **customer(C_KEY))
    s3.put_object(Bucket=bucket, Key="meta", Body=small[:100], ServerSideEncryption="aws:kms")
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ServerSideEncryption="aws:kms")
    part = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload["UploadId"], PartNumber=1, Body=big)
    s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=upload["UploadId"],
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]},
    )  # fmt: skip
    s3.put_object(Bucket=bucket, Key="control", Body=pattern(3_000, b"control"))
    stored = b"".join(path.read_bytes() for path in server.data_dir.rglob("*") if path.is_file())
    assert pattern(3_000, b"control")[:32] in stored  # the scan does see what is stored in the clear
    for data in (big, small):
        for offset in range(0, len(data) - 32, 997):
            assert data[offset : offset + 32] not in stored
    assert MAIN_KEY not in stored and ARCHIVE_KEY not in stored and C_KEY not in stored


def default_encryption(s3, bucket: str, algorithm: str, key_id: str | None = None) -> None:
    rule = {"SSEAlgorithm": algorithm, **({"KMSMasterKeyID": key_id} if key_id else {})}
    s3.put_bucket_encryption(
        Bucket=bucket, ServerSideEncryptionConfiguration={"Rules": [{"ApplyServerSideEncryptionByDefault": rule}]}
    )


def test_iceberg_table_in_a_warehouse_with_default_sse_kms(server, s3):
    """PyIceberg writes data and manifests through S3, the catalog its metadata JSON through the
    store: all of it is encrypted under the bucket's default, and all of it reads back."""
    warehouse = f"wh-{uuid.uuid4().hex[:8]}"
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})
    assert status == 200, body
    default_encryption(s3, warehouse, "aws:kms", "archive")
    catalog = load_catalog("sse", **seed_catalog_properties(server, warehouse))
    catalog.create_namespace("ns")
    schema = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "name", StringType()))
    table = catalog.create_table("ns.t", schema=schema)
    arrow_schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
    table.append(pa.table({"id": [1, 2], "name": ["a", "b"]}, schema=arrow_schema))
    table.append(pa.table({"id": [3], "name": ["c"]}, schema=arrow_schema))
    loaded = catalog.load_table("ns.t")
    assert loaded.scan().to_arrow().sort_by("id").column("id").to_pylist() == [1, 2, 3]
    keys = [entry["Key"] for entry in s3.list_objects_v2(Bucket=warehouse)["Contents"]]
    kinds = {key.rsplit(".", 1)[-1] for key in keys}
    assert {"json", "avro", "parquet"} <= kinds
    for key in keys:  # the catalog's metadata JSON included
        head = s3.head_object(Bucket=warehouse, Key=key)
        assert head["ServerSideEncryption"] == "aws:kms" and head["SSEKMSKeyId"] == "archive", key


def test_delta_sharing_of_a_table_in_an_sse_s3_bucket(server, s3, bucket, tmp_path):
    default_encryption(s3, bucket, "AES256")
    frame = pd.DataFrame({"id": [1, 2, 3], "name": ["x", "y", "z"]})
    write_deltalake(f"s3://{bucket}/tables/t", frame, storage_options=storage_options(server))
    log = s3.head_object(Bucket=bucket, Key="tables/t/_delta_log/00000000000000000000.json")
    assert log["ServerSideEncryption"] == "AES256"
    share, profile = share_profile(server, tmp_path, "s", [f"t:delta:{bucket}:tables/t"])
    shared = delta_sharing.load_as_pandas(f"{profile}#{share}.s.t")
    assert shared.sort_values("id")["name"].tolist() == ["x", "y", "z"]


def test_sse_c_is_refused_where_the_catalog_or_sharing_must_read(server, s3, bucket, tmp_path):
    warehouse = f"wh-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] == 200
    assert error_of(s3.put_object, Bucket=warehouse, Key="any/file", Body=b"x", **customer(C_KEY)) == (
        "InvalidRequest", 400
    )
    write_deltalake(f"s3://{bucket}/shared/t", pd.DataFrame({"id": [1]}), storage_options=storage_options(server))
    share_profile(server, tmp_path, "s", [f"t:delta:{bucket}:shared/t"])
    refused = error_of(s3.put_object, Bucket=bucket, Key="shared/t/part-0.parquet", Body=b"x", **customer(C_KEY))
    assert refused == ("InvalidRequest", 400)
    upload = error_of(s3.create_multipart_upload, Bucket=bucket, Key="shared/t/big.parquet", **customer(C_KEY))
    assert upload == ("InvalidRequest", 400)
    s3.put_object(Bucket=bucket, Key="elsewhere", Body=b"x", **customer(C_KEY))  # outside shared tables
    s3.put_object(Bucket=warehouse, Key="any/file", Body=b"x", ServerSideEncryption="AES256")


def test_etags_of_encrypted_objects(s3, bucket):
    """SSE-S3: the plaintext's MD5, as S3 answers (SDKs check it), and conditions name it; SSE-KMS
    and SSE-C: no MD5 of the plaintext."""
    body = pattern(100_000, b"etag")
    md5 = '"' + hashlib.md5(body).hexdigest() + '"'
    put = s3.put_object(Bucket=bucket, Key="s3", Body=body, ServerSideEncryption="AES256")
    assert put["ETag"] == md5 == s3.head_object(Bucket=bucket, Key="s3")["ETag"]
    assert s3.list_objects_v2(Bucket=bucket)["Contents"][0]["ETag"] == md5
    assert s3.get_object(Bucket=bucket, Key="s3", IfMatch=md5)["Body"].read() == body
    s3.put_object(Bucket=bucket, Key="s3", Body=b"next", ServerSideEncryption="AES256", IfMatch=md5)
    assert error_of(s3.put_object, Bucket=bucket, Key="s3", Body=b"x", IfMatch=md5) == ("PreconditionFailed", 412)
    s3.delete_object(Bucket=bucket, Key="s3", IfMatch='"' + hashlib.md5(b"next").hexdigest() + '"')
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)
    for key, options in (("kms", {"ServerSideEncryption": "aws:kms"}), ("c", customer(C_KEY))):
        etag = s3.put_object(Bucket=bucket, Key=key, Body=body, **options)["ETag"]
        assert etag != md5 and len(etag.strip('"')) == 32


def test_a_shared_table_with_an_sse_c_log_file_answers_a_sharing_error(server, s3, bucket, tmp_path):
    """SSE-C written before the path was shared: the table's queries say why they cannot be served."""
    write_deltalake(f"s3://{bucket}/t", pd.DataFrame({"id": [1]}), storage_options=storage_options(server))
    log = "t/_delta_log/00000000000000000000.json"
    s3.copy_object(Bucket=bucket, Key=log, CopySource={"Bucket": bucket, "Key": log}, MetadataDirective="REPLACE",
                   **customer(C_KEY))  # fmt: skip
    share, profile = share_profile(server, tmp_path, "s", [f"t:delta:{bucket}:t"])
    answer = sharing_request(profile, "POST", table_path(share, "s", "t") + "/query", json_body={})
    assert answer.status_code == 400
    assert answer.json()["errorCode"] == "UNSUPPORTED_OPERATION" and "SSE-C" in answer.json()["message"]


def test_minio_sdk_sse_s3_and_bucket_default(server, bucket):
    """The minio SDK takes SSE-S3 over plain HTTP (SSE-KMS and SSE-C it sends over TLS only)."""
    client = Minio(urlparse(server.endpoint).netloc, access_key="minioadmin", secret_key="minioadmin", secure=False)
    body = pattern(12 * MiB + 5, b"minio")
    written = client.put_object(bucket, "big", io.BytesIO(body), len(body), part_size=5 * MiB, sse=SseS3())
    stat = client.stat_object(bucket, "big")
    assert stat.size == len(body) and stat.metadata["x-amz-server-side-encryption"] == "AES256"
    assert stat.etag == written.etag and written.etag.endswith("-3")
    response = client.get_object(bucket, "big", offset=5 * MiB - 3, length=10)
    assert response.read() == body[5 * MiB - 3 : 5 * MiB + 7]
    response.close()
    client.set_bucket_encryption(bucket, SSEConfig(Rule.new_sse_s3_rule()))
    small = client.put_object(bucket, "small", io.BytesIO(b"defaulted"), 9)
    assert small.etag == hashlib.md5(b"defaulted").hexdigest()  # SSE-S3: the MD5 of what was sent
    assert client.stat_object(bucket, "small").metadata["x-amz-server-side-encryption"] == "AES256"
    assert [(o.object_name, o.size) for o in client.list_objects(bucket)] == [("big", len(body)), ("small", 9)]


@pytest.mark.parametrize("mode", ["AES256", "aws:kms"])
def test_s3fs_in_a_bucket_with_default_encryption(server, s3, bucket, mode):
    default_encryption(s3, bucket, mode)
    fs = s3fs.S3FileSystem(key="minioadmin", secret="minioadmin", client_kwargs={"endpoint_url": server.endpoint},
                           use_listings_cache=False)  # fmt: skip
    data = pattern(11 * MiB, mode.encode())
    with fs.open(f"{bucket}/big.bin", "wb", block_size=5 * MiB) as f:  # a multipart upload
        f.write(data)
    fs.pipe(f"{bucket}/small.txt", b"alpha")
    with fs.open(f"{bucket}/big.bin", "rb", block_size=MiB) as f:
        f.seek(3 * MiB + 7)
        assert f.read(100_000) == data[3 * MiB + 7 : 3 * MiB + 100_007]
    assert fs.cat(f"{bucket}/small.txt") == b"alpha"
    assert fs.info(f"{bucket}/big.bin")["size"] == len(data)
    assert {entry["name"]: entry["size"] for entry in fs.ls(bucket, detail=True)} == {
        f"{bucket}/big.bin": len(data), f"{bucket}/small.txt": 5
    }
    fs.copy(f"{bucket}/small.txt", f"{bucket}/copy.txt")
    assert fs.cat(f"{bucket}/copy.txt") == b"alpha"
    assert s3.head_object(Bucket=bucket, Key="big.bin")["ServerSideEncryption"] == mode
