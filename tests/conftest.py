"""Fixtures: a real aistor-lab server on a free loopback port, and clients configured for it."""

from __future__ import annotations

import json
import uuid
from contextlib import contextmanager

import boto3
import pytest
from botocore.config import Config

from aistor_lab.workbench.jupyter.process import ServiceProcess

ROOT_USER = "minioadmin"
ROOT_PASSWORD = "minioadmin"
# The background maintenance pass would compact and expire the tests' tables behind their backs:
# the test servers run maintenance only on request (tests of the pass start their own server).
NO_BACKGROUND_MAINTENANCE = {"AISTOR_MAINTENANCE_INTERVAL_SECONDS": "0"}


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    data = tmp_path_factory.mktemp("server-data")
    service = ServiceProcess(data, env=NO_BACKGROUND_MAINTENANCE, log_path=data.parent / "server.log")
    with service:
        yield service


@pytest.fixture(scope="session")
def seaweedfs(tmp_path_factory) -> str:
    """SeaweedFS as a cluster of processes (tests/peer_servers.py): its S3 endpoint."""
    from .peer_servers import seaweedfs_cluster

    with seaweedfs_cluster(tmp_path_factory.mktemp("seaweedfs")) as endpoint:
        yield endpoint


@contextmanager
def service_with(tmp_path_factory, env: dict[str, str]):
    """A server of its own, for a test that needs settings the shared one does not have."""
    data = tmp_path_factory.mktemp("service")
    with ServiceProcess(data, env={**NO_BACKGROUND_MAINTENANCE, **env}, log_path=data / "server.log") as service:
        yield service


def make_s3_client(endpoint: str, access_key: str = ROOT_USER, secret_key: str = ROOT_PASSWORD,
                   session_token: str | None = None, **config):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        aws_session_token=session_token,
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


def signed_call(server, method: str, path: str, body=b"", headers=None, credentials=None, service="s3"):
    """One raw SigV4-signed request, for what client libraries will not send; returns the response.
    S3 requests are signed as S3 clients do; others (s3tables) as botocore's SigV4Auth does."""
    from botocore.auth import S3SigV4Auth, SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    from botocore.httpsession import URLLib3Session

    request = AWSRequest(method=method, url=f"{server.endpoint}{path}", data=body, headers=headers or {})
    credentials = Credentials(*(credentials or (ROOT_USER, ROOT_PASSWORD)))
    signer = S3SigV4Auth(credentials, "s3", "us-east-1") if service == "s3" else SigV4Auth(credentials, service, "local")
    signer.add_auth(request)
    return URLLib3Session().send(request.prepare())


def catalog_call(server, method: str, path: str, body=None, credentials=None, headers=None):
    """A SigV4 (s3tables) request to the Iceberg REST catalog; returns (status, JSON or None)."""
    data = b"" if body is None else body if isinstance(body, bytes | str) else json.dumps(body)
    response = signed_call(server, method, f"/_iceberg{path}", data, headers=headers, credentials=credentials,
                           service="s3tables")
    return response.status_code, (json.loads(response.content) if response.content else None)


def seed_catalog_properties(server, warehouse: str, access_key: str = ROOT_USER, secret_key: str = ROOT_PASSWORD):
    """The PyIceberg configuration of the product documentation, with the host changed."""
    return {
        "uri": f"{server.endpoint}/_iceberg",
        "warehouse": warehouse,
        "rest.sigv4-enabled": "true",
        "rest.signing-name": "s3tables",
        "rest.signing-region": "local",
        "client.region": "local",
        "client.access-key-id": access_key,
        "client.secret-access-key": secret_key,
        "s3.endpoint": server.endpoint,
        "s3.path-style-access": "true",
        "s3.access-key-id": access_key,
        "s3.secret-access-key": secret_key,
    }


def admin_call(server, method: str, path: str, body=None, credentials=None):
    """One SigV4-signed admin request (as MinIO's admin clients sign them); returns (status, JSON)."""
    data = body if isinstance(body, bytes | str) else b"" if body is None else json.dumps(body)
    response = signed_call(server, method, f"/_aistor/admin/v1{path}", data, credentials=credentials)
    return response.status_code, (json.loads(response.content) if response.content else None)


def documented_read_only_user(server, warehouse: str, get_warehouse: str = "s3tables:GetTableBucket"
                              ) -> tuple[str, str]:
    """A new user with the documentation's read-only catalog policy (plus S3 rights on the whole
    warehouse); returns its access key and secret. ``get_warehouse``: the AWS name the documentation
    uses, or its AIStor alias s3tables:GetWarehouse."""
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "S3TablesReadOnlyWarehouse", "Effect": "Allow",
             "Action": [get_warehouse, "s3tables:ListNamespaces", "s3tables:GetNamespace",
                        "s3tables:ListTables", "s3tables:GetTable"],
             "Resource": [f"arn:aws:s3tables:::bucket/{warehouse}", f"arn:aws:s3tables:::bucket/{warehouse}/table/*"]},
            {"Effect": "Allow", "Action": "s3:*", "Resource": [f"arn:aws:s3:::{warehouse}", f"arn:aws:s3:::{warehouse}/*"]},
        ],
    }
    return make_user(server, policy)


def make_user(server, policy: dict) -> tuple[str, str]:
    """A new user holding ``policy`` (created as a named policy through the admin API); its access key and
    secret."""
    name, user, secret = f"p-{uuid.uuid4().hex[:6]}", f"user-{uuid.uuid4().hex[:6]}", "user-secret-123"
    assert admin_call(server, "PUT", f"/policies/{name}", policy)[0] in (200, 201)
    assert admin_call(server, "POST", "/users", {"accessKey": user, "secretKey": secret, "policies": [name]})[0] == 201
    return user, secret
