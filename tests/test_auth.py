"""Request authentication against what real signers produce.

Requests are signed by botocore (SigV4Auth, S3SigV4Auth, S3SigV4QueryAuth, HmacV1Auth,
HmacV1QueryAuth and boto3's generate_presigned_url), by awscrt's signer, and sent on the wire by boto3 and awscrt to a
small tornado server that runs nothing but this package. aws-chunked bodies come from botocore's
own encoder, from the AWS documentation's worked examples, and from the documented algorithm.
"""

from __future__ import annotations

import asyncio
import base64
import calendar
import datetime
import hashlib
import hmac
import ipaddress
import json
import os
import ssl
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlencode, urlsplit

import awscrt.auth
import awscrt.checksums
import awscrt.http
import boto3
import botocore.auth
import pytest
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from botocore.httpchecksum import apply_request_checksum
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from tornado.httpserver import HTTPServer
from tornado.httputil import HTTPHeaders
from tornado.ioloop import IOLoop
from tornado.netutil import bind_sockets
from tornado.web import Application, RequestHandler, stream_request_body

from aistor_lab.auth import AuthError, AuthResult, body_decoder, verify_request
from aistor_lab.auth.signing import signing_key

ACCESS_KEY = "AKIDAUTHTEST"
SECRET_KEY = "s3cr3t/with+signs=="
OTHER_KEY = "AKIDSECOND"
OTHER_SECRET = "another secret"
SECRETS = {ACCESS_KEY: SECRET_KEY, OTHER_KEY: OTHER_SECRET}
CREDENTIALS = Credentials(ACCESS_KEY, SECRET_KEY)
ENDPOINT = "http://127.0.0.1:9000"  # only a name inside signatures: nothing connects to it
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()

KEYS = ["plain.txt", "with space/and+plus", "ünïcödé/ключ.bin", "ctl\x1fchar", "tilde~star*(paren)!'"]
PIECE_SIZES = [1, 7, 65537]


# -- turning a botocore request into what the server sees -----------------------------------------
@dataclass
class Wire:
    method: str
    path: str
    query: str
    headers: HTTPHeaders
    body: bytes = b""

    def verify(self, service: str = "s3", **kwargs) -> AuthResult:
        return verify_request(
            self.method, self.path, self.query, self.headers, SECRETS.get, service=service, **kwargs
        )


def to_wire(request: AWSRequest) -> Wire:
    prepared = request.prepare()
    url = urlsplit(prepared.url)
    headers = HTTPHeaders()
    headers["Host"] = url.netloc  # what urllib3 sends; botocore signs the same value
    for name, value in prepared.headers.items():
        headers.add(name, value.decode() if isinstance(value, bytes) else value)
    body = prepared.body
    if hasattr(body, "read"):
        body = body.read()
    return Wire(prepared.method, url.path, url.query, headers, body or b"")


def url_to_wire(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> Wire:
    parts = urlsplit(url)
    wire_headers = HTTPHeaders({"Host": parts.netloc, **(headers or {})})
    return Wire(method, parts.path, parts.query, wire_headers)


def s3_path(bucket: str, key: str) -> str:
    return f"/{bucket}/{quote(key.encode(), safe='/~')}"  # as botocore builds S3 URLs


def sign(signer, method: str, url: str, body: bytes = b"", headers: dict | None = None, params=None) -> Wire:
    request = AWSRequest(method=method, url=url, data=body, headers=headers or {}, params=params or {})
    signer.add_auth(request)
    return to_wire(request)


def decode_in_pieces(auth: AuthResult, headers, wire_body: bytes, piece: int) -> tuple[bytes, dict]:
    decoder = body_decoder(auth, headers)
    out = bytearray()
    for start in range(0, len(wire_body), piece):
        out += decoder.feed(wire_body[start : start + piece])
    return bytes(out), decoder.finish()


def expect_error(code: str, status: int, call, *args, **kwargs) -> AuthError:
    with pytest.raises(AuthError) as caught:
        call(*args, **kwargs)
    assert (caught.value.code, caught.value.status) == (code, status), caught.value.message
    return caught.value


def crc32_b64(data: bytes) -> str:
    return base64.b64encode(awscrt.checksums.crc32(data).to_bytes(4, "big")).decode()


def crc32c_b64(data: bytes) -> str:
    return base64.b64encode(awscrt.checksums.crc32c(data).to_bytes(4, "big")).decode()


def s3_client(endpoint: str, **config) -> boto3.client:
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}, **config),
    )


# -- SigV4 header auth ------------------------------------------------------------------------------
@pytest.mark.parametrize("key", KEYS)
def test_s3_header_signature_with_body(key):
    body = os.urandom(1000)
    wire = sign(
        botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1"), "PUT", ENDPOINT + s3_path("b", key), body
    )
    auth = wire.verify()
    assert (auth.access_key, auth.kind, auth.region, auth.service) == (
        ACCESS_KEY,
        "header-v4",
        "us-east-1",
        "s3",
    )
    assert auth.payload == hashlib.sha256(body).hexdigest()
    assert auth.amz_date.startswith(auth.date) and auth.scope == f"{auth.date}/us-east-1/s3/aws4_request"
    assert auth.signing_key == signing_key(SECRET_KEY, auth.date, "us-east-1", "s3")

    assert decode_in_pieces(auth, wire.headers, body, 7) == (body, {})
    decoder = body_decoder(auth, wire.headers)
    decoder.feed(body[:-1] + bytes([body[-1] ^ 1]))  # the last byte, changed for sure
    expect_error("XAmzContentSHA256Mismatch", 400, decoder.finish)


def test_s3_query_string_is_canonicalized():
    params = {
        "list-type": "2",
        "prefix": "a b/ü+%",
        "delimiter": "/",
        "encoding-type": "url",
        "start-after": "",
        "max-keys": "10",
    }
    wire = sign(
        botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "eu-west-3"), "GET", ENDPOINT + "/b", params=params
    )
    auth = wire.verify()
    assert auth.region == "eu-west-3" and auth.payload == EMPTY_SHA256

    # Sub-resources without a value ("?uploads") and a query in another order sign the same way.
    wire = sign(botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1"), "POST", ENDPOINT + "/b/k?uploads")
    assert wire.query == "uploads"
    wire.verify()
    wire = sign(botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1"), "GET", ENDPOINT + "/b?z=1&a=&a=0")
    wire.verify()


def test_unsigned_payload_passes_the_body_through():
    signer = botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1")
    request = AWSRequest(method="PUT", url="https://s3.example" + s3_path("b", "k"), data=b"payload")
    request.context["client_config"] = Config(s3={"payload_signing_enabled": False})
    signer.add_auth(request)
    wire = to_wire(request)
    auth = wire.verify()
    assert auth.payload == "UNSIGNED-PAYLOAD"
    assert decode_in_pieces(auth, wire.headers, b"anything at all", 4) == (b"anything at all", {})


def test_signature_with_date_header_instead_of_x_amz_date():
    signer = botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1")
    wire = sign(signer, "GET", ENDPOINT + "/b/k", headers={"Date": "placeholder, replaced by the signer"})
    assert "x-amz-date" not in wire.headers and "Date" in wire.headers
    assert wire.verify().kind == "header-v4"


def test_non_s3_service_double_encodes_and_signs_the_body_hash():
    """botocore's SigV4Auth, as PyIceberg uses it for the s3tables catalog."""
    body = json.dumps({"name": "tbl", "schema": {"type": "struct", "fields": []}}).encode()
    url = ENDPOINT + "/_iceberg/v1/arn%3Aaws%3As3tables/namespaces/ns%1Fsub/tables"
    wire = sign(botocore.auth.SigV4Auth(CREDENTIALS, "s3tables", "us-east-1"), "POST", url, body)
    assert "x-amz-content-sha256" not in wire.headers

    auth = wire.verify("s3tables", body=body)
    assert (auth.service, auth.payload) == ("s3tables", hashlib.sha256(body).hexdigest())
    expect_error("SignatureDoesNotMatch", 403, wire.verify, "s3tables", body=body + b" ")
    # Without the body, the request counts as signing an empty one.
    expect_error("SignatureDoesNotMatch", 403, wire.verify, "s3tables")
    expect_error("AuthorizationHeaderMalformed", 400, wire.verify, "s3", body=body)

    get = sign(botocore.auth.SigV4Auth(CREDENTIALS, "s3tables", "us-east-1"), "GET", url)
    assert get.verify("s3tables").payload == EMPTY_SHA256
    assert decode_in_pieces(get.verify("s3tables"), get.headers, b"", 1) == (b"", {})


def test_non_s3_query_as_requests_encodes_it():
    """PyIceberg builds URLs with requests (spaces as '+', ',' bare) and botocore signs them as they are."""
    query = urlencode({"parent": "ns\x1fsub name", "pageToken": "a/b=,c~", "pageSize": "10"})
    assert "+" in query
    url = ENDPOINT + "/_iceberg/v1/namespaces?" + query
    wire = sign(botocore.auth.SigV4Auth(CREDENTIALS, "s3tables", "us-east-1"), "GET", url)
    assert wire.verify("s3tables").kind == "header-v4"
    reordered = Wire("GET", wire.path, "&".join(reversed(wire.query.split("&"))), wire.headers)
    assert reordered.verify("s3tables").kind == "header-v4"
    changed = Wire("GET", wire.path, wire.query.replace("10", "11"), wire.headers)
    expect_error("SignatureDoesNotMatch", 403, changed.verify, "s3tables")


def test_double_encoding_is_not_accepted_for_s3():
    wire = sign(botocore.auth.SigV4Auth(CREDENTIALS, "s3", "us-east-1"), "GET", ENDPOINT + "/b/a%1Fb")
    expect_error("SignatureDoesNotMatch", 403, wire.verify)


@pytest.mark.parametrize("double_encode", [True, False])
def test_awscrt_signer(double_encode):
    """The CRT signer (AWS CLI v2, the CRT-based SDKs), with and without double encoding."""
    service = "s3tables" if double_encode else "s3"
    path = "/_iceberg/v1/namespaces/ns%1Fsub/tables/t%20x" if double_encode else s3_path("b", KEYS[2])
    headers = awscrt.http.HttpHeaders([("Host", "127.0.0.1:9000")])
    request = awscrt.http.HttpRequest("GET", path + "?pageToken=&pageSize=10", headers)
    config = awscrt.auth.AwsSigningConfig(
        credentials_provider=awscrt.auth.AwsCredentialsProvider.new_static(ACCESS_KEY, SECRET_KEY),
        region="ap-southeast-2",
        service=service,
        use_double_uri_encode=double_encode,
        should_normalize_uri_path=double_encode,
        signed_body_value=EMPTY_SHA256,
        signed_body_header_type=awscrt.auth.AwsSignedBodyHeaderType.X_AMZ_CONTENT_SHA_256,
    )
    awscrt.auth.aws_sign_request(request, config).result(10)
    wire = _crt_wire(request)
    auth = wire.verify(service)
    assert (auth.region, auth.service) == ("ap-southeast-2", service)


def test_signing_keys_are_cached():
    signer = botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1")
    first = sign(signer, "GET", ENDPOINT + "/b/one")
    first.verify()
    hits = signing_key.cache_info().hits
    sign(signer, "GET", ENDPOINT + "/b/two").verify()
    assert signing_key.cache_info().hits == hits + 1


# -- failures -----------------------------------------------------------------------------------
def test_anonymous_request_is_refused():
    wire = url_to_wire(ENDPOINT + "/b/k?list-type=2")
    error = expect_error("AccessDenied", 403, wire.verify)
    assert "Anonymous" in error.message


def test_non_ascii_header_values_are_checked_as_the_utf8_text_the_client_signed():
    """Clients sign header text as UTF-8 and send those bytes; tornado decodes them as latin-1."""
    text = "caf\u00e9 \u20ac"
    request = AWSRequest(method="PUT", url=ENDPOINT + "/b/k", data=b"x", headers={"x-amz-meta-note": text})
    botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1").add_auth(request)
    request.headers["x-amz-meta-note"] = text.encode().decode("latin-1")
    wire = to_wire(request)
    assert wire.verify().access_key == ACCESS_KEY
    wire.headers["x-amz-meta-note"] = "cafe \u20ac".encode().decode("latin-1")
    expect_error("SignatureDoesNotMatch", 403, wire.verify)


def test_a_body_hashed_whole_is_not_framed_whatever_its_content_encoding():
    body = b"plain bytes, not aws-chunked framing"
    wire = sign(botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1"), "PUT", ENDPOINT + "/b/k", body,
                headers={"Content-Encoding": "gzip, aws-chunked"})  # fmt: skip
    assert decode_in_pieces(wire.verify(), wire.headers, body, 7) == (body, {})


def test_tampered_requests_are_refused():
    signer = botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1")
    wire = sign(signer, "PUT", ENDPOINT + "/b/k", b"data", headers={"x-amz-meta-color": "blue"})
    wire.verify()

    authorization = wire.headers["Authorization"]
    last = authorization[-1]
    wire.headers["Authorization"] = authorization[:-1] + ("0" if last != "0" else "1")
    expect_error("SignatureDoesNotMatch", 403, wire.verify)
    wire.headers["Authorization"] = authorization

    wire.headers["x-amz-meta-color"] = "red"
    expect_error("SignatureDoesNotMatch", 403, wire.verify)
    wire.headers["x-amz-meta-color"] = "blue"

    moved = Wire(wire.method, "/b/other", wire.query, wire.headers)
    expect_error("SignatureDoesNotMatch", 403, moved.verify)


def test_wrong_secret_and_unknown_key():
    wrong = sign(
        botocore.auth.S3SigV4Auth(Credentials(ACCESS_KEY, OTHER_SECRET), "s3", "us-east-1"),
        "GET",
        ENDPOINT + "/b",
    )
    expect_error("SignatureDoesNotMatch", 403, wrong.verify)
    unknown = sign(
        botocore.auth.S3SigV4Auth(Credentials("NOSUCHKEY", SECRET_KEY), "s3", "us-east-1"),
        "GET",
        ENDPOINT + "/b",
    )
    expect_error("InvalidAccessKeyId", 403, unknown.verify)
    other = sign(
        botocore.auth.S3SigV4Auth(Credentials(OTHER_KEY, OTHER_SECRET), "s3", "us-east-1"),
        "GET",
        ENDPOINT + "/b",
    )
    assert other.verify().access_key == OTHER_KEY


def test_wrong_service_and_clock_skew():
    wire = sign(botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1"), "GET", ENDPOINT + "/b")
    error = expect_error("AuthorizationHeaderMalformed", 400, wire.verify, "s3tables")
    assert "s3tables" in error.message
    expect_error("RequestTimeTooSkewed", 403, wire.verify, now=time.time() + 1000)
    expect_error("RequestTimeTooSkewed", 403, wire.verify, now=time.time() - 1000)
    assert wire.verify(now=time.time() + 1000, max_skew=1200).kind == "header-v4"


@pytest.mark.parametrize(
    "authorization",
    [
        "AWS4-HMAC-SHA256 Credential=AKIDAUTHTEST/20240101/us-east-1/s3/aws4_request",
        "AWS4-HMAC-SHA256 Credential=AKIDAUTHTEST/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=ab",
        "AWS4-HMAC-SHA256 Credential=AKIDAUTHTEST/20240101//s3/aws4_request, SignedHeaders=host, Signature=ab",
        "AWS2 AKIDAUTHTEST:c2lnbmF0dXJl",
    ],
)
def test_malformed_authorization_header(authorization):
    wire = url_to_wire(
        ENDPOINT + "/b", headers={"Authorization": authorization, "x-amz-date": "20240101T000000Z"}
    )
    expect_error("AuthorizationHeaderMalformed", 400, wire.verify, now=calendar.timegm((2024, 1, 1, 0, 0, 0)))


def test_bad_payload_hash_header_is_refused():
    wire = sign(botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1"), "GET", ENDPOINT + "/b")
    wire.headers["x-amz-content-sha256"] = "not-a-hash"
    expect_error("InvalidArgument", 400, wire.verify)


# -- presigned URLs ----------------------------------------------------------------------------
@pytest.mark.parametrize("signature_version", [None, "s3v4"])
@pytest.mark.parametrize("key", KEYS)
def test_boto3_presigned_get(signature_version, key):
    config = {"signature_version": signature_version} if signature_version else {}
    client = s3_client(ENDPOINT, **config)
    url = client.generate_presigned_url(
        "get_object",
        Params={"Bucket": "b", "Key": key, "ResponseContentDisposition": 'attachment; filename="x y.bin"'},
    )
    auth = url_to_wire(url).verify()
    assert auth.kind == ("query-v4" if signature_version else "query-v2")
    assert auth.access_key == ACCESS_KEY and auth.payload == "UNSIGNED-PAYLOAD"
    tampered = url_to_wire(url.replace("filename", "filenamf"))
    expect_error("SignatureDoesNotMatch", 403, tampered.verify)


@pytest.mark.parametrize("signature_version", [None, "s3v4"])
def test_boto3_presigned_put_with_content_type(signature_version):
    config = {"signature_version": signature_version} if signature_version else {}
    client = s3_client(ENDPOINT, **config)
    url = client.generate_presigned_url(
        "put_object", Params={"Bucket": "b", "Key": "k", "ContentType": "text/plain"}
    )
    auth = url_to_wire(url, "PUT", {"Content-Type": "text/plain"}).verify()
    assert decode_in_pieces(auth, HTTPHeaders(), b"body", 3) == (b"body", {})
    if signature_version is None:
        # The signed Content-Type travels in the query too, for clients that do not send it.
        assert url_to_wire(url, "PUT").verify().kind == "query-v2"
        expect_error(
            "SignatureDoesNotMatch", 403, url_to_wire(url, "PUT", {"Content-Type": "image/png"}).verify
        )


@pytest.mark.parametrize("signature_version", [None, "s3v4"])
def test_presigned_url_expiry(signature_version):
    config = {"signature_version": signature_version} if signature_version else {}
    url = s3_client(ENDPOINT, **config).generate_presigned_url(
        "get_object", Params={"Bucket": "b", "Key": "k"}, ExpiresIn=60
    )
    wire = url_to_wire(url)
    assert wire.verify(now=time.time() + 30).access_key == ACCESS_KEY
    error = expect_error("AccessDenied", 403, wire.verify, now=time.time() + 120)
    assert "expired" in error.message
    unknown = url_to_wire(url.replace(ACCESS_KEY, "NOSUCHKEY"))
    expect_error("InvalidAccessKeyId", 403, unknown.verify)


def test_presigned_v4_query_signers():
    signer = botocore.auth.S3SigV4QueryAuth(CREDENTIALS, "s3", "us-east-1", expires=300)
    wire = sign(signer, "GET", ENDPOINT + s3_path("b", KEYS[1]) + "?versionId=v1&x-id=GetObject")
    auth = wire.verify()
    assert auth.kind == "query-v4" and auth.seed_signature in wire.query
    expect_error(
        "SignatureDoesNotMatch", 403, Wire("GET", wire.path, wire.query + "&extra=1", wire.headers).verify
    )
    expect_error(
        "AuthorizationQueryParametersError",
        400,
        Wire("GET", wire.path, wire.query, wire.headers).verify,
        "s3tables",
    )

    too_long = sign(
        botocore.auth.S3SigV4QueryAuth(CREDENTIALS, "s3", "us-east-1", expires=8 * 86400),
        "GET",
        ENDPOINT + "/b",
    )
    expect_error("AuthorizationQueryParametersError", 400, too_long.verify)
    missing = Wire("GET", wire.path, wire.query.split("&X-Amz-Signature=")[0], wire.headers)
    expect_error("AuthorizationQueryParametersError", 400, missing.verify)

    future = sign(signer, "GET", ENDPOINT + "/b")
    error = expect_error("AccessDenied", 403, future.verify, now=time.time() - 3600)
    assert "not valid yet" in error.message


def test_presigned_v2_sub_resources():
    signer = botocore.auth.HmacV1QueryAuth(CREDENTIALS, expires=300)
    wire = sign(signer, "GET", ENDPOINT + "/b/k?versionId=v%201&response-content-type=text/plain&tagging")
    auth = wire.verify()
    assert (auth.kind, auth.region, auth.signing_key) == ("query-v2", "", b"")
    dropped = Wire("GET", wire.path, wire.query.replace("versionId=v%201&", ""), wire.headers)
    expect_error("SignatureDoesNotMatch", 403, dropped.verify)
    expect_error("AuthorizationQueryParametersError", 400, wire.verify, "s3tables")


# -- SigV2 header auth ------------------------------------------------------------------------------
V2_SIGNER = botocore.auth.HmacV1Auth(CREDENTIALS)


@pytest.mark.parametrize("key", KEYS)
def test_sigv2_header_signature(key):
    headers = {"Content-Type": "text/plain", "Content-MD5": "rL0Y20zC+Fzt72VPzMSk2A==", "x-amz-meta-Note": "a  b"}
    wire = sign(V2_SIGNER, "PUT", ENDPOINT + s3_path("b", key) + "?tagging&versionId=v%201", b"foo", headers)
    auth = wire.verify()
    assert (auth.kind, auth.access_key, auth.payload, auth.signing_key) == ("header-v2", ACCESS_KEY, "UNSIGNED-PAYLOAD", b"")
    # Every signed part counts: the method, the standard and x-amz-* headers, the path, a sub-resource.
    for name, value in (("Content-Type", "text/html"), ("Content-MD5", "AAAA"), ("x-amz-meta-note", "b")):
        changed = Wire("PUT", wire.path, wire.query, HTTPHeaders({**wire.headers, name: value}))
        expect_error("SignatureDoesNotMatch", 403, changed.verify)
    for changed in (Wire("POST", wire.path, wire.query, wire.headers),
                    Wire("PUT", wire.path + "x", wire.query, wire.headers),
                    Wire("PUT", wire.path, wire.query.replace("v%201", "v%202"), wire.headers)):
        expect_error("SignatureDoesNotMatch", 403, changed.verify)
    # What is not a sub-resource is not signed.
    assert Wire("PUT", wire.path, wire.query + "&x-id=PutObject", wire.headers).verify().kind == "header-v2"


def test_sigv2_header_for_a_virtual_host_signs_bucket_and_key():
    request = AWSRequest(method="GET", url="http://b.s3.test/k?acl")
    request.auth_path = "/b/k"  # what botocore signs for a virtual-host URL
    V2_SIGNER.add_auth(request)
    wire = to_wire(request)
    assert wire.verify(resource_path="/b/k").kind == "header-v2"
    expect_error("SignatureDoesNotMatch", 403, wire.verify, resource_path="/other/k")


def test_sigv2_header_with_x_amz_date():
    """x-amz-date is the request's time; AWS signs an empty Date line then, botocore the Date header."""
    now = calendar.timegm((2024, 1, 1, 0, 0, 0))
    amz_date = "Mon, 01 Jan 2024 00:00:00 GMT"
    botocore_signed = sign(V2_SIGNER, "GET", ENDPOINT + "/b/k", headers={"x-amz-date": amz_date})
    assert botocore_signed.verify(now=now).kind == "header-v2"  # its Date (the clock's) is not the time
    string_to_sign = f"GET\n\n\n\nx-amz-date:{amz_date}\n/b/k"
    signature = base64.b64encode(hmac.new(SECRET_KEY.encode(), string_to_sign.encode(), hashlib.sha1).digest())
    aws_signed = url_to_wire(ENDPOINT + "/b/k", headers={
        "x-amz-date": amz_date, "Date": "Thu, 01 Jan 1970 00:00:00 GMT",
        "Authorization": f"AWS {ACCESS_KEY}:{signature.decode()}"})
    assert aws_signed.verify(now=now).kind == "header-v2"
    expect_error("RequestTimeTooSkewed", 403, aws_signed.verify, now=now + 901)


@pytest.mark.parametrize(("header", "value", "code"), [
    ("x-amz-date", "Tue, 07 Jul 2010 21:53:04 GMT", "RequestTimeTooSkewed"),
    ("x-amz-date", "Tue, 07 Jul 9999 21:53:04 GMT", "RequestTimeTooSkewed"),
    ("x-amz-date", "Tue, 07 Jul 1950 21:53:04 GMT", "AccessDenied"),  # as AWS: invalid, not skewed
    ("x-amz-date", "Bad Date", "AccessDenied"),
    ("x-amz-date", "", "AccessDenied"),
    ("Date", "20240101T000000Z", "AccessDenied"),
])
def test_sigv2_header_dates(header, value, code):
    wire = sign(V2_SIGNER, "PUT", ENDPOINT + "/b/k", b"bar", {header: value} if header != "Date" else {})
    if header == "Date":
        wire.headers["Date"] = value
    expect_error(code, 403, wire.verify)


def test_sigv2_header_refusals():
    wire = sign(V2_SIGNER, "GET", ENDPOINT + "/b")
    expect_error("RequestTimeTooSkewed", 403, wire.verify, now=time.time() + 1000)
    assert wire.verify(now=time.time() + 1000, max_skew=1200).kind == "header-v2"
    expect_error("AuthorizationHeaderMalformed", 400, wire.verify, "s3tables")
    expect_error("InvalidAccessKeyId", 403, sign(botocore.auth.HmacV1Auth(Credentials("NOSUCHKEY", SECRET_KEY)),
                                                 "GET", ENDPOINT + "/b").verify)
    expect_error("SignatureDoesNotMatch", 403, sign(botocore.auth.HmacV1Auth(Credentials(ACCESS_KEY, "wrong")),
                                                    "GET", ENDPOINT + "/b").verify)
    # A signature for one key is not one for another key's secret.
    other = sign(botocore.auth.HmacV1Auth(Credentials(OTHER_KEY, OTHER_SECRET)), "GET", ENDPOINT + "/b")
    other.headers["Authorization"] = other.headers["Authorization"].replace(OTHER_KEY, ACCESS_KEY)
    expect_error("SignatureDoesNotMatch", 403, other.verify)
    for malformed in ("AWS HAHAHA", "AWS :c2ln", f"AWS {ACCESS_KEY}:", "AWS "):
        wire.headers["Authorization"] = malformed
        expect_error("InvalidArgument", 400, wire.verify)


def test_header_and_query_auth_together_are_refused():
    url = s3_client(ENDPOINT).generate_presigned_url("get_object", Params={"Bucket": "b", "Key": "k"})
    wire = url_to_wire(url, headers={"Authorization": "AWS4-HMAC-SHA256 Credential=x"})
    expect_error("InvalidArgument", 400, wire.verify)


# -- aws-chunked bodies ---------------------------------------------------------------------------
# The worked examples of the AWS documentation ("Signature calculations for the Authorization
# header: transferring payload in multiple chunks", and the same with trailing headers).
DOC_SECRETS = {"AKIAIOSFODNN7EXAMPLE": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
DOC_NOW = calendar.timegm((2013, 5, 24, 0, 0, 0))
DOC_EXAMPLES = {
    "STREAMING-AWS4-HMAC-SHA256-PAYLOAD": (
        (
            "content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;"
            "x-amz-storage-class"
        ),
        "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9",
        [
            "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
            "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
            "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9",
        ],
        b"\r\n",
    ),
    "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER": (
        (
            "content-encoding;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;"
            "x-amz-storage-class;x-amz-trailer"
        ),
        "106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e",
        [
            "b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2",
            "1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7",
            "2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992",
        ],
        (
            b"x-amz-checksum-crc32c:sOO8/Q==\r\n"
            b"x-amz-trailer-signature:d81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435\r\n\r\n"
        ),
    ),
}


@pytest.mark.parametrize("piece", PIECE_SIZES)
@pytest.mark.parametrize("payload", sorted(DOC_EXAMPLES))
def test_aws_documentation_chunked_examples(payload, piece):
    signed_headers, seed, signatures, ending = DOC_EXAMPLES[payload]
    headers = HTTPHeaders(
        {
            "Host": "s3.amazonaws.com",
            "x-amz-date": "20130524T000000Z",
            "x-amz-storage-class": "REDUCED_REDUNDANCY",
            "x-amz-content-sha256": payload,
            "Content-Encoding": "aws-chunked",
            "Content-Length": "66824",
            "x-amz-decoded-content-length": "66560",
            "x-amz-trailer": "x-amz-checksum-crc32c",
            "Authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            f"SignedHeaders={signed_headers},Signature={seed}",
        }
    )
    auth = verify_request(
        "PUT", "/examplebucket/chunkObject.txt", "", headers, DOC_SECRETS.get, service="s3", now=DOC_NOW
    )
    assert auth.seed_signature == seed
    wire_body = (
        f"10000;chunk-signature={signatures[0]}\r\n".encode() + b"a" * 65536 + b"\r\n"
        + f"400;chunk-signature={signatures[1]}\r\n".encode() + b"a" * 1024 + b"\r\n"
        + f"0;chunk-signature={signatures[2]}\r\n".encode() + ending
    )  # fmt: skip
    data, trailers = decode_in_pieces(auth, headers, wire_body, piece)
    assert data == b"a" * 66560
    assert trailers == ({"x-amz-checksum-crc32c": "sOO8/Q=="} if "TRAILER" in payload else {})
    assert crc32c_b64(data) == "sOO8/Q=="

    tampered = wire_body.replace(b"a" * 10, b"a" * 9 + b"b", 1)
    expect_error("SignatureDoesNotMatch", 403, decode_in_pieces, auth, headers, tampered, piece)


@dataclass
class ChunkedUpload:
    """A streaming PUT: headers signed by awscrt, chunks framed and signed as the AWS docs say."""

    payload: str
    data: bytes
    chunk_size: int = 65536
    trailers: dict[str, str] = field(default_factory=dict)
    headers: HTTPHeaders = field(init=False)

    def __post_init__(self):
        headers = [("Host", "127.0.0.1:9000"), ("Content-Encoding", "aws-chunked")]
        headers.append(("x-amz-decoded-content-length", str(len(self.data))))
        if self.trailers:
            headers.append(("x-amz-trailer", ",".join(self.trailers)))
        request = awscrt.http.HttpRequest(
            "PUT", "/bucket/streamed%20object", awscrt.http.HttpHeaders(headers)
        )
        config = awscrt.auth.AwsSigningConfig(
            credentials_provider=awscrt.auth.AwsCredentialsProvider.new_static(ACCESS_KEY, SECRET_KEY),
            region="us-east-1",
            service="s3",
            use_double_uri_encode=False,
            should_normalize_uri_path=False,
            signed_body_value=self.payload,
            signed_body_header_type=awscrt.auth.AwsSignedBodyHeaderType.X_AMZ_CONTENT_SHA_256,
        )
        awscrt.auth.aws_sign_request(request, config).result(10)
        self.wire = _crt_wire(request)
        self.headers = self.wire.headers

    def body(self, auth: AuthResult, *, tamper_chunk: int | None = None) -> bytes:
        signed = self.payload.startswith("STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
        key = _doc_signing_key(SECRET_KEY, auth.date, auth.region, "s3")
        context = f"{auth.amz_date}\n{auth.date}/{auth.region}/s3/aws4_request\n"
        previous = self.headers["Authorization"].rsplit("Signature=", 1)[1]
        chunks = [self.data[i : i + self.chunk_size] for i in range(0, len(self.data), self.chunk_size)]
        out = bytearray()
        for index, chunk in enumerate([*chunks, b""]):
            line = f"{len(chunk):x}"
            if signed:
                digest = hashlib.sha256(chunk).hexdigest()
                previous = _hmac_hex(
                    key, f"AWS4-HMAC-SHA256-PAYLOAD\n{context}{previous}\n{EMPTY_SHA256}\n{digest}"
                )
                line += f";chunk-signature={previous}"
            if index == tamper_chunk:
                chunk = bytes([chunk[0] ^ 1]) + chunk[1:]
            out += line.encode() + b"\r\n" + chunk + (b"\r\n" if chunk else b"")
        canonical = "".join(f"{name}:{value}\n" for name, value in sorted(self.trailers.items()))
        out += canonical.replace("\n", "\r\n").encode()
        if self.payload == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER":
            digest = hashlib.sha256(canonical.encode()).hexdigest()
            signature = _hmac_hex(key, f"AWS4-HMAC-SHA256-TRAILER\n{context}{previous}\n{digest}")
            out += f"x-amz-trailer-signature:{signature}\r\n".encode()
        return bytes(out + b"\r\n")


def _doc_signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    key = ("AWS4" + secret).encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def _hmac_hex(key: bytes, text: str) -> str:
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


STREAMING_PAYLOADS = [
    "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
    "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
    "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
]


@pytest.mark.parametrize("piece", PIECE_SIZES)
@pytest.mark.parametrize("payload", STREAMING_PAYLOADS)
def test_streaming_bodies_in_odd_pieces(payload, piece):
    data = os.urandom(140_000)
    trailers = (
        {} if payload == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" else {"x-amz-checksum-crc32": crc32_b64(data)}
    )
    upload = ChunkedUpload(payload, data, trailers=trailers)
    auth = upload.wire.verify()
    assert auth.payload == payload
    assert decode_in_pieces(auth, upload.headers, upload.body(auth), piece) == (data, trailers)


@pytest.mark.parametrize("payload", STREAMING_PAYLOADS[:2])
def test_streaming_tampered_chunk_is_refused(payload):
    data = os.urandom(200_000)
    trailers = (
        {} if payload == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" else {"x-amz-checksum-crc32": crc32_b64(data)}
    )
    upload = ChunkedUpload(payload, data, trailers=trailers)
    auth = upload.wire.verify()
    expect_error(
        "SignatureDoesNotMatch",
        403,
        decode_in_pieces,
        auth,
        upload.headers,
        upload.body(auth, tamper_chunk=1),
        65537,
    )


def test_signed_trailer_must_match():
    data = os.urandom(70_000)
    upload = ChunkedUpload(
        "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", data, trailers={"x-amz-checksum-crc32": crc32_b64(data)}
    )
    auth = upload.wire.verify()
    body = upload.body(auth)
    forged = body.replace(crc32_b64(data).encode(), b"AAAAAA==")
    expect_error("SignatureDoesNotMatch", 403, decode_in_pieces, auth, upload.headers, forged, 1000)
    unsigned = body[: body.index(b"x-amz-trailer-signature")] + b"\r\n"
    expect_error("SignatureDoesNotMatch", 403, decode_in_pieces, auth, upload.headers, unsigned, 1000)


def test_streaming_framing_errors():
    data = os.urandom(100_000)
    upload = ChunkedUpload(
        "STREAMING-UNSIGNED-PAYLOAD-TRAILER", data, trailers={"x-amz-checksum-crc32": crc32_b64(data)}
    )
    auth = upload.wire.verify()
    body = upload.body(auth)
    expect_error("IncompleteBody", 400, decode_in_pieces, auth, upload.headers, body[:70_000], 4096)
    expect_error("InvalidRequest", 400, decode_in_pieces, auth, upload.headers, b"zz\r\n" + body, 4096)
    expect_error("InvalidRequest", 400, decode_in_pieces, auth, upload.headers, body + b"junk", 4096)
    short = body.replace(b"10000\r\n", b"fffe\r\n", 1)
    expect_error("IncompleteBody", 400, decode_in_pieces, auth, upload.headers, short, 4096)

    upload.headers["x-amz-decoded-content-length"] = str(len(data) + 1)
    expect_error("IncompleteBody", 400, decode_in_pieces, auth, upload.headers, body, 4096)
    upload.headers["x-amz-decoded-content-length"] = str(len(data) - 1)
    expect_error("IncompleteBody", 400, decode_in_pieces, auth, upload.headers, body, 4096)


@pytest.mark.parametrize("piece", PIECE_SIZES[1:])
def test_botocore_unsigned_trailer_encoding(piece):
    """The aws-chunked body botocore itself builds for PUTs over HTTPS (1 MiB chunks)."""
    data = os.urandom(1024 * 1024 + 12345)
    request_dict = {
        "method": "PUT",
        "url": "https://127.0.0.1:9000" + s3_path("b", KEYS[2]),
        "headers": {"Content-Length": str(len(data))},
        "body": data,
        "context": {
            "checksum": {
                "request_algorithm": {"in": "trailer", "name": "x-amz-checksum-crc32", "algorithm": "crc32"}
            }
        },
    }
    apply_request_checksum(request_dict)
    request = AWSRequest(
        method="PUT", url=request_dict["url"], headers=request_dict["headers"], data=request_dict["body"]
    )
    request.context.update(request_dict["context"])
    botocore.auth.S3SigV4Auth(CREDENTIALS, "s3", "us-east-1").add_auth(request)
    wire = to_wire(request)
    auth = wire.verify()
    assert auth.payload == "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
    decoded, trailers = decode_in_pieces(auth, wire.headers, wire.body, piece)
    assert decoded == data
    assert trailers == {"x-amz-checksum-crc32": crc32_b64(data)}


# -- on the wire: boto3 and awscrt against a tornado server that runs only this package ----------
@stream_request_body
class _AuthOnly(RequestHandler):
    SUPPORTED_METHODS = ("GET", "HEAD", "PUT", "POST", "DELETE")

    def initialize(self, seen: dict):
        self.seen = seen
        self.decoder = None
        self.body = bytearray()
        self.error: AuthError | None = None

    def prepare(self):
        try:
            auth = verify_request(
                self.request.method,
                self.request.path,
                self.request.query,
                self.request.headers,
                SECRETS.get,
                service="s3",
            )
            self.auth = auth
            self.decoder = body_decoder(auth, self.request.headers)
        except AuthError as error:
            self.error = error

    def data_received(self, chunk: bytes):
        if self.error is None:
            try:
                self.body += self.decoder.feed(chunk)
            except AuthError as error:
                self.error = error

    def _answer(self):
        try:
            if self.error is not None:
                raise self.error
            trailers = self.decoder.finish()
        except AuthError as error:
            self.set_status(error.status)
            self.set_header("Content-Type", "application/xml")
            self.finish(f"<Error><Code>{error.code}</Code><Message>{error.message}</Message></Error>")
            return
        self.seen[unquote(self.request.path)] = (self.auth, bytes(self.body), trailers)
        self.set_header("ETag", f'"{hashlib.md5(self.body).hexdigest()}"')
        if self.request.method == "GET":
            self.set_header("Content-Type", "application/xml")
            self.finish(b'<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>')

    get = head = put = post = delete = _answer


@dataclass
class AuthServer:
    http: str
    https: str
    ca_file: str
    seen: dict


def _self_signed_tls(directory) -> tuple[ssl.SSLContext, str]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    return context, str(cert_file)


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory):
    tls, ca_file = _self_signed_tls(tmp_path_factory.mktemp("tls"))
    seen: dict = {}
    started = threading.Event()
    state = {}

    def serve():
        asyncio.set_event_loop(asyncio.new_event_loop())
        app = Application([(r"/.*", _AuthOnly, {"seen": seen})])
        ports = []
        for ssl_options in (None, tls):
            sockets = bind_sockets(0, "127.0.0.1")
            HTTPServer(app, ssl_options=ssl_options).add_sockets(sockets)
            ports.append(sockets[0].getsockname()[1])
        state["loop"], state["ports"] = IOLoop.current(), ports
        started.set()
        IOLoop.current().start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert started.wait(10)
    http_port, https_port = state["ports"]
    yield AuthServer(f"http://127.0.0.1:{http_port}", f"https://127.0.0.1:{https_port}", ca_file, seen)
    state["loop"].add_callback(state["loop"].stop)
    thread.join(10)


@pytest.mark.parametrize("key", KEYS)
def test_boto3_put_over_http(auth_server, key):
    data = os.urandom(50_000)
    s3_client(auth_server.http).put_object(Bucket="wire", Key=key, Body=data)
    auth, body, trailers = auth_server.seen[f"/wire/{key}"]
    assert (auth.kind, auth.payload, body, trailers) == (
        "header-v4",
        hashlib.sha256(data).hexdigest(),
        data,
        {},
    )


def test_boto3_put_over_https_is_aws_chunked(auth_server):
    data = os.urandom(3 * 1024 * 1024 + 5)
    client = boto3.client(
        "s3",
        endpoint_url=auth_server.https,
        region_name="us-east-1",
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        verify=auth_server.ca_file,
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )
    client.put_object(Bucket="wire", Key="over tls", Body=data)
    auth, body, trailers = auth_server.seen["/wire/over tls"]
    assert auth.payload == "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
    assert body == data and trailers == {"x-amz-checksum-crc32": crc32_b64(data)}


def test_boto3_list_and_presigned_on_the_wire(auth_server):
    client = s3_client(auth_server.http)
    client.list_objects_v2(Bucket="listing", Prefix="a b/ü+", Delimiter="/", StartAfter="", MaxKeys=5)
    assert auth_server.seen["/listing"][0].kind == "header-v4"
    for config, kind in (({}, "query-v2"), ({"signature_version": "s3v4"}, "query-v4")):
        url = s3_client(auth_server.http, **config).generate_presigned_url(
            "get_object", Params={"Bucket": "pre", "Key": kind + "/ü x"}
        )
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200
        assert auth_server.seen[f"/pre/{kind}/ü x"][0].kind == kind


def test_boto3_wrong_secret_on_the_wire(auth_server):
    client = boto3.client(
        "s3",
        endpoint_url=auth_server.http,
        region_name="us-east-1",
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key="wrong",
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )
    with pytest.raises(ClientError) as caught:
        client.put_object(Bucket="wire", Key="refused", Body=b"x")
    assert caught.value.response["Error"]["Code"] == "SignatureDoesNotMatch"
    assert "/wire/refused" not in auth_server.seen
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(auth_server.http + "/wire/anonymous", timeout=10)
    assert refused.value.code == 403


# -- awscrt's signed requests as the server sees them -----------------------------------------------------------------
def _crt_wire(request: awscrt.http.HttpRequest) -> Wire:
    path, _, query = request.path.partition("?")
    headers = HTTPHeaders()
    for name, value in request.headers:
        headers.add(name, value)
    return Wire(request.method, path, query, headers)
