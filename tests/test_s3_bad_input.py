"""Bad requests get the S3 error S3 would give, and change nothing."""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET

import pytest
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from botocore.httpsession import URLLib3Session

from .conftest import ROOT_PASSWORD, ROOT_USER, signed_call


def error_of(response) -> str:
    return ET.fromstring(response.content).findtext("Code")


@pytest.mark.parametrize("body", [b"<not xml", b"<Delete></Delete>", b"<Wrong><Object><Key>k</Key></Object></Wrong>"])
def test_malformed_delete_objects(server, s3, bucket, body):
    s3.put_object(Bucket=bucket, Key="k", Body=b"kept")
    response = signed_call(server, "POST", f"/{bucket}?delete", body)
    assert response.status_code == 400 and error_of(response) == "MalformedXML"
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"kept"


def test_malformed_complete_multipart(server, s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="m")["UploadId"]
    s3.upload_part(Bucket=bucket, Key="m", UploadId=upload, PartNumber=1, Body=b"part")
    for body in (b"garbage", b"<CompleteMultipartUpload><Part><PartNumber>x</PartNumber></Part></CompleteMultipartUpload>"):
        response = signed_call(server, "POST", f"/{bucket}/m?uploadId={upload}", body)
        assert response.status_code == 400 and error_of(response) == "MalformedXML"
    assert len(s3.list_parts(Bucket=bucket, Key="m", UploadId=upload)["Parts"]) == 1
    with pytest.raises(ClientError):
        s3.head_object(Bucket=bucket, Key="m")


def test_malformed_create_bucket_configuration(server, s3):
    response = signed_call(server, "PUT", "/bad-config-bucket", b"<CreateBucketConfiguration><oops")
    assert response.status_code == 400 and error_of(response) == "MalformedXML"
    assert "bad-config-bucket" not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_oversized_upload_is_refused_before_the_body(server, s3, bucket):
    too_big = str(5 * 1024**3 + 1)
    for path in (f"/{bucket}/huge", f"/{bucket}/huge?partNumber=1&uploadId=none"):
        response = signed_call(server, "PUT", path, b"", headers={
            "Content-Length": too_big, "x-amz-content-sha256": "UNSIGNED-PAYLOAD"})
        assert response.status_code == 400 and error_of(response) == "EntityTooLarge"
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


def test_bad_part_checksum_is_refused(s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="p", ChecksumAlgorithm="SHA256")["UploadId"]
    with pytest.raises(ClientError) as excinfo:
        s3.upload_part(Bucket=bucket, Key="p", UploadId=upload, PartNumber=1, Body=b"data",
                       ChecksumSHA256="n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=")
    assert excinfo.value.response["Error"]["Code"] == "BadDigest"
    assert s3.list_parts(Bucket=bucket, Key="p", UploadId=upload).get("Parts", []) == []


def test_body_that_does_not_match_its_signed_hash(server, s3, bucket):
    response = signed_call(server, "PUT", f"/{bucket}/tampered", b"original")
    assert response.status_code == 200
    request = AWSRequest(method="PUT", url=f"{server.endpoint}/{bucket}/tampered", data=b"signed body")
    S3SigV4Auth(Credentials(ROOT_USER, ROOT_PASSWORD), "s3", "us-east-1").add_auth(request)
    prepared = request.prepare()
    prepared.body = b"other body!"
    response = URLLib3Session().send(prepared)
    assert response.status_code == 400 and error_of(response) == "XAmzContentSHA256Mismatch"
    assert s3.get_object(Bucket=bucket, Key="tampered")["Body"].read() == b"original"


def test_unparsable_range_serves_the_whole_object(s3, bucket):
    s3.put_object(Bucket=bucket, Key="r", Body=b"0123456789")
    assert s3.get_object(Bucket=bucket, Key="r", Range="bytes=5-2")["Body"].read() == b"0123456789"
    assert s3.get_object(Bucket=bucket, Key="r", Range="items=1-2")["Body"].read() == b"0123456789"


def test_unknown_bucket_and_upload(s3, bucket):
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket="no-such-bucket-here", Key="k", Body=b"x")
    assert excinfo.value.response["Error"]["Code"] == "NoSuchBucket"
    with pytest.raises(ClientError) as excinfo:
        s3.upload_part(Bucket=bucket, Key="k", UploadId="nope", PartNumber=1, Body=b"x")
    assert excinfo.value.response["Error"]["Code"] == "NoSuchUpload"
    with pytest.raises(ClientError) as excinfo:
        s3.get_bucket_website(Bucket=bucket)
    assert excinfo.value.response["Error"]["Code"] == "NotImplemented"


@pytest.mark.parametrize("method,query", [
    ("POST", "versioning"), ("PUT", "versions"), ("POST", "tagging"), ("PUT", "website"), ("GET", "delete"),
    ("POST", "uploads"),
])
def test_bucket_subresource_not_implemented_for_its_method(server, s3, bucket, method, query):
    """A sub-resource is never taken as the plain operation: PUT ?versions is not CreateBucket."""
    response = signed_call(server, method, f"/{bucket}?{query}", body=b"<x/>")
    assert response.status_code == 501
    assert ET.fromstring(response.content).findtext("Code") == "NotImplemented"


@pytest.mark.parametrize("method,query", [("POST", "tagging"), ("POST", "select&select-type=2"), ("GET", "uploads")])
def test_object_subresource_not_implemented_for_its_method(server, s3, bucket, method, query):
    s3.put_object(Bucket=bucket, Key="o", Body=b"kept")
    response = signed_call(server, method, f"/{bucket}/o?{query}", body=b"<x/>")
    assert response.status_code == 501
    assert ET.fromstring(response.content).findtext("Code") == "NotImplemented"
    assert s3.get_object(Bucket=bucket, Key="o")["Body"].read() == b"kept"


@pytest.mark.parametrize("options,code", [
    ({"StorageClass": "GLACIER"}, "InvalidStorageClass"),
    ({"ServerSideEncryption": "aws:kms:dsse"}, "NotImplemented"),
    ({"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": "k"}, "KMS.NotFoundException"),
    ({"SSECustomerAlgorithm": "AES256", "SSECustomerKey": "k" * 32}, "InvalidRequest"),  # over plain HTTP
    ({"ObjectLockMode": "GOVERNANCE", "ObjectLockRetainUntilDate": "2030-01-01T00:00:00Z"}, "InvalidRequest"),
    ({"ObjectLockLegalHoldStatus": "ON"}, "InvalidRequest"),
    ({"WebsiteRedirectLocation": "/elsewhere"}, "NotImplemented"),
    ({"ACL": "world-writable"}, "InvalidArgument"),  # no such canned ACL
    # Grants that amount to no canned ACL.
    ({"GrantReadACP": 'uri="http://acs.amazonaws.com/groups/global/AllUsers"'}, "NotImplemented"),
    ({"GrantRead": 'id="no-such-user"'}, "InvalidArgument"),
])
def test_write_headers_without_their_semantics_are_refused(s3, bucket, options, code):
    """Never written as though the header had been honoured: the write is refused, nothing stored."""
    calls = [
        lambda: s3.put_object(Bucket=bucket, Key="h", Body=b"data", **options),
        lambda: s3.copy_object(Bucket=bucket, Key="h", CopySource={"Bucket": bucket, "Key": "src"}, **options),
        lambda: s3.create_multipart_upload(Bucket=bucket, Key="h", **options),
    ]
    s3.put_object(Bucket=bucket, Key="src", Body=b"source")
    for call in calls:
        with pytest.raises(ClientError) as excinfo:
            call()
        assert excinfo.value.response["Error"]["Code"] == code
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket, Prefix="h")
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_write_headers_with_the_semantics_this_server_has_are_accepted(s3, bucket):
    s3.put_object(Bucket=bucket, Key="ok", Body=b"data", StorageClass="STANDARD", ACL="private")
    s3.put_object(Bucket=bucket, Key="ok", Body=b"data", ACL="bucket-owner-full-control")
    s3.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "ok"}, TaggingDirective="COPY")
    assert s3.get_object(Bucket=bucket, Key="copy")["Body"].read() == b"data"


@pytest.mark.parametrize("raw_key", ["%FF%FE", "%C2%AE%C2%8A-"])
def test_a_key_that_is_not_utf8_or_holds_a_c1_control_is_an_invalid_uri(server, s3, bucket, raw_key):
    for method, body in (("GET", b""), ("PUT", b"data")):
        response = signed_call(server, method, f"/{bucket}/{raw_key}", body)
        assert response.status_code == 400 and error_of(response) == "InvalidURI"
        assert ET.fromstring(response.content).findtext("Message") == "Couldn't parse the specified URI."
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


def test_a_refused_request_that_expects_100_continue_is_answered_before_its_body(server, bucket):
    """The error comes at once: no ``100 Continue`` invites a body the answer will refuse."""
    host, port = server.endpoint.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"PUT /{bucket}/anonymous HTTP/1.1\r\nHost: {host}\r\nContent-Length: 123\r\n"
                     "Expect: 100-continue\r\n\r\n".encode())  # fmt: skip
        answer = sock.recv(65536).decode("latin-1")
    assert answer.startswith("HTTP/1.1 403 ") and "<Code>AccessDenied</Code>" in answer
    assert "\r\nconnection: close\r\n" in answer.lower()  # its body unread, the connection is not reused


def test_refused_uploads_in_a_row_each_get_their_error(s3):
    """boto3 sends PUT bodies after ``Expect: 100-continue``; each refusal closes its connection, which
    the answer announces, so the next request goes on a new one instead of a closing one."""
    for number in range(20):
        with pytest.raises(ClientError) as excinfo:
            s3.put_object(Bucket="no-such-bucket-here", Key=f"k{number}", Body=b"{}")
        assert excinfo.value.response["Error"]["Code"] == "NoSuchBucket"
