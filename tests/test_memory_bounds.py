"""Big transfers stream through the server: a multipart upload and download, a single PutObject and a
GetObject of hundreds of MiB each grow its resident memory by less than one part.

The server is one of our own, so its peak resident size (VmHWM) can be reset before each transfer
(``5`` written to ``/proc/PID/clear_refs``): the growth is that peak after the transfer minus the
resident size (VmRSS) before it. A server that held each part in flight would grow by 4 parts
(256 MiB), one that held a single request's body by 512 MiB; streaming costs a few MiB of buffers.
A server that keeps its objects in another S3 endpoint (the remote store) grows by less than 4 of
boto3's default 8 MiB parts while it takes and serves them 10 at a time.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path
from typing import Self

import pytest
from boto3.s3.transfer import TransferConfig

from .conftest import make_s3_client, service_with

MiB = 1024 * 1024
PART = 64 * MiB
MULTIPART_SIZE = 12 * PART  # 768 MiB
SINGLE_SIZE = 8 * PART  # 512 MiB
CONCURRENCY = 4
# Less than one part: not a part per connection, not a body, with room for the allocator's moods.
MAX_GROWTH = PART
TRANSFER = TransferConfig(multipart_threshold=PART, multipart_chunksize=PART, max_concurrency=CONCURRENCY,
                          preferred_transfer_client="classic")
# boto3's defaults; a remote store that kept each 8 MiB part in memory grew by 60-120 MiB.
SMALL_PART, SMALL_PARTS_AT_ONCE = 8 * MiB, 10
REMOTE_TRANSFER = TransferConfig(multipart_threshold=SMALL_PART, multipart_chunksize=SMALL_PART,
                                 max_concurrency=SMALL_PARTS_AT_ONCE, preferred_transfer_client="classic")
REMOTE_MAX_GROWTH = 4 * SMALL_PART / MiB


def status_mib(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} in /proc/{pid}/status")


class Growth:
    """How much the process's resident memory grows at most while the ``with`` block runs."""

    def __init__(self, pid: int):
        self.pid = pid
        self.mib = 0.0

    def __enter__(self) -> Self:
        Path(f"/proc/{self.pid}/clear_refs").write_text("5")  # VmHWM := VmRSS
        self.before = status_mib(self.pid, "VmRSS")
        return self

    def __exit__(self, *exc: object) -> None:
        self.mib = status_mib(self.pid, "VmHWM") - self.before


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # A KMS key, for SSE-S3.
    key = "test-key:" + base64.b64encode(os.urandom(32)).decode()
    with service_with(tmp_path_factory, {"AISTOR_KMS_SECRET_KEY": key}) as service:
        yield service


@pytest.fixture(scope="module")
def front(server, tmp_path_factory):
    """A server keeping its objects in ``server`` (the remote store)."""
    with service_with(tmp_path_factory, {"AISTOR_STORE_ENDPOINT": server.endpoint,
                                         "AISTOR_STORE_SYSTEM_BUCKET": "memory-front-system"}) as service:
        yield service


def random_file(path: Path, size: int) -> str:
    """``size`` bytes of one random 64 MiB block repeated (the server does not deduplicate); its SHA-256."""
    block, digest = os.urandom(PART), hashlib.sha256()
    with open(path, "wb") as out:
        for _ in range(size // PART):
            out.write(block)
            digest.update(block)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


@pytest.fixture
def scratch(tmp_path):
    """Where the test's big files go; removed after it (pytest keeps the last runs' tmp_path)."""
    yield tmp_path
    for path in tmp_path.iterdir():
        path.unlink()


@pytest.mark.parametrize("sse", [False, True], ids=["plain", "sse-s3"])
def test_multipart_upload_and_download_hold_less_than_a_part(server, scratch, sse):
    s3 = make_s3_client(server.endpoint)
    bucket, source, target = f"memory-{'sse' if sse else 'plain'}", scratch / "source", scratch / "target"
    s3.create_bucket(Bucket=bucket)
    digest = random_file(source, MULTIPART_SIZE)
    pid = server.proc.pid
    with Growth(pid) as upload:
        s3.upload_file(str(source), bucket, "big", ExtraArgs={"ServerSideEncryption": "AES256"} if sse else None,
                       Config=TRANSFER)
    with Growth(pid) as download:
        s3.download_file(bucket, "big", str(target), Config=TRANSFER)
    head = s3.head_object(Bucket=bucket, Key="big")
    assert head["ContentLength"] == MULTIPART_SIZE
    assert head.get("ServerSideEncryption") == ("AES256" if sse else None)
    assert file_sha256(target) == digest
    s3.delete_object(Bucket=bucket, Key="big")
    assert upload.mib < MAX_GROWTH, f"a 768 MiB upload, 4 parts at a time, grew the server by {upload.mib:.0f} MiB"
    assert download.mib < MAX_GROWTH, f"a 768 MiB download, 4 ranges at a time, grew it by {download.mib:.0f} MiB"


def test_single_put_and_get_hold_less_than_a_part(server, scratch):
    s3 = make_s3_client(server.endpoint)
    s3.create_bucket(Bucket="memory-single")
    source = scratch / "source"
    digest = random_file(source, SINGLE_SIZE)
    pid = server.proc.pid
    with Growth(pid) as put, open(source, "rb") as body:
        s3.put_object(Bucket="memory-single", Key="single", Body=body)
    received = hashlib.sha256()
    with Growth(pid) as get:
        for chunk in s3.get_object(Bucket="memory-single", Key="single")["Body"].iter_chunks(MiB):
            received.update(chunk)
    assert received.hexdigest() == digest
    s3.delete_object(Bucket="memory-single", Key="single")
    assert put.mib < MAX_GROWTH, f"a 512 MiB PutObject grew the server by {put.mib:.0f} MiB"
    assert get.mib < MAX_GROWTH, f"a 512 MiB GetObject grew the server by {get.mib:.0f} MiB"


def test_remote_store_upload_and_download_hold_less_than_a_few_parts(front, scratch):
    s3 = make_s3_client(front.endpoint)
    s3.create_bucket(Bucket="memory-remote")
    source, target = scratch / "source", scratch / "target"
    digest = random_file(source, 4 * PART)  # 256 MiB: 32 parts
    pid = front.proc.pid
    with Growth(pid) as upload:
        s3.upload_file(str(source), "memory-remote", "big", Config=REMOTE_TRANSFER)
    with Growth(pid) as download:
        s3.download_file("memory-remote", "big", str(target), Config=REMOTE_TRANSFER)
    assert file_sha256(target) == digest
    s3.delete_object(Bucket="memory-remote", Key="big")
    assert upload.mib < REMOTE_MAX_GROWTH, f"256 MiB in 8 MiB parts, 10 at a time, grew the front by {upload.mib:.0f} MiB"
    assert download.mib < REMOTE_MAX_GROWTH, f"its download, 10 ranges at a time, grew it by {download.mib:.0f} MiB"
