"""Bucket policies with boto3, the minio SDK and unsigned requests: Put/Get/Delete/PolicyStatus,
anonymous access exactly where a policy says, IAM and bucket policy evaluated together (explicit deny
wins), the condition keys tools use, PublicAccessBlock, and refused documents that change nothing."""

from __future__ import annotations

import json
import uuid

import boto3
import pytest
import requests
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError
from minio import Minio
from minio.error import S3Error as MinioError

from .conftest import ROOT_PASSWORD, ROOT_USER, make_s3_client, make_user


@pytest.fixture(scope="module")
def anonymous(server):
    return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                        config=Config(signature_version=UNSIGNED, s3={"addressing_style": "path"},
                                      retries={"max_attempts": 1}))


def statement(effect: str, actions, resources, principal="*", **extra) -> dict:
    return {"Effect": effect, "Principal": principal, "Action": actions, "Resource": resources, **extra}


def put_policy(s3, bucket: str, *statements: dict) -> None:
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": list(statements)}))


def code(excinfo) -> str:
    return excinfo.value.response["Error"]["Code"]


def test_put_get_delete_policy_and_status(s3, bucket):
    with pytest.raises(ClientError) as excinfo:
        s3.get_bucket_policy(Bucket=bucket)
    assert code(excinfo) == "NoSuchBucketPolicy"
    assert s3.get_bucket_policy_status(Bucket=bucket)["PolicyStatus"]["IsPublic"] is False
    put_policy(s3, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/*"))
    document = json.loads(s3.get_bucket_policy(Bucket=bucket)["Policy"])
    assert document["Statement"][0]["Action"] == "s3:GetObject"
    assert s3.get_bucket_policy_status(Bucket=bucket)["PolicyStatus"]["IsPublic"] is True
    s3.delete_bucket_policy(Bucket=bucket)
    with pytest.raises(ClientError) as excinfo:
        s3.get_bucket_policy(Bucket=bucket)
    assert code(excinfo) == "NoSuchBucketPolicy"


def test_a_policy_limited_to_a_network_is_not_public(s3, bucket):
    put_policy(s3, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/*",
                                     Condition={"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}))
    assert s3.get_bucket_policy_status(Bucket=bucket)["PolicyStatus"]["IsPublic"] is False


@pytest.mark.parametrize("document,message", [
    ({"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::B/*"}]},
     "Principal"),
    ({"Statement": [statement("Allow", "s3:GetObject", "arn:aws:s3:::someone-else/*")]}, "invalid resource"),
    ({"Statement": [statement("Allow", "s3tables:GetTable", "arn:aws:s3:::B/*")]}, "invalid action"),
    ({"Statement": [statement("Allow", "s3:GetObject", "arn:aws:s3:::B/*", principal={"AWS": 5})]}, "Principal"),
    ({"Statement": [statement("Maybe", "s3:GetObject", "arn:aws:s3:::B/*")]}, "Effect"),
    ({"Statement": [statement("Allow", "s3:GetObject", "arn:aws:s3:::B/*",
                              Condition={"IpAddress": {"aws:SourceIp": "not-an-ip"}})]}, "CIDR"),
])
def test_malformed_policies_are_refused_and_change_nothing(s3, bucket, document, message):
    put_policy(s3, bucket, statement("Allow", "s3:ListBucket", f"arn:aws:s3:::{bucket}"))
    text = json.dumps(document).replace("arn:aws:s3:::B", f"arn:aws:s3:::{bucket}")
    with pytest.raises(ClientError) as excinfo:
        s3.put_bucket_policy(Bucket=bucket, Policy=text)
    assert code(excinfo) == "MalformedPolicy"
    assert message in excinfo.value.response["Error"]["Message"]
    assert json.loads(s3.get_bucket_policy(Bucket=bucket)["Policy"])["Statement"][0]["Action"] == "s3:ListBucket"


def test_not_json_is_malformed(s3, bucket):
    with pytest.raises(ClientError) as excinfo:
        s3.put_bucket_policy(Bucket=bucket, Policy="{not json")
    assert code(excinfo) == "MalformedPolicy"


def test_anonymous_access_is_exactly_what_the_policy_says(s3, anonymous, bucket):
    s3.put_object(Bucket=bucket, Key="public/a.txt", Body=b"hello")
    s3.put_object(Bucket=bucket, Key="private/b.txt", Body=b"secret")
    with pytest.raises(ClientError) as excinfo:
        anonymous.get_object(Bucket=bucket, Key="public/a.txt")
    assert code(excinfo) == "AccessDenied"
    put_policy(s3, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/public/*"))
    assert anonymous.get_object(Bucket=bucket, Key="public/a.txt")["Body"].read() == b"hello"
    assert requests.get(f"{s3.meta.endpoint_url}/{bucket}/public/a.txt", timeout=10).content == b"hello"
    for call in (
        lambda: anonymous.get_object(Bucket=bucket, Key="private/b.txt"),
        lambda: anonymous.list_objects_v2(Bucket=bucket),
        lambda: anonymous.put_object(Bucket=bucket, Key="public/new", Body=b"x"),
        lambda: anonymous.delete_object(Bucket=bucket, Key="public/a.txt"),
        lambda: anonymous.get_bucket_policy(Bucket=bucket),
        lambda: anonymous.list_buckets(),
    ):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert code(excinfo) == "AccessDenied"
    assert s3.get_object(Bucket=bucket, Key="public/a.txt")["Body"].read() == b"hello"


def test_anonymous_uploads_with_an_upload_policy(s3, anonymous, bucket):
    put_policy(s3, bucket, statement("Allow", ["s3:PutObject"], f"arn:aws:s3:::{bucket}/drop/*"))
    anonymous.put_object(Bucket=bucket, Key="drop/in.txt", Body=b"dropped")
    assert s3.get_object(Bucket=bucket, Key="drop/in.txt")["Body"].read() == b"dropped"
    with pytest.raises(ClientError):
        anonymous.put_object(Bucket=bucket, Key="elsewhere.txt", Body=b"x")


def test_the_minio_sdk_reads_a_public_bucket_without_credentials(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"via minio")
    host = server.endpoint.removeprefix("http://")
    anonymous_minio = Minio(host, secure=False)
    with pytest.raises(MinioError):
        anonymous_minio.get_object(bucket, "k")
    put_policy(s3, bucket, statement("Allow", ["s3:GetObject", "s3:ListBucket"],
                                     [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]))
    assert anonymous_minio.get_object(bucket, "k").read() == b"via minio"
    assert [o.object_name for o in anonymous_minio.list_objects(bucket)] == ["k"]


def test_the_minio_sdk_sets_reads_and_deletes_a_policy(server, s3, bucket):
    client = Minio(server.endpoint.removeprefix("http://"), ROOT_USER, ROOT_PASSWORD, secure=False)
    document = {"Version": "2012-10-17", "Statement": [statement(
        "Allow", ["s3:GetObject"], [f"arn:aws:s3:::{bucket}/*"], principal={"AWS": ["*"]})]}
    client.set_bucket_policy(bucket, json.dumps(document))
    assert json.loads(client.get_bucket_policy(bucket)) == document
    client.delete_bucket_policy(bucket)
    with pytest.raises(MinioError) as excinfo:
        client.get_bucket_policy(bucket)
    assert excinfo.value.code == "NoSuchBucketPolicy"


def test_a_bucket_policy_grants_a_user_without_identity_rights(server, s3, bucket):
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:ListAllMyBuckets", "Resource": "*"}]})
    client = make_s3_client(server.endpoint, user, secret)
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    with pytest.raises(ClientError):
        client.get_object(Bucket=bucket, Key="k")
    put_policy(s3, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/*",
                                     principal={"AWS": [f"arn:aws:iam::123456789012:user/{user}"]}))
    assert client.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
    with pytest.raises(ClientError):
        client.put_object(Bucket=bucket, Key="k", Body=b"w")


def test_an_explicit_deny_in_the_bucket_policy_beats_an_identity_allow(server, s3, bucket):
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
    client = make_s3_client(server.endpoint, user, secret)
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    put_policy(s3, bucket, statement("Deny", "s3:DeleteObject", f"arn:aws:s3:::{bucket}/*"))
    with pytest.raises(ClientError) as excinfo:
        client.delete_object(Bucket=bucket, Key="k")
    assert code(excinfo) == "AccessDenied"
    assert client.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
    s3.delete_object(Bucket=bucket, Key="k")  # the root user is not bound by bucket policies


def test_source_ip_and_secure_transport_conditions(s3, anonymous, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    put_policy(s3, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/*",
                                     Condition={"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}))
    with pytest.raises(ClientError):
        anonymous.get_object(Bucket=bucket, Key="k")
    put_policy(s3, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/*",
                                     Condition={"IpAddress": {"aws:SourceIp": "127.0.0.0/8"}}))
    assert anonymous.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
    # Plain HTTP here: a policy requiring TLS refuses the same request.
    put_policy(s3, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/*",
                                     Condition={"Bool": {"aws:SecureTransport": "true"}}))
    with pytest.raises(ClientError):
        anonymous.get_object(Bucket=bucket, Key="k")


def test_prefix_condition_on_listing(s3, anonymous, bucket):
    for key in ("docs/a", "docs/b", "other/c"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"x")
    put_policy(s3, bucket, statement("Allow", "s3:ListBucket", f"arn:aws:s3:::{bucket}",
                                     Condition={"StringEquals": {"s3:prefix": "docs/"}}))
    keys = [o["Key"] for o in anonymous.list_objects_v2(Bucket=bucket, Prefix="docs/")["Contents"]]
    assert keys == ["docs/a", "docs/b"]
    with pytest.raises(ClientError):
        anonymous.list_objects_v2(Bucket=bucket)


def test_existing_object_tag_condition(s3, anonymous, bucket):
    s3.put_object(Bucket=bucket, Key="open", Body=b"o", Tagging="visibility=public")
    s3.put_object(Bucket=bucket, Key="closed", Body=b"c", Tagging="visibility=private")
    put_policy(s3, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/*",
                                     Condition={"StringEquals": {"s3:ExistingObjectTag/visibility": "public"}}))
    assert anonymous.get_object(Bucket=bucket, Key="open")["Body"].read() == b"o"
    with pytest.raises(ClientError):
        anonymous.get_object(Bucket=bucket, Key="closed")
    s3.put_object_tagging(Bucket=bucket, Key="closed", Tagging={"TagSet": [{"Key": "visibility", "Value": "public"}]})
    assert anonymous.get_object(Bucket=bucket, Key="closed")["Body"].read() == b"c"


def test_request_object_tag_condition(server, s3, bucket):
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:ListAllMyBuckets", "Resource": "*"}]})
    client = make_s3_client(server.endpoint, user, secret)
    # Writing tags takes s3:PutObjectTagging too, as in AWS.
    put_policy(s3, bucket, statement("Allow", ["s3:PutObject", "s3:PutObjectTagging"], f"arn:aws:s3:::{bucket}/*",
                                     principal={"AWS": user},
                                     Condition={"StringEquals": {"s3:RequestObjectTag/team": "data"}}))
    client.put_object(Bucket=bucket, Key="tagged", Body=b"x", Tagging="team=data")
    with pytest.raises(ClientError):
        client.put_object(Bucket=bucket, Key="untagged", Body=b"x")


def test_public_access_block(s3, anonymous, bucket):
    with pytest.raises(ClientError) as excinfo:
        s3.get_public_access_block(Bucket=bucket)
    assert code(excinfo) == "NoSuchPublicAccessBlockConfiguration"
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    put_policy(s3, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/*"))
    s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={
        "BlockPublicPolicy": True, "RestrictPublicBuckets": True})
    config = s3.get_public_access_block(Bucket=bucket)["PublicAccessBlockConfiguration"]
    assert config == {"BlockPublicAcls": False, "IgnorePublicAcls": False, "BlockPublicPolicy": True,
                      "RestrictPublicBuckets": True}
    with pytest.raises(ClientError):  # the public policy still stands, but grants anonymous callers nothing
        anonymous.get_object(Bucket=bucket, Key="k")
    with pytest.raises(ClientError) as excinfo:
        put_policy(s3, bucket, statement("Allow", "s3:ListBucket", f"arn:aws:s3:::{bucket}"))
    assert code(excinfo) == "AccessDenied"
    s3.delete_public_access_block(Bucket=bucket)
    assert anonymous.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"


def test_policies_need_their_permissions(server, s3, bucket):
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:ListBucket"], "Resource": "*"}]})
    client = make_s3_client(server.endpoint, user, secret)
    for call in (
        lambda: put_policy(client, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/*")),
        lambda: client.get_bucket_policy(Bucket=bucket),
        lambda: client.delete_bucket_policy(Bucket=bucket),
        lambda: client.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={}),
    ):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert code(excinfo) == "AccessDenied"


def test_policy_of_a_missing_bucket(s3):
    with pytest.raises(ClientError) as excinfo:
        s3.get_bucket_policy(Bucket=f"missing-{uuid.uuid4().hex[:8]}")
    assert code(excinfo) == "NoSuchBucket"


def test_a_deleted_bucket_takes_its_policy_with_it(s3, anonymous):
    name = f"gone-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=name)
    put_policy(s3, name, statement("Allow", ["s3:GetObject", "s3:PutObject"], f"arn:aws:s3:::{name}/*"))
    s3.delete_bucket(Bucket=name)
    s3.create_bucket(Bucket=name)
    with pytest.raises(ClientError):
        anonymous.put_object(Bucket=name, Key="k", Body=b"x")


def test_not_principal_goes_with_deny_only(server, s3, bucket):
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
    with pytest.raises(ClientError) as excinfo:
        s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Statement": [{
            "Effect": "Allow", "NotPrincipal": {"AWS": user}, "Action": "s3:ListBucket",
            "Resource": f"arn:aws:s3:::{bucket}"}]}))
    assert code(excinfo) == "MalformedPolicy"
    # Deny everyone but the user: others with s3:* of their own are refused, the user is not.
    other, other_secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Statement": [{
        "Effect": "Deny", "NotPrincipal": {"AWS": user}, "Action": "s3:ListBucket",
        "Resource": f"arn:aws:s3:::{bucket}"}]}))
    make_s3_client(server.endpoint, user, secret).list_objects_v2(Bucket=bucket)
    with pytest.raises(ClientError) as excinfo:
        make_s3_client(server.endpoint, other, other_secret).list_objects_v2(Bucket=bucket)
    assert code(excinfo) == "AccessDenied"


def test_service_principals_are_valid_and_name_no_caller(s3, anonymous, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    put_policy(s3, bucket, statement("Allow", "s3:GetObject", f"arn:aws:s3:::{bucket}/*",
                                     principal={"Service": "logging.s3.amazonaws.com"}))
    with pytest.raises(ClientError) as excinfo:
        anonymous.get_object(Bucket=bucket, Key="k")
    assert code(excinfo) == "AccessDenied"
    assert s3.get_bucket_policy_status(Bucket=bucket)["PolicyStatus"]["IsPublic"] is False
