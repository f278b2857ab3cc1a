"""IAM users and policies enforced on every S3 request, managed through the admin API."""

from __future__ import annotations

import uuid

import pytest
from botocore.exceptions import ClientError

from .conftest import admin_call, make_s3_client


def create_user(server, policy_document: dict) -> tuple[str, str]:
    access, secret = f"user-{uuid.uuid4().hex[:8]}", "secret-" + uuid.uuid4().hex
    policy = f"policy-{uuid.uuid4().hex[:8]}"
    status, _ = admin_call(server, "PUT", f"/policies/{policy}", policy_document)
    assert status in (200, 201)
    status, _ = admin_call(server, "POST", "/users", {"accessKey": access, "secretKey": secret, "policies": [policy]})
    assert status == 201
    return access, secret


def denied(call) -> bool:
    try:
        call()
    except ClientError as exc:
        assert exc.response["Error"]["Code"] == "AccessDenied"
        return True
    return False


def test_prefix_scoped_user(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="public/report.csv", Body=b"a,b")
    s3.put_object(Bucket=bucket, Key="private/secret.txt", Body=b"no")
    access, secret = create_user(server, {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject"], "Resource": f"arn:aws:s3:::{bucket}/public/*"},
            {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": f"arn:aws:s3:::{bucket}",
             "Condition": {"StringLike": {"s3:prefix": "public/*"}}},
            {"Effect": "Deny", "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{bucket}/public/locked*"},
        ],
    })
    user = make_s3_client(server.endpoint, access_key=access, secret_key=secret)
    assert user.get_object(Bucket=bucket, Key="public/report.csv")["Body"].read() == b"a,b"
    user.put_object(Bucket=bucket, Key="public/new.csv", Body=b"c,d")
    assert [o["Key"] for o in user.list_objects_v2(Bucket=bucket, Prefix="public/")["Contents"]] == [
        "public/new.csv", "public/report.csv"]
    assert denied(lambda: user.get_object(Bucket=bucket, Key="private/secret.txt"))
    assert denied(lambda: user.put_object(Bucket=bucket, Key="private/x", Body=b"x"))
    assert denied(lambda: user.put_object(Bucket=bucket, Key="public/locked.csv", Body=b"x"))
    assert denied(lambda: user.list_objects_v2(Bucket=bucket))
    assert denied(lambda: user.delete_object(Bucket=bucket, Key="public/report.csv"))
    assert denied(lambda: user.create_bucket(Bucket=f"b-{uuid.uuid4().hex[:8]}"))
    assert denied(lambda: user.list_buckets())
    # refused writes stored nothing
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]]
    assert keys == ["private/secret.txt", "public/new.csv", "public/report.csv"]
    result = user.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "public/new.csv"}]})
    assert result["Errors"][0]["Code"] == "AccessDenied"


def test_builtin_readonly_policy_and_disabled_user(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    access, secret = f"ro-{uuid.uuid4().hex[:8]}", "secret-" + uuid.uuid4().hex
    assert admin_call(server, "POST", "/users", {"accessKey": access, "secretKey": secret,
                                                 "policies": ["readonly"]})[0] == 201
    reader = make_s3_client(server.endpoint, access_key=access, secret_key=secret)
    assert reader.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
    assert denied(lambda: reader.put_object(Bucket=bucket, Key="k", Body=b"changed"))
    status, _ = admin_call(server, "DELETE", f"/users/{access}")
    assert status == 204
    with pytest.raises(ClientError) as excinfo:
        make_s3_client(server.endpoint, access_key=access, secret_key=secret).get_object(Bucket=bucket, Key="k")
    assert excinfo.value.response["Error"]["Code"] == "InvalidAccessKeyId"
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
