"""The timed S3 workloads: many small objects from N client threads, and one big multipart object.

Each returns a throughput and raises if a server answers with wrong bytes.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from boto3.s3.transfer import TransferConfig
from botocore.client import BaseClient
from peers import s3_client

MiB = 1024 * 1024
# 8 MiB parts both ways, boto3's default concurrency (10 threads). "classic" pins the pure-Python
# transfer manager, so boto3 never switches to the CRT one on machines it deems optimized.
TRANSFER = TransferConfig(multipart_threshold=8 * MiB, multipart_chunksize=8 * MiB, preferred_transfer_client="classic")
# One client per thread needs one connection; the transfer manager's 10 threads share one client.
POOL_CONNECTIONS = 16


class WrongData(Exception):
    """A server returned bytes that differ from what was written."""


@dataclass(frozen=True)
class SmallObjects:
    """``count`` objects of ``size`` bytes under ``prefix``, each with its index in its first 8 bytes."""

    prefix: str
    count: int
    size: int
    filler: bytes

    @classmethod
    def random(cls, prefix: str, count: int, size: int) -> SmallObjects:
        if size < 8:
            raise ValueError("small objects must be at least 8 bytes")
        return cls(prefix, count, size, os.urandom(size - 8))

    def key(self, index: int) -> str:
        return f"{self.prefix}/obj-{index:07d}"

    def body(self, index: int) -> bytes:
        return index.to_bytes(8, "big") + self.filler


def _clients(endpoint: str, bucket: str, count: int) -> list[BaseClient]:
    clients = [s3_client(endpoint, pool=POOL_CONNECTIONS) for _ in range(count)]
    for client in clients:
        # Untimed: open each connection and load botocore's lazy models before the clock starts.
        client.head_bucket(Bucket=bucket)
    return clients


def _ops_per_second(
    endpoint: str, bucket: str, count: int, threads: int, one: Callable[[BaseClient, int], None]
) -> float:
    """Run ``one(client, i)`` for i in range(count) over ``threads`` threads, one client each."""
    clients = _clients(endpoint, bucket, threads)
    abort = threading.Event()

    def work(client: BaseClient, indices: range) -> None:
        for index in indices:
            if abort.is_set():
                return
            one(client, index)

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="bench") as pool:
        start = time.perf_counter()
        futures = [pool.submit(work, clients[t], range(t, count, threads)) for t in range(threads)]
        try:
            for future in futures:
                future.result()
        except BaseException:
            # An error or Ctrl-C: the other threads stop after their current request.
            abort.set()
            raise
        elapsed = time.perf_counter() - start
    return count / elapsed


def put_small(endpoint: str, bucket: str, objects: SmallObjects, threads: int) -> float:
    """PUT every object; ops/s."""

    def put(client: BaseClient, index: int) -> None:
        client.put_object(Bucket=bucket, Key=objects.key(index), Body=objects.body(index))

    return _ops_per_second(endpoint, bucket, objects.count, threads, put)


def get_small(endpoint: str, bucket: str, objects: SmallObjects, threads: int) -> float:
    """GET every object and compare its bytes; ops/s."""

    def get(client: BaseClient, index: int) -> None:
        key = objects.key(index)
        data = client.get_object(Bucket=bucket, Key=key)["Body"].read()
        if data != objects.body(index):
            raise WrongData(f"GET {key}: {len(data)} bytes differ from the {objects.size} written")

    return _ops_per_second(endpoint, bucket, objects.count, threads, get)


@dataclass(frozen=True)
class BigFile:
    path: Path
    size: int
    sha256: str

    @classmethod
    def random(cls, path: Path, size: int) -> BigFile:
        """``size`` random bytes."""
        return cls._write(path, size, lambda offset: os.urandom(min(8 * MiB, size - offset)))

    @classmethod
    def repeating(cls, path: Path, size: int, block_size: int = 64 * MiB) -> BigFile:
        """``size`` bytes of one random block over and over (the last one cut short): cheap to make
        for many GiB, and no server here deduplicates it."""
        block = os.urandom(min(block_size, size))
        return cls._write(path, size, lambda offset: block[: size - offset])

    @classmethod
    def _write(cls, path: Path, size: int, piece_at) -> BigFile:
        digest = hashlib.sha256()
        with open(path, "wb") as out:
            offset = 0
            while offset < size:
                piece = piece_at(offset)
                digest.update(piece)
                out.write(piece)
                offset += len(piece)
        return cls(path, size, digest.hexdigest())


def put_big(endpoint: str, bucket: str, key: str, source: BigFile) -> float:
    """Upload the file multipart; MiB/s."""
    (client,) = _clients(endpoint, bucket, 1)
    start = time.perf_counter()
    client.upload_file(str(source.path), bucket, key, Config=TRANSFER)
    return source.size / MiB / (time.perf_counter() - start)


def get_big(endpoint: str, bucket: str, key: str, expected: BigFile, scratch: Path) -> float:
    """Download the object with ranged GETs into ``scratch``, then check its size and SHA-256; MiB/s."""
    (client,) = _clients(endpoint, bucket, 1)
    try:
        start = time.perf_counter()
        client.download_file(bucket, key, str(scratch), Config=TRANSFER)
        elapsed = time.perf_counter() - start
        size = scratch.stat().st_size
        if size != expected.size:
            raise WrongData(f"GET {key}: {size} bytes, expected {expected.size}")
        with open(scratch, "rb") as downloaded:
            if hashlib.file_digest(downloaded, "sha256").hexdigest() != expected.sha256:
                raise WrongData(f"GET {key}: SHA-256 differs from the uploaded file's")
    finally:
        scratch.unlink(missing_ok=True)
    return expected.size / MiB / elapsed
