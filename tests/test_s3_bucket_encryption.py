"""A bucket's default encryption (``?encryption``) through boto3: put, get and delete the
ServerSideEncryptionConfiguration, SSE-KMS defaults checked against the server's key ring, S3's
errors, and the IAM actions S3 names for it."""

from __future__ import annotations

import base64
import os
import uuid

import pytest
from botocore.exceptions import ClientError

from .conftest import make_s3_client, make_user, service_with, signed_call

KEY_RING = {
    "AISTOR_KMS_SECRET_KEY": "main:" + base64.b64encode(os.urandom(32)).decode(),
    "AISTOR_KMS_KEYS": "archive:" + base64.b64encode(os.urandom(32)).decode(),
}


def default(algorithm: str, key_id: str | None = None, bucket_key: bool | None = None) -> dict:
    by_default = {"SSEAlgorithm": algorithm, **({"KMSMasterKeyID": key_id} if key_id else {})}
    rule = {"ApplyServerSideEncryptionByDefault": by_default}
    if bucket_key is not None:
        rule["BucketKeyEnabled"] = bucket_key
    return {"Rules": [rule]}


def error_of(call, **kwargs) -> tuple[str, int]:
    with pytest.raises(ClientError) as caught:
        call(**kwargs)
    return caught.value.response["Error"]["Code"], caught.value.response["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture(scope="module")
def kms_server(tmp_path_factory):
    with service_with(tmp_path_factory, KEY_RING) as service:
        yield service


@pytest.fixture
def kms_bucket(kms_server):
    client = make_s3_client(kms_server.endpoint)
    name = f"enc-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    return client, name


def test_sse_s3_default_put_get_delete(s3, bucket):
    assert error_of(s3.get_bucket_encryption, Bucket=bucket) == (
        "ServerSideEncryptionConfigurationNotFoundError",
        404,
    )
    assert s3.delete_bucket_encryption(Bucket=bucket)["ResponseMetadata"]["HTTPStatusCode"] == 204
    response = s3.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration=default("AES256"))
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    rule = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"][0]
    assert rule["ApplyServerSideEncryptionByDefault"] == {"SSEAlgorithm": "AES256"}
    assert rule["BucketKeyEnabled"] is False
    s3.put_bucket_encryption(
        Bucket=bucket, ServerSideEncryptionConfiguration=default("AES256", bucket_key=True)
    )
    rule = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"][0]
    assert rule["BucketKeyEnabled"] is True
    assert s3.delete_bucket_encryption(Bucket=bucket)["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert (
        error_of(s3.get_bucket_encryption, Bucket=bucket)[0]
        == "ServerSideEncryptionConfigurationNotFoundError"
    )


def test_the_default_goes_with_its_bucket(s3):
    name = f"enc-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    s3.put_bucket_encryption(Bucket=name, ServerSideEncryptionConfiguration=default("AES256"))
    s3.delete_bucket(Bucket=name)
    s3.create_bucket(Bucket=name)
    assert (
        error_of(s3.get_bucket_encryption, Bucket=name)[0] == "ServerSideEncryptionConfigurationNotFoundError"
    )


def test_a_missing_bucket(s3):
    name = f"missing-{uuid.uuid4().hex[:12]}"
    for call, kwargs in (
        (s3.get_bucket_encryption, {}),
        (s3.delete_bucket_encryption, {}),
        (s3.put_bucket_encryption, {"ServerSideEncryptionConfiguration": default("AES256")}),
    ):
        assert error_of(call, Bucket=name, **kwargs) == ("NoSuchBucket", 404)


@pytest.mark.parametrize(
    "configuration, code",
    [
        (default("AES256", key_id="main"), "InvalidArgument"),
        (default("AES128"), "MalformedXML"),
        ({"Rules": []}, "MalformedXML"),
        ({"Rules": [default("AES256")["Rules"][0]] * 2}, "MalformedXML"),
        (default("aws:kms:dsse"), "NotImplemented"),
    ],
)
def test_configurations_s3_refuses(s3, bucket, configuration, code):
    assert (
        error_of(s3.put_bucket_encryption, Bucket=bucket, ServerSideEncryptionConfiguration=configuration)[0]
        == code
    )
    assert (
        error_of(s3.get_bucket_encryption, Bucket=bucket)[0]
        == "ServerSideEncryptionConfigurationNotFoundError"
    )


def test_without_a_key_ring_sse_kms_defaults_are_refused(s3, bucket):
    for configuration in (default("aws:kms", "archive"), default("aws:kms")):
        assert error_of(
            s3.put_bucket_encryption, Bucket=bucket, ServerSideEncryptionConfiguration=configuration
        ) == ("KMS.NotFoundException", 400)
    assert (
        error_of(s3.get_bucket_encryption, Bucket=bucket)[0]
        == "ServerSideEncryptionConfigurationNotFoundError"
    )


@pytest.mark.parametrize(
    "key_id", [None, "main", "archive", "arn:aws:kms:us-east-1:123456789012:key/archive"]
)
def test_sse_kms_defaults_name_keys_of_the_key_ring(kms_bucket, key_id):
    client, name = kms_bucket
    client.put_bucket_encryption(Bucket=name, ServerSideEncryptionConfiguration=default("aws:kms", key_id))
    rule = client.get_bucket_encryption(Bucket=name)["ServerSideEncryptionConfiguration"]["Rules"][0]
    expected = {"SSEAlgorithm": "aws:kms", **({"KMSMasterKeyID": key_id} if key_id else {})}
    assert rule["ApplyServerSideEncryptionByDefault"] == expected


def test_an_unknown_kms_key_is_refused_and_changes_nothing(kms_bucket):
    client, name = kms_bucket
    client.put_bucket_encryption(Bucket=name, ServerSideEncryptionConfiguration=default("aws:kms", "archive"))
    for key_id in ("missing", "arn:aws:kms:us-east-1:123456789012:key/missing"):
        assert error_of(
            client.put_bucket_encryption,
            Bucket=name,
            ServerSideEncryptionConfiguration=default("aws:kms", key_id),
        ) == ("KMS.NotFoundException", 400)
    rule = client.get_bucket_encryption(Bucket=name)["ServerSideEncryptionConfiguration"]["Rules"][0]
    assert rule["ApplyServerSideEncryptionByDefault"]["KMSMasterKeyID"] == "archive"


def test_iam_actions(server, s3, bucket):
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": "s3:GetEncryptionConfiguration",
                "Resource": f"arn:aws:s3:::{bucket}",
            }
        ],
    }
    reader = make_s3_client(server.endpoint, *make_user(server, policy))
    assert (
        error_of(reader.get_bucket_encryption, Bucket=bucket)[0]
        == "ServerSideEncryptionConfigurationNotFoundError"
    )
    assert error_of(
        reader.put_bucket_encryption, Bucket=bucket, ServerSideEncryptionConfiguration=default("AES256")
    ) == ("AccessDenied", 403)
    s3.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration=default("AES256"))
    assert error_of(reader.delete_bucket_encryption, Bucket=bucket) == ("AccessDenied", 403)
    assert reader.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]


def test_a_method_not_served_is_not_implemented(server, bucket):
    response = signed_call(server, "POST", f"/{bucket}?encryption")
    assert response.status_code == 501 and b"<Code>NotImplemented</Code>" in response.content
