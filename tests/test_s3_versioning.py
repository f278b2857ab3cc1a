"""Bucket versioning through the S3 API, with boto3 and the minio SDK: configuration, version ids on
every write, reads of old versions, delete markers, null versions, ListObjectVersions paging,
DeleteObjects with versions, copies of old versions, emptying a bucket as `aws s3 rb --force` does,
the IAM actions of version requests, and table protection in a versioned warehouse."""

from __future__ import annotations

import io
import uuid
import xml.etree.ElementTree as ET
from urllib.parse import quote, urlencode, urlparse

import pytest
from botocore.exceptions import ClientError
from minio import Minio
from minio.commonconfig import ENABLED, CopySource
from minio.versioningconfig import VersioningConfig

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call, make_s3_client, make_user, signed_call

S3_NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"
PART = 5 * 1024 * 1024


def enable(s3, bucket: str, status: str = "Enabled") -> None:
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": status})


def body(s3, bucket: str, key: str, version_id: str | None = None) -> bytes:
    options = {"VersionId": version_id} if version_id else {}
    return s3.get_object(Bucket=bucket, Key=key, **options)["Body"].read()


def error_of(call, *args, **kwargs) -> dict:
    """The error response of a call that must fail: its code, status and headers."""
    with pytest.raises(ClientError) as excinfo:
        call(*args, **kwargs)
    response = excinfo.value.response
    return {"code": response["Error"]["Code"], "status": response["ResponseMetadata"]["HTTPStatusCode"],
            "headers": response["ResponseMetadata"]["HTTPHeaders"]}


def raw_page(server, bucket: str, **params) -> ET.Element:
    """One ListObjectVersions answer as XML, entries in document order (boto3 splits the kinds apart)."""
    query = urlencode({name.replace("_", "-"): value for name, value in params.items()}, quote_via=quote)
    response = signed_call(server, "GET", f"/{bucket}?versions" + (f"&{query}" if query else ""))
    assert response.status_code == 200, response.content
    return ET.fromstring(response.content)


def page_items(root: ET.Element) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(kind, key, version id) of the page's entries in order, and its common prefixes."""
    entries = [
        (child.tag.removeprefix(S3_NS), child.findtext(f"{S3_NS}Key"), child.findtext(f"{S3_NS}VersionId"))
        for child in root if child.tag in (f"{S3_NS}Version", f"{S3_NS}DeleteMarker")
    ]
    prefixes = [p.findtext(f"{S3_NS}Prefix") for p in root.findall(f"{S3_NS}CommonPrefixes")]
    return entries, prefixes


def all_versions(server, bucket: str, prefix: str = "") -> list[tuple[str, str, bool, bool]]:
    """(key, version id, is latest, is a delete marker) of every entry, in the server's order."""
    root = raw_page(server, bucket, prefix=prefix)
    assert root.findtext(f"{S3_NS}IsTruncated") == "false"
    return [
        (child.findtext(f"{S3_NS}Key"), child.findtext(f"{S3_NS}VersionId"),
         child.findtext(f"{S3_NS}IsLatest") == "true", child.tag == f"{S3_NS}DeleteMarker")
        for child in root if child.tag in (f"{S3_NS}Version", f"{S3_NS}DeleteMarker")
    ]


@pytest.fixture
def minio_client(server):
    return Minio(urlparse(server.endpoint).netloc, access_key=ROOT_USER, secret_key=ROOT_PASSWORD, secure=False)


# -- configuration -------------------------------------------------------------------------------
def test_versioning_is_enabled_and_suspended(s3, bucket):
    assert "Status" not in s3.get_bucket_versioning(Bucket=bucket)
    enable(s3, bucket)
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"
    enable(s3, bucket, "Suspended")
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Suspended"
    # MFA Delete disabled is what every bucket has: accepted
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled", "MFADelete": "Disabled"})
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"


@pytest.mark.parametrize("document", [
    b"<VersioningConfiguration><Status>Sometimes</Status></VersioningConfiguration>",
    b"<VersioningConfiguration></VersioningConfiguration>",
    b"<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Maybe</MfaDelete></VersioningConfiguration>",
    b"<VersioningConfiguration><Status>Enabled</Status>",
    b"<Versioning><Status>Enabled</Status></Versioning>",
    b"",
])
def test_malformed_versioning_configuration_changes_nothing(server, s3, bucket, document):
    response = signed_call(server, "PUT", f"/{bucket}?versioning", body=document)
    assert response.status_code == 400
    assert ET.fromstring(response.content).findtext("Code") == "MalformedXML"
    assert "Status" not in s3.get_bucket_versioning(Bucket=bucket)


def test_mfa_delete_is_refused(s3, bucket):
    refused = error_of(s3.put_bucket_versioning, Bucket=bucket,
                       VersioningConfiguration={"Status": "Enabled", "MFADelete": "Enabled"})
    assert (refused["status"], refused["code"]) == (403, "AccessDenied")
    assert "Status" not in s3.get_bucket_versioning(Bucket=bucket)


def test_versioning_of_a_missing_bucket(s3):
    assert error_of(s3.put_bucket_versioning, Bucket="no-such-bucket-here",
                    VersioningConfiguration={"Status": "Enabled"})["code"] == "NoSuchBucket"
    assert error_of(s3.list_object_versions, Bucket="no-such-bucket-here")["code"] == "NoSuchBucket"


# -- version ids on writes and reads ---------------------------------------------------------------
def test_every_write_makes_a_version_and_each_reads_back(server, s3, bucket):
    enable(s3, bucket)
    first = s3.put_object(Bucket=bucket, Key="k", Body=b"first")["VersionId"]
    second = s3.put_object(Bucket=bucket, Key="k", Body=b"second")["VersionId"]
    copied = s3.copy_object(Bucket=bucket, Key="k", CopySource={"Bucket": bucket, "Key": "k", "VersionId": first})
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k")["UploadId"]
    etag = s3.upload_part(Bucket=bucket, Key="k", UploadId=upload, PartNumber=1, Body=b"multi")["ETag"]
    completed = s3.complete_multipart_upload(Bucket=bucket, Key="k", UploadId=upload,
                                             MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]})
    ids = [first, second, copied["VersionId"], completed["VersionId"]]
    assert len(set(ids)) == 4 and "null" not in ids
    assert copied["CopySourceVersionId"] == first
    for version_id, content in zip(ids, [b"first", b"second", b"first", b"multi"], strict=True):
        got = s3.get_object(Bucket=bucket, Key="k", VersionId=version_id)
        assert (got["Body"].read(), got["VersionId"]) == (content, version_id)
        assert s3.head_object(Bucket=bucket, Key="k", VersionId=version_id)["ContentLength"] == len(content)
    latest = s3.get_object(Bucket=bucket, Key="k")
    assert (latest["Body"].read(), latest["VersionId"]) == (b"multi", ids[-1])
    assert all_versions(server, bucket) == [("k", version_id, version_id == ids[-1], False) for version_id in reversed(ids)]


def test_a_bucket_never_versioned_names_no_versions(server, s3, bucket):
    put = s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    assert "VersionId" not in put
    assert "VersionId" not in s3.get_object(Bucket=bucket, Key="k")
    # ... but lists its objects as null versions, and answers to the null version id
    assert all_versions(server, bucket) == [("k", "null", True, False)]
    assert body(s3, bucket, "k", "null") == b"x"
    assert error_of(s3.get_object, Bucket=bucket, Key="k", VersionId="0" * 32)["code"] == "NoSuchVersion"
    deleted = s3.delete_object(Bucket=bucket, Key="k")
    assert "DeleteMarker" not in deleted and "VersionId" not in deleted
    assert "Versions" not in s3.list_object_versions(Bucket=bucket)


def test_get_object_attributes_of_a_version(s3, bucket):
    enable(s3, bucket)
    old = s3.put_object(Bucket=bucket, Key="k", Body=b"old")["VersionId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"newer")
    attributes = s3.get_object_attributes(Bucket=bucket, Key="k", VersionId=old, ObjectAttributes=["ObjectSize"])
    assert (attributes["ObjectSize"], attributes["VersionId"]) == (3, old)
    assert s3.get_object_attributes(Bucket=bucket, Key="k", ObjectAttributes=["ObjectSize"])["ObjectSize"] == 5


# -- delete markers ----------------------------------------------------------------------------------
def test_delete_markers_hide_the_object_until_removed(server, s3, bucket):
    enable(s3, bucket)
    kept = s3.put_object(Bucket=bucket, Key="k", Body=b"kept")["VersionId"]
    deleted = s3.delete_object(Bucket=bucket, Key="k")
    marker = deleted["VersionId"]
    assert deleted["DeleteMarker"] is True and marker not in (kept, "null")

    for call in (s3.get_object, s3.head_object):
        hidden = error_of(call, Bucket=bucket, Key="k")
        assert hidden["status"] == 404
        assert hidden["headers"]["x-amz-delete-marker"] == "true"
        assert hidden["headers"]["x-amz-version-id"] == marker
        # the marker itself has nothing to read: 405, with its id and date
        of_marker = error_of(call, Bucket=bucket, Key="k", VersionId=marker)
        assert of_marker["status"] == 405
        assert of_marker["headers"]["x-amz-delete-marker"] == "true"
        assert of_marker["headers"]["x-amz-version-id"] == marker
        assert "last-modified" in of_marker["headers"]
    assert error_of(s3.get_object, Bucket=bucket, Key="k")["code"] == "NoSuchKey"
    assert error_of(s3.get_object, Bucket=bucket, Key="k", VersionId=marker)["code"] == "MethodNotAllowed"
    assert body(s3, bucket, "k", kept) == b"kept"  # the old version is still there
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)
    assert all_versions(server, bucket) == [("k", marker, True, True), ("k", kept, False, False)]

    removed = s3.delete_object(Bucket=bucket, Key="k", VersionId=marker)
    assert removed["DeleteMarker"] is True and removed["VersionId"] == marker
    assert body(s3, bucket, "k") == b"kept"
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["k"]


def test_a_missing_key_says_it_is_no_delete_marker(s3, bucket):
    missing = error_of(s3.head_object, Bucket=bucket, Key="never-written")
    assert (missing["status"], missing["headers"]["x-amz-delete-marker"]) == (404, "false")


def test_deleting_versions_for_good(s3, bucket):
    enable(s3, bucket)
    old = s3.put_object(Bucket=bucket, Key="k", Body=b"old")["VersionId"]
    new = s3.put_object(Bucket=bucket, Key="k", Body=b"new")["VersionId"]
    gone = s3.delete_object(Bucket=bucket, Key="k", VersionId=new)
    assert gone["VersionId"] == new and "DeleteMarker" not in gone
    assert body(s3, bucket, "k") == b"old"  # the one before is the latest again
    assert error_of(s3.get_object, Bucket=bucket, Key="k", VersionId=new)["code"] == "NoSuchVersion"
    s3.delete_object(Bucket=bucket, Key="k", VersionId=new)  # a missing version is no error
    s3.delete_object(Bucket=bucket, Key="k", VersionId=old)
    assert error_of(s3.head_object, Bucket=bucket, Key="k")["headers"]["x-amz-delete-marker"] == "false"
    assert "Versions" not in s3.list_object_versions(Bucket=bucket)


def test_conditional_delete_of_a_version(s3, bucket):
    enable(s3, bucket)
    put = s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    refused = error_of(s3.delete_object, Bucket=bucket, Key="k", VersionId=put["VersionId"], IfMatch='"0"')
    assert (refused["status"], refused["code"]) == (412, "PreconditionFailed")
    s3.delete_object(Bucket=bucket, Key="k", VersionId=put["VersionId"], IfMatch=put["ETag"])
    assert "Versions" not in s3.list_object_versions(Bucket=bucket)
    # A version already gone: nothing to remove and nothing to check, as S3 answers.
    gone = s3.delete_object(Bucket=bucket, Key="k", VersionId=put["VersionId"], IfMatch=put["ETag"])
    assert gone["ResponseMetadata"]["HTTPStatusCode"] == 204


@pytest.mark.parametrize("path", ["/{bucket}/k?versionId=", "/{bucket}/k?versionId"])
@pytest.mark.parametrize("method", ["GET", "HEAD", "DELETE"])
def test_an_empty_version_id_is_invalid(server, s3, bucket, path, method):
    s3.put_object(Bucket=bucket, Key="k", Body=b"kept")
    response = signed_call(server, method, path.format(bucket=bucket))
    assert response.status_code == 400
    if method != "HEAD":
        assert ET.fromstring(response.content).findtext("Code") == "InvalidArgument"
    assert body(s3, bucket, "k") == b"kept"


# -- null versions -------------------------------------------------------------------------------------
def test_objects_written_before_versioning_are_the_null_version(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"before")
    enable(s3, bucket)
    assert s3.head_object(Bucket=bucket, Key="k")["VersionId"] == "null"
    after = s3.put_object(Bucket=bucket, Key="k", Body=b"after")["VersionId"]
    assert all_versions(server, bucket) == [("k", after, True, False), ("k", "null", False, False)]
    assert body(s3, bucket, "k", "null") == b"before"
    s3.delete_object(Bucket=bucket, Key="k", VersionId=after)
    assert body(s3, bucket, "k") == b"before"
    s3.delete_object(Bucket=bucket, Key="k", VersionId="null")
    assert error_of(s3.get_object, Bucket=bucket, Key="k")["code"] == "NoSuchKey"


def test_a_suspended_bucket_writes_and_replaces_the_null_version(server, s3, bucket):
    enable(s3, bucket)
    kept = s3.put_object(Bucket=bucket, Key="k", Body=b"versioned")["VersionId"]
    enable(s3, bucket, "Suspended")
    first = s3.put_object(Bucket=bucket, Key="k", Body=b"null one")
    assert "VersionId" not in first  # the null version goes unnamed on writes
    s3.put_object(Bucket=bucket, Key="k", Body=b"null two")
    assert all_versions(server, bucket) == [("k", "null", True, False), ("k", kept, False, False)]
    assert body(s3, bucket, "k", "null") == b"null two"
    # a delete makes the null version a delete marker
    deleted = s3.delete_object(Bucket=bucket, Key="k")
    assert deleted["DeleteMarker"] is True and deleted["VersionId"] == "null"
    assert all_versions(server, bucket) == [("k", "null", True, True), ("k", kept, False, False)]
    assert body(s3, bucket, "k", kept) == b"versioned"


# -- listing -------------------------------------------------------------------------------------------
def _fill(s3, bucket: str) -> list[tuple[str, str, str]]:
    """25 versions and delete markers over keys at several levels; (kind, key, version id) as the
    listing orders them: keys ascending, each key's versions newest first."""
    enable(s3, bucket)
    made: dict[str, list[tuple[str, str]]] = {}
    plan = [("a", 4), ("b/1", 3), ("b/2", 2), ("b/3/x", 2), ("c", 5), ("d/1", 3), ("e", 2)]
    for round_number in range(5):
        for key, count in plan:
            if round_number < count:
                version = s3.put_object(Bucket=bucket, Key=key, Body=key.encode())["VersionId"]
                made.setdefault(key, []).append(("Version", version))
    for key in ("a", "b/2", "d/1", "e"):
        made[key].append(("DeleteMarker", s3.delete_object(Bucket=bucket, Key=key)["VersionId"]))
    return [(kind, key, version) for key in sorted(made) for kind, version in reversed(made[key])]


@pytest.mark.parametrize("delimiter", ["", "/"])
def test_version_pages_visit_every_entry_once_in_order(server, s3, bucket, delimiter):
    expected = _fill(s3, bucket)
    assert len(expected) == 25
    full_entries, full_prefixes = page_items(raw_page(server, bucket, delimiter=delimiter))
    if delimiter:
        assert full_prefixes == ["b/", "d/"]
        assert full_entries == [entry for entry in expected if "/" not in entry[1]]
    else:
        assert (full_entries, full_prefixes) == (expected, [])
    for max_keys in range(1, 8):
        entries, prefixes, markers = [], [], {}
        while True:
            root = raw_page(server, bucket, delimiter=delimiter, max_keys=max_keys, **markers)
            page_entries, page_prefixes = page_items(root)
            assert 0 < len(page_entries) + len(page_prefixes) <= max_keys
            entries += page_entries
            prefixes += page_prefixes
            if root.findtext(f"{S3_NS}IsTruncated") == "false":
                assert root.find(f"{S3_NS}NextKeyMarker") is None
                break
            markers = {"key_marker": root.findtext(f"{S3_NS}NextKeyMarker")}
            if root.find(f"{S3_NS}NextVersionIdMarker") is not None:
                markers["version_id_marker"] = root.findtext(f"{S3_NS}NextVersionIdMarker")
        assert (entries, prefixes) == (full_entries, full_prefixes), max_keys


def test_version_listing_with_boto3_paging_prefix_and_markers(s3, bucket):
    expected = _fill(s3, bucket)
    versions, markers = [], []
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket, PaginationConfig={"PageSize": 4}):
        versions += page.get("Versions", [])
        markers += page.get("DeleteMarkers", [])
    for kind, listed in (("Version", versions), ("DeleteMarker", markers)):
        assert [(e["Key"], e["VersionId"]) for e in listed] == [(k, v) for t, k, v in expected if t == kind]
    # each key's newest entry is its latest, delete markers included
    latest = {e["Key"]: e["VersionId"] for e in versions + markers if e["IsLatest"]}
    assert latest == {key: next(v for _, k, v in expected if k == key) for _, key, _ in expected}
    page = s3.list_object_versions(Bucket=bucket, Prefix="b/", Delimiter="/")
    assert [p["Prefix"] for p in page["CommonPrefixes"]] == ["b/3/"]
    assert sorted({v["Key"] for v in page["Versions"]}) == ["b/1", "b/2"]
    # resuming inside a key: after the version named, that key's older versions come first
    c_versions = [version for _, key, version in expected if key == "c"]
    page = s3.list_object_versions(Bucket=bucket, KeyMarker="c", VersionIdMarker=c_versions[1], MaxKeys=4)
    assert [(v["Key"], v["VersionId"]) for v in page["Versions"]] == [("c", v) for v in c_versions[2:]]
    d_marker = next(v for kind, k, v in expected if k == "d/1" and kind == "DeleteMarker")
    assert [(m["Key"], m["VersionId"]) for m in page["DeleteMarkers"]] == [("d/1", d_marker)]
    assert (page["IsTruncated"], page["NextKeyMarker"], page["NextVersionIdMarker"]) == (True, "d/1", d_marker)
    # a key marker alone resumes after all of that key's versions
    page = s3.list_object_versions(Bucket=bucket, KeyMarker="d/1", MaxKeys=1)
    assert [m["Key"] for m in page["DeleteMarkers"]] == ["e"]


def test_version_listing_url_encodes_keys(server, s3, bucket):
    enable(s3, bucket)
    s3.put_object(Bucket=bucket, Key="a b/\u00e9", Body=b"x")
    root = raw_page(server, bucket, encoding_type="url", prefix="a b/")
    assert root.findtext(f"{S3_NS}EncodingType") == "url"
    assert root.findtext(f"{S3_NS}Prefix") == "a%20b/"
    assert page_items(root)[0][0][1] == "a%20b/%C3%A9"
    # boto3 asks for url encoding and decodes it
    assert s3.list_object_versions(Bucket=bucket)["Versions"][0]["Key"] == "a b/\u00e9"


def test_version_listing_entries_carry_what_s3_lists(s3, bucket):
    enable(s3, bucket)
    put = s3.put_object(Bucket=bucket, Key="k", Body=b"12345", ChecksumAlgorithm="SHA256")
    s3.delete_object(Bucket=bucket, Key="k")
    page = s3.list_object_versions(Bucket=bucket)
    version, marker = page["Versions"][0], page["DeleteMarkers"][0]
    head = s3.head_object(Bucket=bucket, Key="k", VersionId=put["VersionId"])
    assert (version["ETag"], version["Size"], version["StorageClass"]) == (put["ETag"], 5, "STANDARD")
    assert version["LastModified"].replace(microsecond=0) == head["LastModified"]
    assert version["ChecksumAlgorithm"] == ["SHA256"]
    assert version["Owner"]["DisplayName"] == ROOT_USER and marker["Owner"]["ID"] == version["Owner"]["ID"]
    assert (version["IsLatest"], marker["IsLatest"]) == (False, True)
    assert page["Name"] == bucket and page["MaxKeys"] == 1000 and page["IsTruncated"] is False


@pytest.mark.parametrize("query,code", [
    ("version-id-marker=abc", "InvalidArgument"),
    ("max-keys=-1", "InvalidArgument"),
    ("encoding-type=base64", "InvalidArgument"),
])
def test_bad_version_listing_requests(server, bucket, query, code):
    response = signed_call(server, "GET", f"/{bucket}?versions&{query}")
    assert response.status_code == 400
    assert ET.fromstring(response.content).findtext("Code") == code


# -- DeleteObjects ---------------------------------------------------------------------------------
def test_delete_objects_with_versions(server, s3, bucket):
    enable(s3, bucket)
    first = s3.put_object(Bucket=bucket, Key="k", Body=b"1")["VersionId"]
    second = s3.put_object(Bucket=bucket, Key="k", Body=b"2")["VersionId"]
    other = s3.put_object(Bucket=bucket, Key="other", Body=b"o")["VersionId"]
    result = s3.delete_objects(Bucket=bucket, Delete={"Objects": [
        {"Key": "k", "VersionId": first}, {"Key": "other"}, {"Key": "k", "VersionId": "0" * 32}]})
    deleted = {(d["Key"], d.get("VersionId")): d for d in result["Deleted"]}
    assert "Errors" not in result and len(deleted) == 3
    assert "DeleteMarker" not in deleted[("k", first)]
    made_marker = deleted[("other", None)]
    assert made_marker["DeleteMarker"] is True and made_marker["DeleteMarkerVersionId"]
    assert all_versions(server, bucket) == [("k", second, True, False),
                                            ("other", made_marker["DeleteMarkerVersionId"], True, True),
                                            ("other", other, False, False)]
    # removing a delete marker names it as one
    result = s3.delete_objects(Bucket=bucket, Delete={"Objects": [
        {"Key": "other", "VersionId": made_marker["DeleteMarkerVersionId"]}]})
    removed = result["Deleted"][0]
    assert removed["DeleteMarker"] is True
    assert removed["DeleteMarkerVersionId"] == removed["VersionId"] == made_marker["DeleteMarkerVersionId"]
    assert body(s3, bucket, "other") == b"o"
    # quiet: nothing but errors
    quiet = s3.delete_objects(Bucket=bucket, Delete={"Quiet": True, "Objects": [{"Key": "k", "VersionId": second}]})
    assert "Deleted" not in quiet and "Errors" not in quiet
    assert error_of(s3.get_object, Bucket=bucket, Key="k")["code"] == "NoSuchKey"


def test_conditional_deletes_in_a_batch(s3, bucket):
    enable(s3, bucket)
    put = s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    refused = s3.delete_objects(Bucket=bucket, Delete={"Objects": [
        {"Key": "k", "VersionId": put["VersionId"], "ETag": '"0"'},
        {"Key": "k", "VersionId": put["VersionId"], "Size": 1},  # a condition this server cannot check
    ]})
    assert [error["Code"] for error in refused["Errors"]] == ["PreconditionFailed", "NotImplemented"]
    assert body(s3, bucket, "k", put["VersionId"]) == b"x"
    done = s3.delete_objects(Bucket=bucket, Delete={"Objects": [
        {"Key": "k", "VersionId": put["VersionId"], "ETag": put["ETag"]}]})
    assert done["Deleted"][0]["VersionId"] == put["VersionId"] and "Errors" not in done
    # nor does a single delete drop a condition it cannot check
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    assert error_of(s3.delete_object, Bucket=bucket, Key="k", IfMatchSize=1)["code"] == "NotImplemented"
    assert body(s3, bucket, "k") == b"x"


def test_delete_objects_reports_an_empty_version_id_per_key(server, s3, bucket):
    enable(s3, bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"kept")
    document = (b"<Delete><Object><Key>k</Key><VersionId></VersionId></Object>"
                b"<Object><Key>gone</Key></Object></Delete>")
    response = signed_call(server, "POST", f"/{bucket}?delete", body=document)
    assert response.status_code == 200
    root = ET.fromstring(response.content)
    assert root.find(f"{S3_NS}Error/{S3_NS}Code").text == "InvalidArgument"
    assert root.find(f"{S3_NS}Deleted/{S3_NS}Key").text == "gone"
    assert body(s3, bucket, "k") == b"kept"


# -- copies of old versions ----------------------------------------------------------------------
def test_copy_and_part_copy_from_an_old_version(s3, bucket):
    enable(s3, bucket)
    old = s3.put_object(Bucket=bucket, Key="src", Body=b"o" * PART)["VersionId"]
    s3.put_object(Bucket=bucket, Key="src", Body=b"new")
    other = f"plain-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=other)  # never versioned: the copy gets no version id
    copied = s3.copy_object(Bucket=other, Key="dst", CopySource={"Bucket": bucket, "Key": "src", "VersionId": old})
    assert copied["CopySourceVersionId"] == old and "VersionId" not in copied
    assert body(s3, other, "dst") == b"o" * PART

    upload = s3.create_multipart_upload(Bucket=bucket, Key="assembled")["UploadId"]
    part = s3.upload_part_copy(Bucket=bucket, Key="assembled", UploadId=upload, PartNumber=1,
                               CopySource={"Bucket": bucket, "Key": "src", "VersionId": old})
    assert part["CopySourceVersionId"] == old
    last = s3.upload_part_copy(Bucket=bucket, Key="assembled", UploadId=upload, PartNumber=2,
                               CopySource={"Bucket": bucket, "Key": "src"})
    assert last["CopySourceVersionId"] != old
    s3.complete_multipart_upload(Bucket=bucket, Key="assembled", UploadId=upload, MultipartUpload={"Parts": [
        {"PartNumber": 1, "ETag": part["CopyPartResult"]["ETag"]},
        {"PartNumber": 2, "ETag": last["CopyPartResult"]["ETag"]}]})
    assert body(s3, bucket, "assembled") == b"o" * PART + b"new"


def test_restoring_an_old_version_by_copying_it_over_its_key(server, s3, bucket):
    enable(s3, bucket)
    old = s3.put_object(Bucket=bucket, Key="k", Body=b"good")["VersionId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"bad")
    restored = s3.copy_object(Bucket=bucket, Key="k", CopySource={"Bucket": bucket, "Key": "k", "VersionId": old})
    assert body(s3, bucket, "k") == b"good" and restored["VersionId"] != old
    assert len(all_versions(server, bucket)) == 3


def test_copy_sources_that_are_no_content(s3, bucket):
    enable(s3, bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    marker = s3.delete_object(Bucket=bucket, Key="k")["VersionId"]
    of_marker = error_of(s3.copy_object, Bucket=bucket, Key="dst",
                         CopySource={"Bucket": bucket, "Key": "k", "VersionId": marker})
    assert (of_marker["status"], of_marker["code"]) == (400, "InvalidRequest")
    assert error_of(s3.copy_object, Bucket=bucket, Key="dst",
                    CopySource={"Bucket": bucket, "Key": "k"})["code"] == "NoSuchKey"
    assert error_of(s3.copy_object, Bucket=bucket, Key="dst",
                    CopySource={"Bucket": bucket, "Key": "k", "VersionId": "0" * 32})["code"] == "NoSuchVersion"
    assert "Versions" not in s3.list_object_versions(Bucket=bucket, Prefix="dst")


def test_copy_source_keys_keep_their_encoded_question_marks(s3, bucket):
    enable(s3, bucket)
    version = s3.put_object(Bucket=bucket, Key="foo?bar", Body=b"q")["VersionId"]
    s3.copy_object(Bucket=bucket, Key="bar&foo", CopySource={"Bucket": bucket, "Key": "foo?bar", "VersionId": version})
    assert body(s3, bucket, "bar&foo") == b"q"


# -- emptying a bucket, as `mc rb --force` and boto3's `bucket.object_versions.delete()` do ---------------
def _bucket_with_history(s3) -> str:
    name = f"emptied-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=name)
    enable(s3, name)
    for i in range(30):
        s3.put_object(Bucket=name, Key=f"k{i % 7}", Body=b"x")
    s3.delete_object(Bucket=name, Key="k1")
    s3.delete_objects(Bucket=name, Delete={"Objects": [{"Key": f"k{i}"} for i in range(7)]})
    assert "Contents" not in s3.list_objects_v2(Bucket=name)
    # versions and delete markers keep a bucket, as S3 says
    assert error_of(s3.delete_bucket, Bucket=name)["code"] == "BucketNotEmpty"
    return name


def _delete_entries(s3, bucket: str, page: dict) -> None:
    doomed = [{"Key": v["Key"], "VersionId": v["VersionId"]} for v in page.get("Versions", []) + page.get("DeleteMarkers", [])]
    assert "Errors" not in s3.delete_objects(Bucket=bucket, Delete={"Objects": doomed, "Quiet": True})


def test_emptying_a_versioned_bucket_then_deleting_it(s3):
    name = _bucket_with_history(s3)
    pages = list(s3.get_paginator("list_object_versions").paginate(Bucket=name, PaginationConfig={"PageSize": 9}))
    assert sum(len(p.get("Versions", [])) + len(p.get("DeleteMarkers", [])) for p in pages) == 38
    for page in pages:
        _delete_entries(s3, name, page)
    s3.delete_bucket(Bucket=name)
    assert error_of(s3.head_bucket, Bucket=name)["status"] == 404


def test_emptying_page_by_page_while_listing(s3):
    """Each page deleted before the next is asked for: the next page resumes after a version that is gone."""
    name = _bucket_with_history(s3)
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=name, PaginationConfig={"PageSize": 9}):
        _delete_entries(s3, name, page)
    s3.delete_bucket(Bucket=name)
    assert error_of(s3.head_bucket, Bucket=name)["status"] == 404


# -- the minio SDK ---------------------------------------------------------------------------------------
def test_minio_sdk_versions(minio_client, s3, bucket):
    client = minio_client
    client.set_bucket_versioning(bucket, VersioningConfig(ENABLED))
    assert client.get_bucket_versioning(bucket).status == ENABLED
    first = client.put_object(bucket, "k", io.BytesIO(b"one"), 3).version_id
    second = client.put_object(bucket, "k", io.BytesIO(b"two!"), 4).version_id
    assert first and second and first != second
    assert client.get_object(bucket, "k", version_id=first).read() == b"one"
    assert client.stat_object(bucket, "k", version_id=first).size == 3
    client.copy_object(bucket, "copy", CopySource(bucket, "k", version_id=first))
    assert client.get_object(bucket, "copy").read() == b"one"
    client.remove_object(bucket, "k")  # a delete marker
    listed = [(o.version_id, o.is_latest, o.is_delete_marker)
              for o in client.list_objects(bucket, prefix="k", include_version=True)]
    marker = next(version_id for version_id, _, is_marker in listed if is_marker)
    assert sorted(listed) == sorted([(second, "false", False), (first, "false", False), (marker, "true", True)])
    for version_id, _, _ in listed:
        client.remove_object(bucket, "k", version_id=version_id)
    assert list(client.list_objects(bucket, prefix="k", include_version=True)) == []


# -- IAM actions -------------------------------------------------------------------------------------------
def test_version_requests_are_authorized_as_their_own_actions(server, s3, bucket):
    enable(s3, bucket)
    old = s3.put_object(Bucket=bucket, Key="k", Body=b"old")["VersionId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"new")
    resources = [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]
    # A MinIO-style reader (GetObject, ListBucket) reads and lists versions, as on MinIO; a deleter of
    # objects cannot remove versions for good without s3:DeleteObjectVersion.
    user = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket", "s3:DeleteObject"], "Resource": resources},
        {"Effect": "Deny", "Action": ["s3:GetObjectVersionAttributes"], "Resource": resources}]})
    client = make_s3_client(server.endpoint, *user)
    assert body(client, bucket, "k", old) == b"old"
    assert len(client.list_object_versions(Bucket=bucket)["Versions"]) == 2
    assert error_of(client.delete_object, Bucket=bucket, Key="k", VersionId=old)["code"] == "AccessDenied"
    result = client.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "k", "VersionId": old}]})
    assert result["Errors"][0]["Code"] == "AccessDenied" and result["Errors"][0]["VersionId"] == old
    assert client.delete_object(Bucket=bucket, Key="k")["DeleteMarker"] is True
    assert error_of(client.get_object_attributes, Bucket=bucket, Key="k", VersionId=old,
                    ObjectAttributes=["ETag"])["code"] == "AccessDenied"
    assert error_of(client.put_bucket_versioning, Bucket=bucket,
                    VersioningConfiguration={"Status": "Suspended"})["code"] == "AccessDenied"
    # a Deny of the version action holds even where the broader name allows
    denier = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"], "Resource": resources},
        {"Effect": "Deny", "Action": ["s3:GetObjectVersion", "s3:ListBucketVersions"], "Resource": resources}]})
    denied = make_s3_client(server.endpoint, *denier)
    assert error_of(denied.get_object, Bucket=bucket, Key="k", VersionId=old)["code"] == "AccessDenied"
    assert error_of(denied.copy_object, Bucket=bucket, Key="c",
                    CopySource={"Bucket": bucket, "Key": "k", "VersionId": old})["code"] == "AccessDenied"
    assert error_of(denied.list_object_versions, Bucket=bucket)["code"] == "AccessDenied"
    assert denied.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


# -- table protection in a versioned warehouse ---------------------------------------------------------
def test_table_files_in_a_versioned_warehouse(server, s3):
    """A table's current files cannot be hidden behind a delete marker nor have their current version
    removed; their noncurrent versions may go."""
    warehouse = f"versioned-wh-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] in (200, 201)
    enable(s3, warehouse)
    assert catalog_call(server, "POST", f"/v1/{warehouse}/namespaces", {"namespace": ["ns"]})[0] == 200
    schema = {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "type": "long", "required": True}]}
    status, created = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces/ns/tables",
                                   {"name": "made", "schema": schema})
    assert status == 200, created
    document = body(s3, warehouse, created["metadata-location"].removeprefix(f"s3://{warehouse}/"))
    # A metadata file written twice, then registered: its first version is noncurrent.
    key = "registered/metadata/00000-registered.metadata.json"
    noncurrent = s3.put_object(Bucket=warehouse, Key=key, Body=document)["VersionId"]
    current = s3.put_object(Bucket=warehouse, Key=key, Body=document)["VersionId"]
    status, registered = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces/ns/register",
                                      {"name": "registered", "metadata-location": f"s3://{warehouse}/{key}"})
    assert status == 200, registered
    for options in ({}, {"VersionId": current}):
        assert error_of(s3.delete_object, Bucket=warehouse, Key=key, **options)["code"] == "AccessDenied"
    result = s3.delete_objects(Bucket=warehouse, Delete={"Objects": [{"Key": key, "VersionId": current}]})
    assert result["Errors"][0]["Code"] == "AccessDenied"
    s3.delete_object(Bucket=warehouse, Key=key, VersionId=noncurrent)
    assert all_versions(server, warehouse, prefix=key) == [(key, current, True, False)]
    assert catalog_call(server, "GET", f"/v1/{warehouse}/namespaces/ns/tables/registered")[0] == 200
