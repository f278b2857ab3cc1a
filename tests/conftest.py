"""Fixtures: a real aistor-lab server on a free loopback port, and clients configured for it."""

from __future__ import annotations

import json
import uuid

import boto3
import pytest
from botocore.config import Config

from aistor_lab.process import ServiceProcess

ROOT_USER = "minioadmin"
ROOT_PASSWORD = "minioadmin"


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    data = tmp_path_factory.mktemp("server-data")
    service = ServiceProcess(data, log_path=data.parent / "server.log")
    with service:
        yield service


def make_s3_client(endpoint: str, access_key: str = ROOT_USER, secret_key: str = ROOT_PASSWORD, **config):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        region_name="us-east-1",
        config=Config(**{"s3": {"addressing_style": "path"}, "retries": {"max_attempts": 1}, **config}),
    )


@pytest.fixture(scope="session")
def s3(server):
    return make_s3_client(server.endpoint)


@pytest.fixture
def bucket(s3):
    """A fresh, empty bucket for one test."""
    name = f"test-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def signed_call(server, method: str, path: str, body=b"", headers=None, credentials=None):
    """One raw SigV4-signed request, for what client libraries will not send; returns the response."""
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    from botocore.httpsession import URLLib3Session

    request = AWSRequest(method=method, url=f"{server.endpoint}{path}", data=body, headers=headers or {})
    signer = S3SigV4Auth(Credentials(*(credentials or (ROOT_USER, ROOT_PASSWORD))), "s3", "us-east-1")
    signer.add_auth(request)
    return URLLib3Session().send(request.prepare())


def admin_call(server, method: str, path: str, body=None, credentials=None):
    """One SigV4-signed admin request (as MinIO's admin clients sign them); returns (status, JSON)."""
    data = body if isinstance(body, bytes | str) else b"" if body is None else json.dumps(body)
    response = signed_call(server, method, f"/_aistor/admin/v1{path}", data, credentials=credentials)
    return response.status_code, (json.loads(response.content) if response.content else None)
