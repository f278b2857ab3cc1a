"""POST Object: browser and HTML-form uploads to ``POST /BUCKET``, against a real server.

SigV4 forms are made by boto3's ``generate_presigned_post``, SigV2 forms signed by hand as ceph's
s3-tests sign them; ``requests`` posts them as a browser would (multipart/form-data, the file last).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import os
import socket
import time
import uuid
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from botocore.exceptions import ClientError
from hypothesis import given, settings
from hypothesis import strategies as st
from minio import Minio
from minio.datatypes import PostPolicy as MinioPostPolicy
from urllib3 import encode_multipart_formdata

from aistor_lab.s3.errors import S3Error
from aistor_lab.s3.form_reader import FormReader
from aistor_lab.s3.post_policy import PostPolicy

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call, make_s3_client, make_user, service_with


def expires_in(seconds: int) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def encoded(document: dict) -> str:
    return base64.b64encode(json.dumps(document).encode()).decode()


def v2_form(bucket: str, conditions: list, fields: dict, *, access_key: str = ROOT_USER,
            secret: str = ROOT_PASSWORD, expiration: str | None = None) -> dict:
    """The fields of a SigV2-signed form, its policy allowing ``bucket`` and ``conditions``."""
    policy = encoded({"expiration": expiration or expires_in(600), "conditions": [{"bucket": bucket}, *conditions]})
    signature = base64.b64encode(hmac.new(secret.encode(), policy.encode(), hashlib.sha1).digest()).decode()
    return {**fields, "AWSAccessKeyId": access_key, "policy": policy, "signature": signature}


def post(endpoint: str, bucket: str, fields: dict, content: bytes = b"bar", filename: str = "upload.txt",
         **kwargs) -> requests.Response:
    """The form as a browser posts it: its fields, then the file."""
    parts = [(name, (None, value)) for name, value in fields.items()] + [("file", (filename, content))]
    return requests.post(f"{endpoint}/{bucket}", files=parts, timeout=60, **kwargs)


def s3_error(response: requests.Response) -> tuple[int, str, str]:
    root = ET.fromstring(response.content)
    return response.status_code, root.findtext("Code"), root.findtext("Message")


def exists(s3, bucket: str, key: str) -> bool:
    try:
        s3.head_object(Bucket=bucket, Key=key)
    except ClientError:
        return False
    return True


SIMPLE = [["starts-with", "$key", "foo"], {"acl": "private"}, ["starts-with", "$Content-Type", "text/plain"],
          ["content-length-range", 0, 1024]]
SIMPLE_FIELDS = {"key": "foo.txt", "acl": "private", "Content-Type": "text/plain"}


# -- SigV4 forms, as boto3 makes them ---------------------------------------------------------------
def test_sigv4_form_of_boto3_uploads_with_filename_metadata_and_headers(server, bucket):
    s3v4 = make_s3_client(server.endpoint, signature_version="s3v4")
    fields = {"Content-Type": "text/csv", "x-amz-meta-owner": "ann", "Cache-Control": "max-age=60"}
    form = s3v4.generate_presigned_post(
        bucket, "uploads/${filename}", Fields=fields,
        Conditions=[{"Content-Type": "text/csv"}, {"x-amz-meta-owner": "ann"}, {"Cache-Control": "max-age=60"},
                    ["content-length-range", 1, 1024]],
        ExpiresIn=600)
    assert form["fields"]["x-amz-algorithm"] == "AWS4-HMAC-SHA256"
    response = requests.post(form["url"], data=form["fields"], files={"file": ("data.csv", b"a,b\n1,2\n")},
                             timeout=60)
    assert response.status_code == 204, response.content
    assert response.headers["Location"] == f"{server.endpoint}/{bucket}/uploads/data.csv"
    got = s3v4.get_object(Bucket=bucket, Key="uploads/data.csv")
    assert got["Body"].read() == b"a,b\n1,2\n"
    assert (got["ContentType"], got["Metadata"], got["CacheControl"]) == ("text/csv", {"owner": "ann"}, "max-age=60")
    assert response.headers["ETag"] == got["ETag"]


def test_the_minio_sdk_post_policy_uploads(server, s3, bucket):
    client = Minio(server.endpoint.removeprefix("http://"), ROOT_USER, ROOT_PASSWORD, secure=False,
                   region="us-east-1")
    policy = MinioPostPolicy(bucket, datetime.now(UTC) + timedelta(minutes=10))
    policy.add_starts_with_condition("key", "notebooks/")
    policy.add_content_length_range_condition(1, 1024)
    form = client.presigned_post_policy(policy)
    response = requests.post(f"{server.endpoint}/{bucket}", data={**form, "key": "notebooks/a.ipynb"},
                             files={"file": ("a.ipynb", b"{}")}, timeout=60)
    assert response.status_code == 204, response.content
    assert s3.get_object(Bucket=bucket, Key="notebooks/a.ipynb")["Body"].read() == b"{}"
    refused = requests.post(f"{server.endpoint}/{bucket}", data={**form, "key": "elsewhere/a.ipynb"},
                            files={"file": ("a.ipynb", b"{}")}, timeout=60)
    assert s3_error(refused)[:2] == (403, "AccessDenied")


def test_large_file_round_trips(server, s3, bucket):
    s3v4 = make_s3_client(server.endpoint, signature_version="s3v4")
    content = os.urandom(20 * 1024 * 1024)
    form = s3v4.generate_presigned_post(bucket, "big.bin", Conditions=[["content-length-range", 0, 64 << 20]])
    response = requests.post(form["url"], data=form["fields"], files={"file": ("big.bin", content)}, timeout=120)
    assert response.status_code == 204, response.content
    assert hashlib.md5(s3.get_object(Bucket=bucket, Key="big.bin")["Body"].read()).digest() == \
        hashlib.md5(content).digest()
    assert response.headers["ETag"] == f'"{hashlib.md5(content).hexdigest()}"'


def test_sigv4_form_with_a_wrong_signature_or_credential_is_refused(server, s3, bucket):
    s3v4 = make_s3_client(server.endpoint, signature_version="s3v4")
    form = s3v4.generate_presigned_post(bucket, "k.txt")
    bad_signature = {**form["fields"], "x-amz-signature": "0" * 64}
    assert s3_error(requests.post(form["url"], data=bad_signature, files={"file": b"x"}, timeout=30))[:2] == \
        (403, "SignatureDoesNotMatch")
    stranger = make_s3_client(server.endpoint, "nobody-here", "secret-of-nobody", signature_version="s3v4")
    unknown = stranger.generate_presigned_post(bucket, "k.txt")
    assert s3_error(requests.post(form["url"], data=unknown["fields"], files={"file": b"x"}, timeout=30))[:2] == \
        (403, "InvalidAccessKeyId")
    malformed = {**form["fields"], "x-amz-credential": "just-a-key"}
    assert s3_error(requests.post(form["url"], data=malformed, files={"file": b"x"}, timeout=30))[:2] == \
        (400, "InvalidArgument")
    assert not exists(s3, bucket, "k.txt")


def test_a_user_needs_put_object_on_the_key(server, s3, bucket):
    """A good signature authenticates; authorization is s3:PutObject on the form's key, as that user."""
    user = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{bucket}/mine/*"}]})
    client = make_s3_client(server.endpoint, *user, signature_version="s3v4")
    for key, status in (("mine/a.txt", 204), ("theirs/a.txt", 403)):
        form = client.generate_presigned_post(bucket, key)
        response = requests.post(form["url"], data=form["fields"], files={"file": b"x"}, timeout=30)
        assert response.status_code == status, response.content
    assert exists(s3, bucket, "mine/a.txt") and not exists(s3, bucket, "theirs/a.txt")
    assert s3_error(response)[1] == "AccessDenied"


def test_a_session_form_carries_its_token_and_keeps_to_its_table(server, s3):
    """A vended session (catalog credentials for one table) signs forms too, within its table."""
    warehouse, schema = f"post-{uuid.uuid4().hex[:8]}", {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "type": "long", "required": True}]}
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] in (200, 201)
    assert catalog_call(server, "POST", f"/v1/{warehouse}/namespaces", {"namespace": ["ns"]})[0] == 200
    assert catalog_call(server, "POST", f"/v1/{warehouse}/namespaces/ns/tables", {"name": "t", "schema": schema}
                        )[0] == 200
    status, loaded = catalog_call(server, "GET", f"/v1/{warehouse}/namespaces/ns/tables/t",
                                  headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
    assert status == 200, loaded
    credential = loaded["storage-credentials"][0]
    config, prefix = credential["config"], credential["prefix"].removeprefix(f"s3://{warehouse}/")
    session = make_s3_client(server.endpoint, config["s3.access-key-id"], config["s3.secret-access-key"],
                             config["s3.session-token"], signature_version="s3v4")
    for key, status in ((f"{prefix}/data/form.bin", 204), ("elsewhere/form.bin", 403)):
        form = session.generate_presigned_post(warehouse, key)
        assert form["fields"]["x-amz-security-token"] == config["s3.session-token"]
        response = requests.post(form["url"], data=form["fields"], files={"file": b"x"}, timeout=30)
        assert response.status_code == status, response.content
    assert s3_error(response)[1] == "AccessDenied"
    assert s3.get_object(Bucket=warehouse, Key=f"{prefix}/data/form.bin")["Body"].read() == b"x"
    form = session.generate_presigned_post(warehouse, f"{prefix}/data/other.bin")
    forged = {**form["fields"], "x-amz-security-token": "not-a-token"}
    assert s3_error(requests.post(form["url"], data=forged, files={"file": b"x"}, timeout=30))[:2] == \
        (400, "InvalidToken")


def test_policy_conditions_on_request_headers_read_the_form_fields(server, s3, bucket):
    """s3:x-amz-server-side-encryption and the like name what a form's fields ask for, as a PUT's headers."""
    user = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{bucket}/*",
         "Condition": {"StringEquals": {"s3:x-amz-server-side-encryption": "AES256"}}}]})
    client = make_s3_client(server.endpoint, *user, signature_version="s3v4")
    sse = {"x-amz-server-side-encryption": "AES256"}
    for key, fields, status in (("plain.txt", {}, 403), ("sealed.txt", sse, 204)):
        form = client.generate_presigned_post(bucket, key, Fields=fields, Conditions=[fields] if fields else None)
        response = requests.post(form["url"], data=form["fields"], files={"file": b"x"}, timeout=30)
        assert response.status_code == status, response.content
    assert s3.head_object(Bucket=bucket, Key="sealed.txt")["ServerSideEncryption"] == "AES256"
    assert not exists(s3, bucket, "plain.txt")


# -- SigV2 forms and the answers ---------------------------------------------------------------------
def test_sigv2_form_answers_204_200_201_as_asked(server, s3, bucket):
    conditions = [*SIMPLE, ["starts-with", "$success_action_status", ""]]
    for status, expected in (("200", 200), ("201", 201), ("404", 204), ("", 204)):
        fields = {**SIMPLE_FIELDS, "success_action_status": status}
        response = post(server.endpoint, bucket, v2_form(bucket, conditions, fields))
        assert response.status_code == expected, response.content
    etag = s3.head_object(Bucket=bucket, Key="foo.txt")["ETag"]
    response = post(server.endpoint, bucket, v2_form(bucket, conditions, {**SIMPLE_FIELDS,
                                                                          "success_action_status": "201"}))
    document = ET.fromstring(response.content)
    assert document.tag == "PostResponse"  # no namespace, as S3 answers it
    assert (document.findtext("Bucket"), document.findtext("Key"), document.findtext("ETag")) == \
        (bucket, "foo.txt", etag)
    assert document.findtext("Location") == f"{server.endpoint}/{bucket}/foo.txt"
    assert s3.get_object(Bucket=bucket, Key="foo.txt")["Body"].read() == b"bar"


def test_success_redirect_is_a_303_with_bucket_key_and_etag(server, s3, bucket):
    target = "https://example.com/done?from=form"
    fields = {**SIMPLE_FIELDS, "success_action_redirect": target}
    form = v2_form(bucket, [*SIMPLE, ["eq", "$success_action_redirect", target]], fields)
    response = post(server.endpoint, bucket, form, allow_redirects=False)
    assert response.status_code == 303, response.content
    location = urlsplit(response.headers["Location"])
    assert (location.scheme, location.netloc, location.path) == ("https", "example.com", "/done")
    etag = s3.head_object(Bucket=bucket, Key="foo.txt")["ETag"]
    assert parse_qs(location.query) == {"from": ["form"], "bucket": [bucket], "key": ["foo.txt"], "etag": [etag]}


def test_field_names_and_condition_names_are_case_insensitive(server, s3, bucket):
    conditions = [["StArTs-WiTh", "$KeY", "foo"], {"AcL": "private"}, ["starts-with", "$CoNtEnT-TyPe", "text/"]]
    form = v2_form(bucket, conditions, {"kEy": "foo-case.txt", "aCl": "private", "content-type": "text/plain"})
    form["pOLICy"] = form.pop("policy")
    response = post(server.endpoint, bucket, form)
    assert response.status_code == 204, response.content
    assert s3.get_object(Bucket=bucket, Key="foo-case.txt")["ContentType"] == "text/plain"


def test_filename_escapes_ignored_fields_and_fields_after_the_file(server, s3, bucket):
    form = v2_form(bucket, [["starts-with", "$key", r"\$foo"]], {"key": r"\$foo-${filename}",
                                                                  "x-ignore-note": "not checked"})
    parts = [(name, (None, value)) for name, value in form.items()]
    parts += [("file", ("a.txt", b"first")), ("x-amz-meta-late", (None, "ignored")), ("other", (None, "x"))]
    response = requests.post(f"{server.endpoint}/{bucket}", files=parts, timeout=30)
    assert response.status_code == 204, response.content
    got = s3.get_object(Bucket=bucket, Key=r"\$foo-a.txt")
    assert (got["Body"].read(), got["Metadata"]) == (b"first", {})


def test_tagging_checksum_and_encryption_fields(server, s3, bucket):
    content = b"x" * 2048
    checksum = base64.b64encode(hashlib.sha256(content).digest()).decode()
    tagging = "<Tagging><TagSet><Tag><Key>team</Key><Value>data</Value></Tag></TagSet></Tagging>"
    conditions = [{"key": "t.bin"}, {"tagging": tagging}, {"x-amz-server-side-encryption": "AES256"}]
    fields = {"key": "t.bin", "tagging": tagging, "x-amz-server-side-encryption": "AES256",
              "x-amz-checksum-sha256": checksum}
    response = post(server.endpoint, bucket, v2_form(bucket, conditions, fields), content)
    assert response.status_code == 204, response.content
    assert response.headers["x-amz-server-side-encryption"] == "AES256"
    assert s3.get_object_tagging(Bucket=bucket, Key="t.bin")["TagSet"] == [{"Key": "team", "Value": "data"}]
    assert s3.head_object(Bucket=bucket, Key="t.bin")["ServerSideEncryption"] == "AES256"
    wrong = {**fields, "key": "t.bin", "x-amz-checksum-sha256": base64.b64encode(b"\0" * 32).decode()}
    assert s3_error(post(server.endpoint, bucket, v2_form(bucket, conditions, wrong), b"y" * 2048))[:2] == \
        (400, "BadDigest")
    assert s3.get_object(Bucket=bucket, Key="t.bin")["Body"].read() == content


def test_a_page_of_another_origin_reads_the_answer_where_cors_allows_post(server, s3, bucket):
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [
        {"AllowedMethods": ["POST"], "AllowedOrigins": ["https://lab.example"], "ExposeHeaders": ["ETag"]}]})
    form = v2_form(bucket, SIMPLE, SIMPLE_FIELDS)
    response = post(server.endpoint, bucket, form, headers={"Origin": "https://lab.example"})
    assert response.status_code == 204, response.content
    assert response.headers["Access-Control-Allow-Origin"] == "https://lab.example"
    assert "etag" in response.headers["Access-Control-Expose-Headers"].lower()


# -- what the policy refuses --------------------------------------------------------------------------
@pytest.mark.parametrize(("conditions", "fields", "message"), [
    (SIMPLE, {**SIMPLE_FIELDS, "x-amz-meta-foo": "bar"}, "Extra input fields: x-amz-meta-foo"),
    ([*SIMPLE, ["starts-with", "$x-amz-meta-foo", "bar"]], SIMPLE_FIELDS, "Condition failed"),
    ([*SIMPLE, ["eq", "$x-amz-meta-foo", ""]], {**SIMPLE_FIELDS, "x-amz-meta-foo": "barclamp"}, "Condition failed"),
    (SIMPLE, {**SIMPLE_FIELDS, "key": "bar.txt"}, "Condition failed"),
])
def test_fields_the_policy_does_not_allow_are_refused(server, s3, bucket, conditions, fields, message):
    status, code, text = s3_error(post(server.endpoint, bucket, v2_form(bucket, conditions, fields)))
    assert (status, code) == (403, "AccessDenied") and message in text
    assert not exists(s3, bucket, fields["key"])


def test_expired_policy_wrong_bucket_and_a_missing_bucket_condition_are_refused(server, s3, bucket):
    expired = v2_form(bucket, SIMPLE, SIMPLE_FIELDS, expiration=expires_in(-60))
    assert s3_error(post(server.endpoint, bucket, expired))[:2] == (403, "AccessDenied")
    other = f"other-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=other)
    assert s3_error(post(server.endpoint, bucket, v2_form(other, SIMPLE, SIMPLE_FIELDS)))[:2] == \
        (403, "AccessDenied")
    policy = encoded({"expiration": expires_in(600), "conditions": SIMPLE})
    signature = base64.b64encode(hmac.new(ROOT_PASSWORD.encode(), policy.encode(), hashlib.sha1).digest()).decode()
    form = {**SIMPLE_FIELDS, "AWSAccessKeyId": ROOT_USER, "policy": policy, "signature": signature}
    status, code, text = s3_error(post(server.endpoint, bucket, form))
    assert (status, code) == (403, "AccessDenied") and "Extra input fields: bucket" in text
    assert not exists(s3, bucket, "foo.txt") and not exists(s3, other, "foo.txt")


@pytest.mark.parametrize("document", [
    {"conditions": [["starts-with", "$key", ""]]},
    {"expiration": "EXPIRES"},
    {"EXPIRATION": "2099-01-01T00:00:00Z", "conditions": []},
    {"expiration": "2099-01-01T00:00:00Z", "CONDITIONS": []},
    {"expiration": str(datetime.now(UTC) + timedelta(hours=1)), "conditions": []},
    {"expiration": "2099-01-01T00:00:00Z", "conditions": [{}]},
    {"expiration": "2099-01-01T00:00:00Z", "conditions": [["content-length-range", 0]]},
    {"expiration": "2099-01-01T00:00:00Z", "conditions": [["content-length-range", -1, 0]]},
    {"expiration": "2099-01-01T00:00:00Z", "conditions": [["matches", "$key", "x"]]},
    {"expiration": "2099-01-01T00:00:00Z", "conditions": [["eq", "key", "x"]]},
])
def test_malformed_policy_documents_are_400(server, s3, bucket, document):
    policy = encoded(document)
    signature = base64.b64encode(hmac.new(ROOT_PASSWORD.encode(), policy.encode(), hashlib.sha1).digest()).decode()
    form = {"key": "foo.txt", "AWSAccessKeyId": ROOT_USER, "policy": policy, "signature": signature}
    assert s3_error(post(server.endpoint, bucket, form))[:2] == (400, "InvalidPolicyDocument")
    assert not exists(s3, bucket, "foo.txt")


def test_content_length_range_bounds_the_file(server, s3, bucket):
    small = v2_form(bucket, [*SIMPLE[:3], ["content-length-range", 512, 1000]], SIMPLE_FIELDS)
    assert s3_error(post(server.endpoint, bucket, small))[:2] == (400, "EntityTooSmall")
    large = v2_form(bucket, [*SIMPLE[:3], ["content-length-range", 0, 0]], SIMPLE_FIELDS)
    assert s3_error(post(server.endpoint, bucket, large))[:2] == (400, "EntityTooLarge")
    # Refused as it streams: the rest of a large body is never read.
    big = v2_form(bucket, [*SIMPLE[:3], ["content-length-range", 0, 1024]], SIMPLE_FIELDS)
    try:
        response = post(server.endpoint, bucket, big, b"z" * (32 << 20))
        assert s3_error(response)[:2] == (400, "EntityTooLarge")
    except requests.ConnectionError:
        pass  # the connection closed before the client read the answer
    assert not exists(s3, bucket, "foo.txt")
    exact = v2_form(bucket, [*SIMPLE[:3], ["content-length-range", 3, 3]], SIMPLE_FIELDS)
    assert post(server.endpoint, bucket, exact).status_code == 204


@pytest.mark.parametrize(("fields", "code"), [
    ({"AWSAccessKeyId": ROOT_USER, "policy": encoded({"expiration": "2099-01-01T00:00:00Z", "conditions": []}),
      "key": "foo.txt"}, "InvalidArgument"),
    ({"signature": "abc", "key": "foo.txt"}, "InvalidArgument"),
])
def test_incomplete_credentials_are_400(server, s3, bucket, fields, code):
    assert s3_error(post(server.endpoint, bucket, fields))[:2] == (400, code)


def test_bad_signature_and_unknown_key_of_sigv2_forms_are_403(server, bucket):
    form = v2_form(bucket, SIMPLE, SIMPLE_FIELDS, secret="not-the-secret")
    assert s3_error(post(server.endpoint, bucket, form))[:2] == (403, "SignatureDoesNotMatch")
    form = v2_form(bucket, SIMPLE, SIMPLE_FIELDS, access_key="nobody")
    assert s3_error(post(server.endpoint, bucket, form))[:2] == (403, "InvalidAccessKeyId")


# -- malformed forms ----------------------------------------------------------------------------------
def test_a_form_needs_a_key_and_a_file(server, bucket):
    no_key = v2_form(bucket, SIMPLE[1:], {"acl": "private", "Content-Type": "text/plain"})
    status, code, message = s3_error(post(server.endpoint, bucket, no_key))
    assert (status, code) == (400, "InvalidArgument") and "'key'" in message
    fields = v2_form(bucket, SIMPLE, SIMPLE_FIELDS)
    response = requests.post(f"{server.endpoint}/{bucket}", files=[(n, (None, v)) for n, v in fields.items()],
                             timeout=30)
    assert s3_error(response)[:2] == (400, "InvalidArgument")


def test_fields_before_the_file_are_capped(server, bucket):
    form = v2_form(bucket, SIMPLE, {**SIMPLE_FIELDS, "x-ignore-padding": "p" * (70 * 1024)})
    assert s3_error(post(server.endpoint, bucket, form))[:2] == (400, "MaxPostPreDataLengthExceeded")


def test_fields_that_trickle_in_past_the_body_timeout_are_cut_off(tmp_path_factory):
    """Before its fields are in, a form is nobody's: it may not hold a connection longer than a body
    may take, even if it never quite stalls (the file, once authorized, may take as long as it needs)."""
    with service_with(tmp_path_factory, {"AISTOR_BODY_TIMEOUT": "1"}) as service:
        make_s3_client(service.endpoint).create_bucket(Bucket="slow")
        host, port = urlsplit(service.endpoint).hostname, urlsplit(service.endpoint).port
        with socket.create_connection((host, port), timeout=10) as connection:
            connection.sendall(b"POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n"
                               b"Content-Type: multipart/form-data; boundary=b\r\n\r\n"
                               b'--b\r\nContent-Disposition: form-data; name="key"\r\n\r\n')
            cut_off_after = None
            started = time.monotonic()
            while time.monotonic() - started < 5:
                time.sleep(0.25)
                try:
                    connection.sendall(b"k")
                except OSError:
                    cut_off_after = time.monotonic() - started
                    break
            assert cut_off_after is not None and cut_off_after < 4


def test_a_post_that_is_not_a_whole_form_is_malformed(server, bucket):
    url = f"{server.endpoint}/{bucket}"
    response = requests.post(url, data=b"key=foo", headers={"Content-Type": "application/x-www-form-urlencoded"},
                             timeout=30)
    assert s3_error(response)[:2] == (400, "MalformedPOSTRequest")
    body = b"--xyz\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nfoo.txt, unfinished"
    response = requests.post(url, data=body, headers={"Content-Type": "multipart/form-data; boundary=xyz"}, timeout=30)
    assert s3_error(response)[:2] == (400, "MalformedPOSTRequest")


def test_post_to_a_missing_bucket_is_no_such_bucket(server):
    missing = f"missing-{uuid.uuid4().hex[:8]}"
    assert s3_error(post(server.endpoint, missing, v2_form(missing, SIMPLE, SIMPLE_FIELDS)))[:2] == \
        (404, "NoSuchBucket")


# -- anonymous forms ----------------------------------------------------------------------------------
def test_anonymous_form_needs_a_bucket_policy_allowing_anyone_to_put(server, s3, bucket):
    fields = {"key": "anon.txt", "Content-Type": "text/plain"}
    assert s3_error(post(server.endpoint, bucket, fields))[:2] == (403, "AccessDenied")
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": "*", "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{bucket}/anon*"}]}))
    response = post(server.endpoint, bucket, {**fields, "success_action_status": "201"})
    assert response.status_code == 201, response.content
    assert s3.get_object(Bucket=bucket, Key="anon.txt")["Body"].read() == b"bar"
    assert s3_error(post(server.endpoint, bucket, {**fields, "key": "other.txt"}))[:2] == (403, "AccessDenied")


# -- the policy document, as plain Python -------------------------------------------------------------
def test_policy_conditions_unit():
    policy = PostPolicy.parse(encoded({"expiration": "2030-01-01T00:00:00.000Z", "conditions": [
        {"bucket": "b"}, ["starts-with", "$key", "up/"], ["content-length-range", "10", 100],
        ["content-length-range", 0, 50], ["starts-with", "$Content-Type", ""]]}))
    assert policy.length_range == (10, 50)
    now = time.time()
    policy.check({"bucket": "b", "key": "up/x", "content-type": "image/png"}, now)
    policy.check({"bucket": "b", "key": "up/x"}, now)  # a field the form lacks is ""
    with pytest.raises(S3Error, match="Condition failed"):
        policy.check({"bucket": "b", "key": "down/x"}, now)
    with pytest.raises(S3Error, match="expired"):
        policy.check({"bucket": "b", "key": "up/x"}, datetime(2031, 1, 1, tzinfo=UTC).timestamp())
    policy.check({"bucket": "b", "key": "up/x", "x-ignore-a": "1", "x-amz-checksum-crc32": "AAAAAA==",
                  "awsaccesskeyid": "k", "signature": "s", "x-amz-signature": "s", "policy": "p"}, now)
    policy.check_size(9, complete=False)
    with pytest.raises(S3Error, match="smaller"):
        policy.check_size(9, complete=True)
    with pytest.raises(S3Error, match="exceeds"):
        policy.check_size(51, complete=False)
    with pytest.raises(S3Error, match="Invalid JSON"):
        PostPolicy.parse("not base64!")


@settings(max_examples=60, deadline=None)
@given(content=st.binary(max_size=3000), value=st.text(max_size=200), cuts=st.lists(st.integers(0, 4000), max_size=12))
def test_form_reader_gives_the_same_form_however_the_body_is_cut(content, value, cuts):
    """The body arrives in chunks cut anywhere (a boundary or a header split across two): the fields
    and the file's bytes are the same, and what follows the file is ignored."""
    body, content_type = encode_multipart_formdata(
        [("Key", "k/${filename}"), ("x-amz-meta-note", value), ("file", ("a.bin", content)), ("late", "x")])
    reader = FormReader(content_type)
    received = bytearray()
    bounds = sorted({cut for cut in cuts if cut < len(body)} | {0, len(body)})
    for start, end in itertools.pairwise(bounds):
        for piece in reader.feed(body[start:end]):
            received += piece
    reader.finish()
    assert reader.fields == {"key": "k/${filename}", "x-amz-meta-note": value}
    assert (reader.filename, bytes(received), reader.file_done) == ("a.bin", content, True)
