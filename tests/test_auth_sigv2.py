"""SigV2 header auth (``Authorization: AWS ACCESS_KEY:SIGNATURE``) end to end: boto3 with
``signature_version="s3"`` (botocore's HmacV1Auth, as old tools sign) against the real server."""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET

import pytest
import requests
from botocore.exceptions import ClientError

from .conftest import ROOT_PASSWORD, ROOT_USER, make_s3_client, make_user

KEYS = ["plain.txt", "with space/and+plus", "ünïcödé/ключ.bin", "tilde~star*(paren)!'"]


@pytest.fixture(scope="module")
def v2(server):
    return make_s3_client(server.endpoint, signature_version="s3")


def error_of(call) -> tuple[int, str]:
    with pytest.raises(ClientError) as caught:
        call()
    return caught.value.response["ResponseMetadata"]["HTTPStatusCode"], caught.value.response["Error"]["Code"]


def with_header(client, event: str, name: str, value: str):
    """``client`` adding a header before it signs (as ceph's s3-tests do)."""
    client.meta.events.register(f"before-call.s3.{event}", lambda params, **_: params["headers"].update({name: value}))
    return client


def test_bucket_and_objects(v2, s3):
    bucket = f"sigv2-{uuid.uuid4().hex[:12]}"
    v2.create_bucket(Bucket=bucket)
    for key in KEYS:
        v2.put_object(Bucket=bucket, Key=key, Body=key.encode(), ContentType="text/plain", Metadata={"note": "a b"})
        got = v2.get_object(Bucket=bucket, Key=key)
        assert (got["Body"].read(), got["ContentType"], got["Metadata"]) == (key.encode(), "text/plain", {"note": "a b"})
        v2.copy_object(Bucket=bucket, Key=f"copies/{key}", CopySource={"Bucket": bucket, "Key": key})
    assert s3.get_object(Bucket=bucket, Key=f"copies/{KEYS[2]}")["Body"].read() == KEYS[2].encode()
    assert [o["Key"] for o in v2.list_objects(Bucket=bucket, Prefix="copies/")["Contents"]] == \
        sorted(f"copies/{key}" for key in KEYS)
    assert v2.list_objects_v2(Bucket=bucket, Delimiter="/")["CommonPrefixes"][0]["Prefix"] == "copies/"
    assert bucket in [b["Name"] for b in v2.list_buckets()["Buckets"]]
    v2.delete_object(Bucket=bucket, Key=KEYS[1])
    # DeleteObjects: a signed ?delete with the Content-MD5 the S3 layer checks.
    deleted = v2.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in (KEYS[0], *KEYS[2:])]})
    assert len(deleted["Deleted"]) == 3
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])] == \
        sorted(f"copies/{key}" for key in KEYS)


def test_multipart_upload(v2, bucket):
    key = "big file ü.bin"
    upload = v2.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    parts = [v2.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=n, Body=bytes([n]) * (5 << 20 if n == 1 else 10))
             for n in (1, 2)]
    assert [p["PartNumber"] for p in v2.list_parts(Bucket=bucket, Key=key, UploadId=upload)["Parts"]] == [1, 2]
    v2.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={
        "Parts": [{"PartNumber": n, "ETag": part["ETag"]} for n, part in zip((1, 2), parts, strict=True)]})
    assert v2.head_object(Bucket=bucket, Key=key)["ContentLength"] == (5 << 20) + 10
    aborted = v2.create_multipart_upload(Bucket=bucket, Key="aborted")["UploadId"]
    v2.abort_multipart_upload(Bucket=bucket, Key="aborted", UploadId=aborted)
    assert "Uploads" not in v2.list_multipart_uploads(Bucket=bucket)


def test_sub_resources(v2, bucket):
    v2.put_object(Bucket=bucket, Key="k y", Body=b"1")
    v2.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    assert v2.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"
    version = v2.put_object(Bucket=bucket, Key="k y", Body=b"2")["VersionId"]
    assert v2.get_object(Bucket=bucket, Key="k y", VersionId=version)["Body"].read() == b"2"
    assert len(v2.list_object_versions(Bucket=bucket)["Versions"]) == 2
    v2.put_object_tagging(Bucket=bucket, Key="k y", Tagging={"TagSet": [{"Key": "t", "Value": "v w"}]})
    assert v2.get_object_tagging(Bucket=bucket, Key="k y")["TagSet"] == [{"Key": "t", "Value": "v w"}]
    v2.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": [{"Key": "team", "Value": "lab"}]})
    assert v2.get_bucket_tagging(Bucket=bucket)["TagSet"] == [{"Key": "team", "Value": "lab"}]
    assert v2.get_bucket_acl(Bucket=bucket)["Grants"][0]["Permission"] == "FULL_CONTROL"
    v2.put_object_acl(Bucket=bucket, Key="k y", ACL="private")
    assert v2.get_object_acl(Bucket=bucket, Key="k y")["Grants"][0]["Permission"] == "FULL_CONTROL"
    assert v2.get_bucket_location(Bucket=bucket)["LocationConstraint"] is None


def test_refusals(server, bucket):
    wrong_secret = make_s3_client(server.endpoint, ROOT_USER, "not-the-secret", signature_version="s3")
    assert error_of(lambda: wrong_secret.list_objects(Bucket=bucket)) == (403, "SignatureDoesNotMatch")
    unknown = make_s3_client(server.endpoint, "NOSUCHKEY", ROOT_PASSWORD, signature_version="s3")
    assert error_of(lambda: unknown.list_objects(Bucket=bucket)) == (403, "InvalidAccessKeyId")
    for date, code in (("Tue, 07 Jul 2010 21:53:04 GMT", "RequestTimeTooSkewed"), ("Bad Date", "AccessDenied")):
        client = with_header(make_s3_client(server.endpoint, signature_version="s3"), "PutObject", "x-amz-date", date)
        assert error_of(lambda c=client: c.put_object(Bucket=bucket, Key="k", Body=b"x")) == (403, code)
    client = with_header(make_s3_client(server.endpoint, signature_version="s3"), "PutObject", "Content-MD5", "AWS HAHAHA")
    assert error_of(lambda: client.put_object(Bucket=bucket, Key="k", Body=b"bar")) == (400, "InvalidDigest")
    for authorization in ("AWS HAHAHA", f"AWS {ROOT_USER}:"):
        response = requests.put(f"{server.endpoint}/{bucket}/k", data=b"x", timeout=10,
                                headers={"Authorization": authorization})
        assert (response.status_code, ET.fromstring(response.content).findtext("Code")) == (400, "InvalidArgument")
    assert "k" not in [o["Key"] for o in make_s3_client(server.endpoint).list_objects_v2(Bucket=bucket).get("Contents", [])]


def test_policies_hold_for_sigv2_callers(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="data.txt", Body=b"data")
    reader = make_s3_client(server.endpoint, *make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": [f"arn:aws:s3:::{bucket}/*"]}]}),
        signature_version="s3")
    assert reader.get_object(Bucket=bucket, Key="data.txt")["Body"].read() == b"data"
    assert error_of(lambda: reader.put_object(Bucket=bucket, Key="data.txt", Body=b"x")) == (403, "AccessDenied")
    assert error_of(lambda: reader.list_objects(Bucket=bucket)) == (403, "AccessDenied")
