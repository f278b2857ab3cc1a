"""Bucket lifecycle configuration: PutBucketLifecycleConfiguration, GetBucketLifecycleConfiguration and
DeleteBucketLifecycle with boto3 and the minio SDK, the rules as Ceph's s3-tests send them coming back
unchanged, and every refusal AWS gives, with nothing stored."""

from __future__ import annotations

import base64
import datetime
import email.utils
import hashlib
import re
import zlib
from urllib.parse import urlparse

import pytest
from botocore.exceptions import ClientError
from minio import Minio
from minio.commonconfig import ENABLED, Filter
from minio.lifecycleconfig import Expiration, LifecycleConfig, Rule

from .conftest import ROOT_PASSWORD, ROOT_USER, signed_call

S3_NS = "http://s3.amazonaws.com/doc/2006-03-01/"


def error_code(excinfo) -> tuple[int, str]:
    response = excinfo.value.response
    return response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Code"]


def put_raw(server, bucket: str, document: str, headers: dict | None = None):
    body = document.encode()
    md5 = {"Content-MD5": base64.b64encode(hashlib.md5(body).digest()).decode()}
    return signed_call(server, "PUT", f"/{bucket}?lifecycle", body, headers=md5 if headers is None else headers)


def lifecycle_xml(*rules: str) -> str:
    return f'<LifecycleConfiguration xmlns="{S3_NS}">{"".join(rules)}</LifecycleConfiguration>'


def rule_xml(body: str, rule_id: str = "r1", status: str = "Enabled", prefix: str | None = "logs/") -> str:
    where = "" if prefix is None else f"<Prefix>{prefix}</Prefix>"
    return f"<Rule><ID>{rule_id}</ID>{where}<Status>{status}</Status>{body}</Rule>"


ROUND_TRIPS = {
    "legacy prefixes, as ceph's test_lifecycle_get": [
        {"ID": "test1/", "Expiration": {"Days": 31}, "Prefix": "test1/", "Status": "Enabled"},
        {"ID": "test2/", "Expiration": {"Days": 120}, "Prefix": "test2/", "Status": "Disabled"},
    ],
    "filter prefix, noncurrent and uploads": [
        {"ID": "all", "Filter": {"Prefix": "tmp/"}, "Status": "Enabled",
         "NoncurrentVersionExpiration": {"NoncurrentDays": 3, "NewerNoncurrentVersions": 2},
         "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 7}},
    ],
    "delete markers and an empty filter": [
        {"ID": "markers", "Filter": {}, "Status": "Enabled", "Expiration": {"ExpiredObjectDeleteMarker": True}},
    ],
    "tag, and sizes": [
        {"ID": "tagged", "Filter": {"Tag": {"Key": "class", "Value": "scratch"}}, "Status": "Enabled",
         "Expiration": {"Days": 1}},
        {"ID": "and", "Status": "Enabled", "Expiration": {"Days": 2},
         "Filter": {"And": {"Prefix": "a/", "Tags": [{"Key": "k1", "Value": "v1"}, {"Key": "k2", "Value": "v2"}],
                            "ObjectSizeGreaterThan": 10, "ObjectSizeLessThan": 5000}}},
        {"ID": "big", "Filter": {"ObjectSizeGreaterThan": 2000}, "Status": "Enabled", "Expiration": {"Days": 3}},
    ],
}


@pytest.mark.parametrize("rules", ROUND_TRIPS.values(), ids=ROUND_TRIPS.keys())
def test_rules_come_back_as_put(s3, bucket, rules):
    response = s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"] == rules


def test_a_date_comes_back_at_midnight_utc(s3, bucket):
    rules = [{"ID": "r", "Expiration": {"Date": "2017-09-27"}, "Prefix": "test1/", "Status": "Enabled"}]
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
    got = s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"][0]["Expiration"]["Date"]
    assert got == datetime.datetime(2017, 9, 27, tzinfo=datetime.UTC)


def test_rules_without_an_id_get_unique_ones(s3, bucket):
    rules = [{"Expiration": {"Days": 31}, "Prefix": "test1/", "Status": "Enabled"},
             {"Expiration": {"Days": 120}, "Prefix": "test2/", "Status": "Enabled"}]
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
    got = s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"]
    assert [r["Prefix"] for r in got] == ["test1/", "test2/"]
    assert all(r["ID"] for r in got) and got[0]["ID"] != got[1]["ID"]
    # The IDs are kept: asking again gives the same.
    assert s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"] == got


def test_get_and_delete_without_and_with_a_configuration(s3, bucket):
    with pytest.raises(ClientError) as excinfo:
        s3.get_bucket_lifecycle_configuration(Bucket=bucket)
    assert error_code(excinfo) == (404, "NoSuchLifecycleConfiguration")
    assert s3.delete_bucket_lifecycle(Bucket=bucket)["ResponseMetadata"]["HTTPStatusCode"] == 204
    rules = [{"ID": "r", "Expiration": {"Days": 1}, "Prefix": "", "Status": "Enabled"}]
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
    assert s3.delete_bucket_lifecycle(Bucket=bucket)["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError) as excinfo:
        s3.get_bucket_lifecycle_configuration(Bucket=bucket)
    assert error_code(excinfo) == (404, "NoSuchLifecycleConfiguration")


def test_a_missing_bucket(s3):
    with pytest.raises(ClientError) as excinfo:
        s3.get_bucket_lifecycle_configuration(Bucket="no-such-bucket-lifecycle")
    assert error_code(excinfo) == (404, "NoSuchBucket")
    rules = [{"ID": "r", "Expiration": {"Days": 1}, "Prefix": "", "Status": "Enabled"}]
    with pytest.raises(ClientError) as excinfo:
        s3.put_bucket_lifecycle_configuration(Bucket="no-such-bucket-lifecycle",
                                              LifecycleConfiguration={"Rules": rules})
    assert error_code(excinfo) == (404, "NoSuchBucket")


def test_the_minio_sdk(server, bucket):
    client = Minio(urlparse(server.endpoint).netloc, access_key=ROOT_USER, secret_key=ROOT_PASSWORD, secure=False)
    assert client.get_bucket_lifecycle(bucket) is None
    config = LifecycleConfig([Rule(ENABLED, rule_filter=Filter(prefix="logs/"), rule_id="logs",
                                   expiration=Expiration(days=30))])
    client.set_bucket_lifecycle(bucket, config)
    got = client.get_bucket_lifecycle(bucket).rules[0]
    assert (got.rule_id, got.status, got.rule_filter.prefix, got.expiration.days) == ("logs", ENABLED, "logs/", 30)
    client.delete_bucket_lifecycle(bucket)
    assert client.get_bucket_lifecycle(bucket) is None


REFUSALS = {
    "not XML": ("<LifecycleConfiguration><Rule>", "MalformedXML"),
    "another document": ("<VersioningConfiguration/>", "MalformedXML"),
    "no rule": (lifecycle_xml(), "MalformedXML"),
    "status in lower case": (lifecycle_xml(rule_xml("<Expiration><Days>1</Days></Expiration>", status="enabled")),
                             "MalformedXML"),
    "no status": (lifecycle_xml("<Rule><ID>r</ID><Prefix/><Expiration><Days>1</Days></Expiration></Rule>"),
                  "MalformedXML"),
    "days zero": (lifecycle_xml(rule_xml("<Expiration><Days>0</Days></Expiration>")), "InvalidArgument"),
    "days negative": (lifecycle_xml(rule_xml("<Expiration><Days>-3</Days></Expiration>")), "InvalidArgument"),
    "days not a number": (lifecycle_xml(rule_xml("<Expiration><Days>soon</Days></Expiration>")), "MalformedXML"),
    "days and date": (lifecycle_xml(rule_xml(
        "<Expiration><Days>1</Days><Date>2030-01-01T00:00:00Z</Date></Expiration>")), "MalformedXML"),
    "empty expiration": (lifecycle_xml(rule_xml("<Expiration></Expiration>")), "MalformedXML"),
    "date not at midnight": (lifecycle_xml(rule_xml("<Expiration><Date>2030-01-01T10:00:00Z</Date></Expiration>")),
                             "InvalidArgument"),
    "date not ISO 8601": (lifecycle_xml(rule_xml("<Expiration><Date>20200101x</Date></Expiration>")),
                          "InvalidArgument"),
    "delete marker with days": (lifecycle_xml(rule_xml(
        "<Expiration><Days>1</Days><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>")),
        "InvalidArgument"),
    "id too long": (lifecycle_xml(rule_xml("<Expiration><Days>1</Days></Expiration>", rule_id="a" * 256)),
                    "InvalidArgument"),
    "same id twice": (lifecycle_xml(rule_xml("<Expiration><Days>1</Days></Expiration>"),
                                    rule_xml("<Expiration><Days>2</Days></Expiration>", prefix="other/")),
                      "InvalidArgument"),
    "more than 1000 rules": (lifecycle_xml(*(rule_xml("<Expiration><Days>1</Days></Expiration>", rule_id=f"r{i}")
                                             for i in range(1001))), "InvalidArgument"),
    "no action": (lifecycle_xml(rule_xml("")), "InvalidRequest"),
    "prefix and filter": (lifecycle_xml(rule_xml(
        "<Filter><Prefix>a/</Prefix></Filter><Expiration><Days>1</Days></Expiration>")), "MalformedXML"),
    "a transition": (lifecycle_xml(rule_xml(
        "<Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition>")), "InvalidStorageClass"),
    "a noncurrent transition": (lifecycle_xml(rule_xml(
        "<NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays><StorageClass>GLACIER</StorageClass>"
        "</NoncurrentVersionTransition>")), "InvalidStorageClass"),
    "noncurrent days zero": (lifecycle_xml(rule_xml(
        "<NoncurrentVersionExpiration><NoncurrentDays>0</NoncurrentDays></NoncurrentVersionExpiration>")),
        "InvalidArgument"),
    "too many newer noncurrent versions": (lifecycle_xml(rule_xml(
        "<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays>"
        "<NewerNoncurrentVersions>101</NewerNoncurrentVersions></NoncurrentVersionExpiration>")), "InvalidArgument"),
    "upload days zero": (lifecycle_xml(rule_xml(
        "<AbortIncompleteMultipartUpload><DaysAfterInitiation>0</DaysAfterInitiation>"
        "</AbortIncompleteMultipartUpload>")), "InvalidArgument"),
    "uploads with a tag filter": (lifecycle_xml(rule_xml(
        "<Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><AbortIncompleteMultipartUpload>"
        "<DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload>", prefix=None)),
        "InvalidRequest"),
    "delete markers with a tag filter": (lifecycle_xml(rule_xml(
        "<Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter>"
        "<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>", prefix=None)),
        "InvalidRequest"),
    "a tag key twice": (lifecycle_xml(rule_xml(
        "<Filter><And><Tag><Key>k</Key><Value>1</Value></Tag><Tag><Key>k</Key><Value>2</Value></Tag></And></Filter>"
        "<Expiration><Days>1</Days></Expiration>", prefix=None)), "InvalidRequest"),
    "an unknown element": (lifecycle_xml(rule_xml("<Expiration><Days>1</Days></Expiration><Colour>red</Colour>")),
                           "MalformedXML"),
}


@pytest.mark.parametrize("document, code", REFUSALS.values(), ids=REFUSALS.keys())
def test_refusals_store_nothing(server, s3, bucket, document, code):
    kept = [{"ID": "kept", "Expiration": {"Days": 9}, "Prefix": "kept/", "Status": "Enabled"}]
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": kept})
    response = put_raw(server, bucket, document)
    assert response.status_code == 400, response.content
    assert f"<Code>{code}</Code>".encode() in response.content
    assert s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"] == kept


def test_the_body_must_carry_an_integrity_check(server, s3, bucket):
    document = lifecycle_xml(rule_xml("<Expiration><Days>1</Days></Expiration>"))
    response = put_raw(server, bucket, document, headers={})
    assert response.status_code == 400 and b"<Code>InvalidRequest</Code>" in response.content
    wrong = base64.b64encode(hashlib.md5(b"something else").digest()).decode()
    response = put_raw(server, bucket, document, headers={"Content-MD5": wrong})
    assert response.status_code == 400 and b"<Code>BadDigest</Code>" in response.content
    with pytest.raises(ClientError):
        s3.get_bucket_lifecycle_configuration(Bucket=bucket)
    # A flexible checksum will do instead of Content-MD5 (what newer SDKs send).
    crc = base64.b64encode(zlib.crc32(document.encode()).to_bytes(4, "big")).decode()
    assert put_raw(server, bucket, document, headers={"x-amz-checksum-crc32": crc}).status_code == 200
    assert s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"][0]["ID"] == "r1"


def expiration_header(response: dict) -> str | None:
    return response["ResponseMetadata"]["HTTPHeaders"].get("x-amz-expiration")


def test_objects_say_when_a_rule_expires_them(s3, bucket):
    rules = [{"ID": "days1", "Filter": {"Prefix": "days1/"}, "Status": "Enabled", "Expiration": {"Days": 1}},
             {"ID": "dated", "Prefix": "dated/", "Status": "Enabled", "Expiration": {"Date": "2100-01-01"}},
             {"ID": "off", "Prefix": "off/", "Status": "Disabled", "Expiration": {"Days": 1}}]
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
    written = s3.put_object(Bucket=bucket, Key="days1/a", Body=b"x")
    header = expiration_header(written)
    for response in (s3.head_object(Bucket=bucket, Key="days1/a"), s3.get_object(Bucket=bucket, Key="days1/a")):
        assert expiration_header(response) == header
    match = re.fullmatch(r'expiry-date="(.+)", rule-id="days1"', header or "")
    assert match, header
    # The midnight UTC after the object's last-modified time plus one day, as S3 counts.
    modified = s3.head_object(Bucket=bucket, Key="days1/a")["LastModified"]
    due = email.utils.parsedate_to_datetime(match.group(1))
    assert due == datetime.datetime.combine(modified.date() + datetime.timedelta(days=2), datetime.time(),
                                            tzinfo=datetime.UTC)
    dated = expiration_header(s3.put_object(Bucket=bucket, Key="dated/b", Body=b"x"))
    assert dated == 'expiry-date="Fri, 01 Jan 2100 00:00:00 GMT", rule-id="dated"'
    assert expiration_header(s3.put_object(Bucket=bucket, Key="off/c", Body=b"x")) is None
    assert expiration_header(s3.put_object(Bucket=bucket, Key="other", Body=b"x")) is None
    s3.delete_bucket_lifecycle(Bucket=bucket)
    assert expiration_header(s3.head_object(Bucket=bucket, Key="days1/a")) is None
