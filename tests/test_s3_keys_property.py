"""Object keys of arbitrary code points and arbitrary bytes, through boto3 and through raw signed
requests: either the object round-trips (PUT, GET, HEAD, listed exactly once with and without
``encoding-type=url``, DELETE) or the write is refused with a clean 4xx S3 error and nothing is
stored; every listing parses as XML.

What is refused (aistor_lab/s3/names.py): bytes that are not UTF-8, keys over 1024 bytes, keys
with a character XML 1.0 cannot carry (C0 controls but tab, LF and CR; U+FFFE, U+FFFF), and, as S3
refuses them, paths with a C1 control character (U+0080-U+009F). A path that is not UTF-8 or holds a
C1 control is InvalidURI; the other refusals are InvalidArgument (KeyTooLongError for the length).
"""

from __future__ import annotations

import http.client
import uuid
import xml.etree.ElementTree as ET
from urllib.parse import quote, quote_from_bytes, unquote, urlsplit

import pytest
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from .conftest import ROOT_PASSWORD, ROOT_USER

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# Characters that tend to break things, mixed into arbitrary text.
NASTY = "a/\r\n\t\x00\x01\x1f\x7f .%+?#&=;<>\"'\\\ufffe\uffff\ufffd\u0085\u2028€😀"
keys = st.one_of(
    st.text(min_size=1, max_size=40),
    st.text(alphabet=st.sampled_from(NASTY), min_size=1, max_size=12),
    st.integers(1020, 1030).map(lambda n: "k" * n),
)
key_bytes = st.one_of(
    st.binary(min_size=1, max_size=24),
    keys.map(lambda key: key.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"\xff", b"a\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"ok\x80/x"]),
)


def expected_refusal(key: str) -> str | None:
    """The error code a write of ``key`` must get, None when it must be stored."""
    if any(0xD800 <= ord(c) <= 0xDFFF for c in key):
        return "InvalidArgument"  # a lone surrogate: not even UTF-8 (boto3 cannot send it)
    if any(0x80 <= ord(c) <= 0x9F for c in key):
        return "InvalidURI"
    if any((ord(c) < 0x20 and c not in "\t\n\r") or c in "\ufffe\uffff" for c in key):
        return "InvalidArgument"
    if len(key.encode()) > 1024:
        return "KeyTooLongError"
    return None


class RawClient:
    """SigV4-signed requests (botocore's S3 signer) sent with http.client, the path byte for byte."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.netloc = urlsplit(endpoint).netloc

    def send(self, method: str, target: str, body: bytes = b"", headers: dict | None = None):
        request = AWSRequest(method=method, url=self.endpoint + target, data=body, headers=headers or {})
        S3SigV4Auth(Credentials(ROOT_USER, ROOT_PASSWORD), "s3", "us-east-1").add_auth(request)
        connection = http.client.HTTPConnection(self.netloc, timeout=30)
        try:
            connection.request(method, target, body=body, headers=dict(request.headers.items()))
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def listed(self, bucket: str, prefix: str, url_encoded: bool, v2: bool = True) -> list[str]:
        """Keys of a listing; the document must parse, and url-encoded keys are decoded."""
        query = ("list-type=2&" if v2 else "") + "prefix=" + quote(prefix, safe="")
        status, body = self.send("GET", f"/{bucket}?{query}" + ("&encoding-type=url" if url_encoded else ""))
        assert status == 200, body
        root = ET.fromstring(body)
        found = [element.text or "" for element in root.iter() if element.tag.endswith("}Key")]
        return [unquote(key) for key in found] if url_encoded else found


def error_code(body: bytes) -> str:
    return ET.fromstring(body).findtext("Code")


@pytest.fixture(scope="module")
def keys_bucket(s3) -> str:
    name = f"keys-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


@pytest.fixture(scope="module")
def raw(server) -> RawClient:
    return RawClient(server.endpoint)


def assert_stored_once(raw: RawClient, bucket: str, key: str) -> None:
    for url_encoded in (False, True):
        assert raw.listed(bucket, key, url_encoded) == [key]
    assert raw.listed(bucket, key, False, v2=False) == [key]


def assert_bucket_empty(raw: RawClient, bucket: str) -> None:
    assert raw.listed(bucket, "", False) == [] and raw.listed(bucket, "", True) == []


@SETTINGS
@given(key=keys)
@example(key="line\rbreak\nand\ttab")
@example(key="nul\x00byte")
@example(key="../up/./x//y")
def test_keys_of_any_code_points_through_boto3(s3, raw, keys_bucket, key):
    refusal = expected_refusal(key)
    body = key.encode("utf-8", "surrogatepass")[:64] or b"-"
    try:
        s3.put_object(Bucket=keys_bucket, Key=key, Body=body)
    except ClientError as refused:
        status = refused.response["ResponseMetadata"]["HTTPStatusCode"]
        assert (status, refused.response["Error"]["Code"]) == (400, refusal), key
        assert_bucket_empty(raw, keys_bucket)
        return
    except UnicodeEncodeError:  # a lone surrogate: botocore cannot even send it
        assert refusal == "InvalidArgument"
        return
    assert refusal is None, key
    assert s3.get_object(Bucket=keys_bucket, Key=key)["Body"].read() == body
    assert s3.head_object(Bucket=keys_bucket, Key=key)["ContentLength"] == len(body)
    listed = s3.list_objects_v2(Bucket=keys_bucket, Prefix=key)  # boto3 asks for encoding-type=url
    assert [entry["Key"] for entry in listed["Contents"]] == [key]
    assert_stored_once(raw, keys_bucket, key)
    s3.delete_object(Bucket=keys_bucket, Key=key)
    assert_bucket_empty(raw, keys_bucket)


@SETTINGS
@given(data=key_bytes)
@example(data=b"caf\xc3\xa9")
@example(data=b"caf\xe9")
def test_keys_of_any_bytes_through_raw_signed_requests(raw, keys_bucket, data):
    path = f"/{keys_bucket}/" + quote_from_bytes(data, safe="")
    try:
        key = data.decode("utf-8")
    except UnicodeDecodeError:
        key, refusal = None, "InvalidURI"
    else:
        refusal = expected_refusal(key)
    status, body = raw.send("PUT", path, b"payload")
    if refusal is not None:
        assert (status, error_code(body)) == (400, refusal), data
        assert raw.send("GET", path)[0] in (400, 404)
        assert_bucket_empty(raw, keys_bucket)
        return
    assert status == 200, (data, body)
    assert raw.send("GET", path) == (200, b"payload")
    assert raw.send("HEAD", path)[0] == 200
    assert_stored_once(raw, keys_bucket, key)
    assert raw.send("DELETE", path)[0] == 204
    assert_bucket_empty(raw, keys_bucket)


@pytest.mark.parametrize("method,target,body,headers,code", [
    ("GET", "/{bucket}?list-type=2&prefix=%FF", b"", {}, "InvalidArgument"),
    ("GET", "/{bucket}?list-type=2&start-after=a%C3", b"", {}, "InvalidArgument"),
    ("GET", "/{bucket}?marker=%ED%A0%80", b"", {}, "InvalidArgument"),
    ("GET", "/{bucket}?list-type=2&continuation-token=_w==", b"", {}, "InvalidArgument"),
    ("GET", "/{bucket}?uploads&prefix=%C0%AF", b"", {}, "InvalidArgument"),
    ("GET", "/{bucket}/%FF", b"", {}, "InvalidURI"),
    ("POST", "/{bucket}/a%FFb?uploads", b"", {}, "InvalidURI"),
    ("PUT", "/{bucket}/copy", b"", {"x-amz-copy-source": "{bucket}/%FF"}, "InvalidArgument"),
    ("POST", "/{bucket}?delete", b"<Delete><Object><Key>\xff</Key></Object></Delete>", {}, "InvalidArgument"),
])
def test_invalid_utf8_anywhere_a_key_arrives_is_refused(raw, keys_bucket, method, target, body, headers, code):
    """In the path S3 cannot parse the URI (InvalidURI); elsewhere the value is an invalid argument."""
    headers = {name: value.format(bucket=keys_bucket) for name, value in headers.items()}
    status, answer = raw.send(method, target.format(bucket=keys_bucket), body, headers)
    assert (status, error_code(answer)) == (400, code), answer
    assert_bucket_empty(raw, keys_bucket)


def test_an_echoed_value_xml_cannot_carry_is_refused_not_sent_broken(raw, keys_bucket):
    # The listing would echo the marker; a NUL in it cannot be written in XML, even as a reference.
    status, answer = raw.send("GET", f"/{keys_bucket}?marker=%00")
    assert (status, error_code(answer)) == (400, "InvalidArgument")
    status, answer = raw.send("GET", f"/{keys_bucket}?marker=%00&encoding-type=url")
    assert status == 200 and ET.fromstring(answer).findtext("{*}Marker") == "%00"
