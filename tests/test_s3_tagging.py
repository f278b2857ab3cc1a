"""Object and bucket tagging through the S3 API with boto3: ?tagging Put/Get/Delete (of the latest
version and of a named one), x-amz-tagging on PutObject, CopyObject (with its directive) and multipart
uploads, x-amz-tagging-count on reads, S3's limits and errors, the permissions tags take, and the
minio SDK's tagging calls."""

from __future__ import annotations

import io
from urllib.parse import urlparse

import pytest
from botocore.exceptions import ClientError
from minio import Minio
from minio.commonconfig import Tags

from .conftest import ROOT_PASSWORD, ROOT_USER, make_s3_client, make_user, signed_call


def error_of(call, **kwargs) -> tuple[int, str]:
    with pytest.raises(ClientError) as excinfo:
        call(**kwargs)
    response = excinfo.value.response
    return response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Code"]


def tag_set(tags: dict[str, str]) -> dict:
    return {"TagSet": [{"Key": key, "Value": value} for key, value in tags.items()]}


def tags_of(s3, bucket: str, key: str, **kwargs) -> dict[str, str]:
    answer = s3.get_object_tagging(Bucket=bucket, Key=key, **kwargs)
    return {tag["Key"]: tag["Value"] for tag in answer["TagSet"]}


def test_put_get_and_delete_object_tagging(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    assert tags_of(s3, bucket, "k") == {}
    assert "x-amz-tagging-count" not in s3.head_object(Bucket=bucket, Key="k")["ResponseMetadata"]["HTTPHeaders"]
    s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tag_set({"b": "2", "a": "1", "empty": ""}))
    answer = s3.get_object_tagging(Bucket=bucket, Key="k")
    assert answer["TagSet"] == [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}, {"Key": "empty", "Value": ""}]
    for read in (s3.head_object, s3.get_object):
        assert read(Bucket=bucket, Key="k")["ResponseMetadata"]["HTTPHeaders"]["x-amz-tagging-count"] == "3"
    s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tag_set({"only": "this"}))
    assert tags_of(s3, bucket, "k") == {"only": "this"}
    answer = s3.delete_object_tagging(Bucket=bucket, Key="k")
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert tags_of(s3, bucket, "k") == {}
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"x"


def test_x_amz_tagging_on_put_copy_and_multipart(s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"data", Tagging="project=lake&team=data%20eng&flag")
    assert tags_of(s3, bucket, "src") == {"project": "lake", "team": "data eng", "flag": ""}
    s3.copy_object(Bucket=bucket, Key="kept", CopySource={"Bucket": bucket, "Key": "src"})
    assert tags_of(s3, bucket, "kept") == {"project": "lake", "team": "data eng", "flag": ""}
    s3.copy_object(
        Bucket=bucket, Key="replaced", CopySource={"Bucket": bucket, "Key": "src"},
        TaggingDirective="REPLACE", Tagging="new=1",
    )  # fmt: skip
    assert tags_of(s3, bucket, "replaced") == {"new": "1"}
    s3.copy_object(
        Bucket=bucket, Key="cleared", CopySource={"Bucket": bucket, "Key": "src"}, TaggingDirective="REPLACE"
    )
    assert tags_of(s3, bucket, "cleared") == {}
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", Tagging="Hello=World&foo=bar")["UploadId"]
    etag = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1, Body=b"part")["ETag"]
    s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]}
    )
    answer = s3.get_object_tagging(Bucket=bucket, Key="mp")
    assert answer["TagSet"] == [{"Key": "Hello", "Value": "World"}, {"Key": "foo", "Value": "bar"}]


def test_tags_belong_to_a_version(s3, bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    first = s3.put_object(Bucket=bucket, Key="k", Body=b"1", Tagging="gen=1")["VersionId"]
    second = s3.put_object(Bucket=bucket, Key="k", Body=b"2")["VersionId"]
    assert tags_of(s3, bucket, "k") == {}
    assert tags_of(s3, bucket, "k", VersionId=first) == {"gen": "1"}
    answer = s3.put_object_tagging(Bucket=bucket, Key="k", VersionId=first, Tagging=tag_set({"gen": "one"}))
    assert answer["VersionId"] == first
    answer = s3.get_object_tagging(Bucket=bucket, Key="k", VersionId=first)
    assert answer["VersionId"] == first and answer["TagSet"] == [{"Key": "gen", "Value": "one"}]
    assert s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tag_set({"gen": "2"}))["VersionId"] == second
    assert tags_of(s3, bucket, "k", VersionId=second) == {"gen": "2"}
    assert s3.delete_object_tagging(Bucket=bucket, Key="k", VersionId=first)["VersionId"] == first
    assert tags_of(s3, bucket, "k", VersionId=first) == {}
    assert tags_of(s3, bucket, "k") == {"gen": "2"}
    # A copy of an old version takes that version's tags.
    s3.put_object_tagging(Bucket=bucket, Key="k", VersionId=first, Tagging=tag_set({"restored": "yes"}))
    s3.copy_object(Bucket=bucket, Key="k", CopySource={"Bucket": bucket, "Key": "k", "VersionId": first})
    assert tags_of(s3, bucket, "k") == {"restored": "yes"}
    marker = s3.delete_object(Bucket=bucket, Key="k")["VersionId"]
    assert error_of(s3.get_object_tagging, Bucket=bucket, Key="k") == (404, "NoSuchKey")
    assert error_of(s3.get_object_tagging, Bucket=bucket, Key="k", VersionId=marker)[0] == 405
    assert error_of(s3.put_object_tagging, Bucket=bucket, Key="k", VersionId="nope", Tagging=tag_set({})) == (
        404, "NoSuchVersion")  # fmt: skip


def test_limits_and_errors(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x", Tagging="keep=me")
    longest = {f"{i:03d}" + "k" * 125: "v" * 256 for i in range(10)}
    s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tag_set(longest))
    assert tags_of(s3, bucket, "k") == longest
    s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tag_set({"keep": "me", "ключ": "значение"}))
    refused = [
        {str(i): "v" for i in range(11)},  # 11 tags
        {"k" * 129: "v"},  # key too long
        {"k": "v" * 257},  # value too long
        {"aws:reserved": "v"},  # the aws: prefix is S3's own
    ]
    for tags in refused:
        assert error_of(s3.put_object_tagging, Bucket=bucket, Key="k", Tagging=tag_set(tags)) == (400, "InvalidTag")
    twice = {"TagSet": [{"Key": "a", "Value": "1"}, {"Key": "a", "Value": "2"}]}
    assert error_of(s3.put_object_tagging, Bucket=bucket, Key="k", Tagging=twice) == (400, "InvalidTag")
    for header in ("a=1&a=2", "=empty-key", "&".join(f"k{i}=v" for i in range(11)), "aws:x=1"):
        assert error_of(s3.put_object, Bucket=bucket, Key="other", Body=b"", Tagging=header)[1] == "InvalidTag"
    assert error_of(s3.head_object, Bucket=bucket, Key="other")[0] == 404  # nothing was written
    assert error_of(s3.get_object_tagging, Bucket=bucket, Key="missing") == (404, "NoSuchKey")
    assert tags_of(s3, bucket, "k") == {"keep": "me", "ключ": "значение"}  # refusals changed nothing


def test_malformed_tagging_documents(server, bucket, s3):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    for body in (b"<Tagging><TagSet><Tag><Key>a</Key></Tag></TagSet></Tagging>", b"<Tagging/>", b"<x"):
        response = signed_call(server, "PUT", f"/{bucket}/k?tagging", body)
        assert response.status_code == 400 and b"<Code>MalformedXML</Code>" in response.content


def test_bucket_tagging(s3, bucket):
    assert error_of(s3.get_bucket_tagging, Bucket=bucket) == (404, "NoSuchTagSet")
    s3.put_bucket_tagging(Bucket=bucket, Tagging=tag_set({"cost-center": "42", "env": "lab"}))
    assert s3.get_bucket_tagging(Bucket=bucket)["TagSet"] == [
        {"Key": "cost-center", "Value": "42"}, {"Key": "env", "Value": "lab"}]  # fmt: skip
    assert s3.delete_bucket_tagging(Bucket=bucket)["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert error_of(s3.get_bucket_tagging, Bucket=bucket) == (404, "NoSuchTagSet")
    assert error_of(s3.put_bucket_tagging, Bucket=bucket, Tagging=tag_set({"aws:x": "1"})) == (400, "InvalidTag")


def test_tagging_takes_its_own_permissions(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x", Tagging="a=1")
    resource = [f"arn:aws:s3:::{bucket}/*"]
    writer = make_s3_client(server.endpoint, *make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:PutObject", "s3:GetObject"], "Resource": resource}]}))  # fmt: skip
    writer.put_object(Bucket=bucket, Key="plain", Body=b"x")
    assert error_of(writer.put_object, Bucket=bucket, Key="tagged", Body=b"x", Tagging="a=1")[1] == "AccessDenied"
    assert error_of(writer.get_object_tagging, Bucket=bucket, Key="k")[1] == "AccessDenied"
    assert error_of(writer.put_object_tagging, Bucket=bucket, Key="k", Tagging=tag_set({}))[1] == "AccessDenied"
    assert error_of(writer.delete_object_tagging, Bucket=bucket, Key="k")[1] == "AccessDenied"
    tagger = make_s3_client(server.endpoint, *make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:PutObject", "s3:PutObjectTagging", "s3:GetObjectTagging"],
         "Resource": resource}]}))  # fmt: skip
    tagger.put_object(Bucket=bucket, Key="tagged", Body=b"x", Tagging="b=2")
    assert tags_of(tagger, bucket, "tagged") == {"b": "2"}
    assert tags_of(s3, bucket, "k") == {"a": "1"}


def test_bad_tagging_headers_are_refused(server, bucket):
    for value, code in (("a=%FF", b"InvalidArgument"), ("k=" + "v" * 257, b"InvalidTag")):
        response = signed_call(server, "PUT", f"/{bucket}/k", b"x", headers={"x-amz-tagging": value})
        assert response.status_code == 400 and b"<Code>" + code + b"</Code>" in response.content
    assert signed_call(server, "PUT", f"/{bucket}/k", b"x").status_code == 200
    response = signed_call(server, "PUT", f"/{bucket}/copy", headers={
        "x-amz-copy-source": f"/{bucket}/k", "x-amz-tagging-directive": "MERGE"})
    assert response.status_code == 400 and b"<Code>InvalidArgument</Code>" in response.content


def test_the_minio_sdk_tags_objects_and_buckets(server, bucket):
    client = Minio(urlparse(server.endpoint).netloc, access_key=ROOT_USER, secret_key=ROOT_PASSWORD, secure=False)
    tags = Tags.new_object_tags()
    tags["project"] = "lake"
    client.put_object(bucket, "k", io.BytesIO(b"data"), 4, tags=tags)
    assert dict(client.get_object_tags(bucket, "k")) == {"project": "lake"}
    tags["stage"] = "raw"
    client.set_object_tags(bucket, "k", tags)
    assert dict(client.get_object_tags(bucket, "k")) == {"project": "lake", "stage": "raw"}
    client.delete_object_tags(bucket, "k")
    assert client.get_object_tags(bucket, "k") is None
    bucket_tags = Tags.new_bucket_tags()
    bucket_tags["owner"] = "team"
    client.set_bucket_tags(bucket, bucket_tags)
    assert dict(client.get_bucket_tags(bucket)) == {"owner": "team"}
    client.delete_bucket_tags(bucket)
    assert client.get_bucket_tags(bucket) is None
