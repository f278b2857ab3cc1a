"""Fixtures: a real aistor-lab server on a free loopback port, and clients configured for it."""

from __future__ import annotations

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
