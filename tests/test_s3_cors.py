"""Bucket CORS: ?cors with boto3, preflights (OPTIONS) and actual requests carrying an Origin with
requests, the errors S3 answers, and the system bucket, which a preflight cannot find either."""

from __future__ import annotations

import base64
import hashlib
import uuid
import xml.etree.ElementTree as ET

import pytest
import requests
from botocore.exceptions import ClientError
from hypothesis import given
from hypothesis import strategies as st

from aistor_lab.s3.cors import parse, requested_headers
from aistor_lab.s3.errors import S3Error
from aistor_lab.store import SYSTEM_BUCKET

from .conftest import make_s3_client, make_user, signed_call

UPLOAD_RULE = {
    "ID": "uploads",
    "AllowedOrigins": ["https://*.example.com"],
    "AllowedMethods": ["PUT", "POST"],
    "AllowedHeaders": ["content-type", "x-amz-*"],
    "ExposeHeaders": ["ETag", "x-amz-version-id"],
    "MaxAgeSeconds": 600,
}
READ_RULE = {"AllowedOrigins": ["*"], "AllowedMethods": ["GET", "HEAD"]}
VARY = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method"


def _error(response: requests.Response) -> tuple[str, str]:
    root = ET.fromstring(response.content)
    return root.findtext("Code"), root.findtext("Message")


def _preflight(server, path: str, origin: str | None, method: str | None, headers: str | None = None):
    sent = {name: value for name, value in (("Origin", origin), ("Access-Control-Request-Method", method),
                                            ("Access-Control-Request-Headers", headers)) if value is not None}
    return requests.options(f"{server.endpoint}{path}", headers=sent, timeout=30)


def _put_cors_document(server, bucket: str, document: bytes) -> requests.Response:
    md5 = base64.b64encode(hashlib.md5(document).digest()).decode()
    return signed_call(server, "PUT", f"/{bucket}?cors", document, headers={"Content-MD5": md5})


@pytest.fixture
def cors_bucket(s3, bucket):
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [UPLOAD_RULE, READ_RULE]})
    s3.put_object(Bucket=bucket, Key="page.txt", Body=b"hello")
    return bucket


# -- the configuration ------------------------------------------------------------------------------
def test_put_get_delete(s3, bucket):
    with pytest.raises(ClientError) as missing:
        s3.get_bucket_cors(Bucket=bucket)
    assert missing.value.response["Error"]["Code"] == "NoSuchCORSConfiguration"
    assert missing.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404

    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [UPLOAD_RULE, READ_RULE]})
    assert s3.get_bucket_cors(Bucket=bucket)["CORSRules"] == [UPLOAD_RULE, READ_RULE]

    assert s3.delete_bucket_cors(Bucket=bucket)["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError) as deleted:
        s3.get_bucket_cors(Bucket=bucket)
    assert deleted.value.response["Error"]["Code"] == "NoSuchCORSConfiguration"


@pytest.mark.parametrize(("rules", "code", "message"), [
    ([{"AllowedOrigins": ["*"], "AllowedMethods": ["PATCH"]}], "InvalidRequest",
     "Found unsupported HTTP method in CORS config. Unsupported method is PATCH"),
    ([{"AllowedOrigins": ["*"], "AllowedMethods": ["get"]}], "InvalidRequest",
     "Found unsupported HTTP method in CORS config. Unsupported method is get"),
    ([{"AllowedOrigins": ["https://*.*.example.com"], "AllowedMethods": ["GET"]}], "InvalidRequest",
     'AllowedOrigin "https://*.*.example.com" can not have more than one wildcard.'),
    ([{"AllowedOrigins": ["*"], "AllowedMethods": ["GET"], "AllowedHeaders": ["x-*-*"]}], "InvalidRequest",
     'AllowedHeader "x-*-*" can not have more than one wildcard.'),
    ([{"AllowedOrigins": [], "AllowedMethods": ["GET"]}], "MalformedXML", None),
    ([{"AllowedOrigins": ["*"], "AllowedMethods": []}], "MalformedXML", None),
    ([], "MalformedXML", None),
    ([READ_RULE] * 101, "MalformedXML", None),
])
def test_bad_configurations_change_nothing(s3, bucket, rules, code, message):
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [READ_RULE]})
    with pytest.raises(ClientError) as refused:
        s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": rules})
    error = refused.value.response["Error"]
    assert (error["Code"], refused.value.response["ResponseMetadata"]["HTTPStatusCode"]) == (code, 400)
    if message:
        assert error["Message"] == message
    assert s3.get_bucket_cors(Bucket=bucket)["CORSRules"] == [READ_RULE]


def test_bad_documents(server, bucket):
    assert _error(_put_cors_document(server, bucket, b"<CORSConfiguration><CORSRule>"))[0] == "MalformedXML"
    assert _error(_put_cors_document(server, bucket, b"<Other/>"))[0] == "MalformedXML"
    rule = b"<CORSRule><AllowedMethod>GET</AllowedMethod><AllowedOrigin>*</AllowedOrigin>"
    age = rule + b"<MaxAgeSeconds>soon</MaxAgeSeconds></CORSRule>"
    assert _error(_put_cors_document(server, bucket, b"<CORSConfiguration>" + age + b"</CORSConfiguration>"))[0] \
        == "MalformedXML"
    document = b"<CORSConfiguration>" + rule + b"</CORSRule></CORSConfiguration>"
    unchecked = signed_call(server, "PUT", f"/{bucket}?cors", document)
    assert (unchecked.status_code, _error(unchecked)) == (
        400, ("InvalidRequest", "Missing required header for this request: Content-MD5"))
    assert _put_cors_document(server, bucket, document).status_code == 200


def test_cors_rights(server, s3, bucket):
    """s3:PutBucketCORS puts and deletes (as S3 authorizes a delete), s3:DeleteBucketCors (MinIO's
    name) deletes too, s3:GetBucketCORS reads."""
    def user_with(*actions):
        return make_s3_client(server.endpoint, *make_user(server, {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": list(actions), "Resource": [f"arn:aws:s3:::{bucket}"]}]}))

    writer, reader, deleter = user_with("s3:PutBucketCORS"), user_with("s3:GetBucketCORS"), \
        user_with("s3:DeleteBucketCors")
    writer.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [READ_RULE]})
    assert reader.get_bucket_cors(Bucket=bucket)["CORSRules"] == [READ_RULE]
    for refused in (lambda: writer.get_bucket_cors(Bucket=bucket),
                    lambda: reader.delete_bucket_cors(Bucket=bucket),
                    lambda: deleter.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [READ_RULE]})):
        with pytest.raises(ClientError) as denied:
            refused()
        assert denied.value.response["Error"]["Code"] == "AccessDenied"
    deleter.delete_bucket_cors(Bucket=bucket)
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [READ_RULE]})
    writer.delete_bucket_cors(Bucket=bucket)
    with pytest.raises(ClientError):
        s3.get_bucket_cors(Bucket=bucket)


# -- preflights -------------------------------------------------------------------------------------
def test_preflight_allowed(server, cors_bucket):
    response = _preflight(server, f"/{cors_bucket}/uploads/a.csv", "https://lab.example.com", "PUT",
                          "Content-Type, X-Amz-Meta-Owner")
    assert response.status_code == 200, response.content
    assert response.content == b""
    assert {name: response.headers.get(name) for name in (
        "Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Access-Control-Allow-Methods",
        "Access-Control-Allow-Headers", "Access-Control-Expose-Headers", "Access-Control-Max-Age", "Vary",
    )} == {
        "Access-Control-Allow-Origin": "https://lab.example.com",
        "Access-Control-Allow-Credentials": "true",
        "Access-Control-Allow-Methods": "PUT, POST",
        "Access-Control-Allow-Headers": "content-type, x-amz-meta-owner",
        "Access-Control-Expose-Headers": "ETag, x-amz-version-id",
        "Access-Control-Max-Age": "600",
        "Vary": VARY,
    }


def test_preflight_of_a_wildcard_origin_answers_star(server, cors_bucket):
    response = _preflight(server, f"/{cors_bucket}", "http://anywhere:8888", "GET")
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Access-Control-Allow-Methods"] == "GET, HEAD"
    assert "Access-Control-Allow-Credentials" not in response.headers
    assert "Access-Control-Max-Age" not in response.headers


@pytest.mark.parametrize(("origin", "method", "headers"), [
    ("https://lab.example.org", "PUT", None),  # no origin pattern matches
    ("https://lab.example.com", "DELETE", None),  # no rule allows the method
    ("https://lab.example.com", "PUT", "content-type, authorization"),  # a header no rule allows
    ("http://anywhere", "GET", "x-amz-meta-a"),  # the wildcard rule allows no header
])
def test_preflight_refused(server, cors_bucket, origin, method, headers):
    response = _preflight(server, f"/{cors_bucket}/k", origin, method, headers)
    assert response.status_code == 403
    code, message = _error(response)
    assert code == "AccessForbidden" and message.startswith("CORSResponse: This CORS request is not allowed.")
    assert not [name for name in response.headers if name.lower().startswith("access-control-")]


def test_preflight_needs_origin_and_method(server, cors_bucket):
    no_origin = _preflight(server, f"/{cors_bucket}/k", None, "GET")
    assert (no_origin.status_code, _error(no_origin)) == (
        400, ("BadRequest", "Insufficient information. Origin request header needed."))
    no_method = _preflight(server, f"/{cors_bucket}/k", "http://anywhere", None)
    assert no_method.status_code == 400 and _error(no_method)[0] == "BadRequest"


def test_preflight_without_configuration_or_bucket(server, bucket):
    unconfigured = _preflight(server, f"/{bucket}/k", "http://anywhere", "GET")
    assert (unconfigured.status_code, _error(unconfigured)) == (
        403, ("AccessForbidden", "CORSResponse: CORS is not enabled for this bucket."))
    missing = _preflight(server, f"/missing-{uuid.uuid4().hex[:8]}/k", "http://anywhere", "GET")
    assert (missing.status_code, _error(missing)) == (403, ("AccessForbidden", "CORSResponse: Bucket not found"))


def test_preflight_cannot_find_the_system_bucket(server):
    for path in (f"/{SYSTEM_BUCKET}", f"/{SYSTEM_BUCKET}/iam/keys/tokens.json"):
        response = _preflight(server, path, "http://anywhere", "GET")
        assert (response.status_code, _error(response)) == (
            403, ("AccessForbidden", "CORSResponse: Bucket not found"))


def test_preflight_of_a_presigned_url_is_not_authenticated(server, s3, cors_bucket):
    url = s3.generate_presigned_url("put_object", Params={"Bucket": cors_bucket, "Key": "up.txt"})
    assert requests.options(url, timeout=30).status_code == 400
    response = requests.options(url, headers={"Origin": "https://a.example.com",
                                              "Access-Control-Request-Method": "PUT"}, timeout=30)
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "https://a.example.com"


def test_a_new_configuration_answers_at_once(server, s3, bucket):
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [READ_RULE]})
    assert _preflight(server, f"/{bucket}", "http://a", "GET").status_code == 200
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [UPLOAD_RULE]})
    assert _preflight(server, f"/{bucket}", "http://a", "GET").status_code == 403
    s3.delete_bucket_cors(Bucket=bucket)
    assert _error(_preflight(server, f"/{bucket}", "http://a", "GET"))[1] == \
        "CORSResponse: CORS is not enabled for this bucket."


# -- actual requests --------------------------------------------------------------------------------
def _signed_get(server, path: str, origin: str | None):
    return signed_call(server, "GET", path, headers={"Origin": origin} if origin else {})


def test_actual_request_with_a_matching_origin(server, cors_bucket):
    response = _signed_get(server, f"/{cors_bucket}/page.txt", "http://anywhere")
    assert response.status_code == 200 and response.content == b"hello"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Access-Control-Allow-Methods"] == "GET, HEAD"
    assert response.headers["Vary"] == VARY


def test_actual_request_without_origin_or_match_has_no_cors_headers(server, cors_bucket):
    # No Origin; an Origin that no rule allows to DELETE.
    for method, origin, status in (("GET", None, 200), ("DELETE", "https://lab.example.com", 204)):
        response = signed_call(server, method, f"/{cors_bucket}/page.txt", headers={"Origin": origin} if origin else {})
        assert response.status_code == status
        assert not [name for name in response.headers if name.lower().startswith("access-control-")], method
    # The method S3 matches is Access-Control-Request-Method whenever a request sends one.
    response = signed_call(server, "GET", f"/{cors_bucket}/page.txt",
                           headers={"Origin": "http://anywhere", "Access-Control-Request-Method": "PUT"})
    assert "Access-Control-Allow-Origin" not in response.headers


def test_errors_carry_the_cors_headers(server, cors_bucket):
    missing = _signed_get(server, f"/{cors_bucket}/nothing-here", "http://anywhere")
    assert missing.status_code == 404 and _error(missing)[0] == "NoSuchKey"
    assert missing.headers["Access-Control-Allow-Origin"] == "*"
    # Unsigned, so refused; a browser still reads the refusal because the origin is allowed.
    refused = requests.put(f"{server.endpoint}/{cors_bucket}/up.txt", data=b"x", timeout=30,
                           headers={"Origin": "https://lab.example.com"})
    assert refused.status_code == 403
    assert refused.headers["Access-Control-Allow-Origin"] == "https://lab.example.com"
    assert refused.headers["Access-Control-Expose-Headers"] == "ETag, x-amz-version-id"


def test_a_browser_upload_flow(server, s3, cors_bucket):
    """What a web page does: a preflight, then the presigned PUT with its Origin, then reads the ETag."""
    origin = "https://notebook.example.com"
    url = s3.generate_presigned_url("put_object", Params={"Bucket": cors_bucket, "Key": "from-browser.txt",
                                                          "ContentType": "text/plain"})
    assert requests.options(url, headers={"Origin": origin, "Access-Control-Request-Method": "PUT",
                                          "Access-Control-Request-Headers": "content-type"},
                            timeout=30).status_code == 200
    put = requests.put(url, data=b"uploaded", headers={"Origin": origin, "Content-Type": "text/plain"}, timeout=30)
    assert put.status_code == 200, put.content
    assert put.headers["Access-Control-Allow-Origin"] == origin
    assert "ETag" in put.headers["Access-Control-Expose-Headers"]
    assert s3.get_object(Bucket=cors_bucket, Key="from-browser.txt")["Body"].read() == b"uploaded"


# -- matching, without a server ---------------------------------------------------------------------
def _configuration(*origins: str, headers: str = ""):
    allowed = "".join(f"<AllowedOrigin>{o}</AllowedOrigin>" for o in origins)
    allowed += "".join(f"<AllowedHeader>{h}</AllowedHeader>" for h in headers.split() if h)
    return parse(f"<CORSConfiguration><CORSRule><AllowedMethod>GET</AllowedMethod>{allowed}</CORSRule>"
                 "</CORSConfiguration>".encode())


@pytest.mark.parametrize(("pattern", "origin", "matches"), [
    ("*suffix", "foo.suffix", True), ("*suffix", "foo.suffix.get", False),
    ("start*end", "startend", True), ("start*end", "start12end", True), ("start*end", "0start12end", False),
    ("prefix*", "prefix", True), ("prefix*", "bla.prefix", False),
    ("https://a.example.com", "https://a.example.com", True), ("https://a.example.com", "https://A.example.com", False),
    ("http://a.b", "http://aXb", False),  # a dot is a dot
])
def test_origin_patterns(pattern, origin, matches):
    assert (_configuration(pattern).match(origin, "GET", []) is not None) == matches


_TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=126, exclude_characters="*<>&"), max_size=12)


@given(prefix=_TEXT, suffix=_TEXT, origin=_TEXT, wildcard=st.booleans())
def test_an_origin_pattern_is_a_prefix_and_a_suffix(prefix, suffix, origin, wildcard):
    """With a ``*`` a pattern matches what starts with the text before it and ends with the text
    after it, the two not overlapping; without one, only itself. No other character is special."""
    pattern = prefix + "*" + suffix if wildcard else prefix
    rule = _configuration(pattern.strip()).rules[0]
    pattern = rule.allowed_origins[0]
    before, star, after = pattern.partition("*")
    expected = (origin.startswith(before) and origin.endswith(after) and len(origin) >= len(before) + len(after)
                if star else origin == pattern)
    assert rule.matches(origin, "GET", []) == expected


def test_header_patterns_ignore_case():
    configuration = _configuration("*", headers="X-Amz-* Content-Type")
    wanted = requested_headers(" content-type ,X-AMZ-META-A,, x-amz-date")
    assert wanted == ["content-type", "x-amz-meta-a", "x-amz-date"]
    assert configuration.match("o", "GET", wanted) is not None
    assert configuration.match("o", "GET", ["authorization"]) is None
    assert configuration.match("o", "HEAD", []) is None


def test_unknown_elements_are_malformed():
    with pytest.raises(S3Error) as refused:
        parse(b"<CORSConfiguration><Rule/></CORSConfiguration>")
    assert refused.value.code == "MalformedXML"
