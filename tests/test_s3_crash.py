"""Killing the server with SIGKILL in the middle of uploads leaves only whole objects."""

from __future__ import annotations

import hashlib
import io
import os
import threading
import time

from boto3.s3.transfer import TransferConfig
from botocore.exceptions import BotoCoreError, ClientError

from aistor_lab.workbench.jupyter.process import ServiceProcess

from .conftest import make_s3_client

MiB = 1024 * 1024

def _upload_until_killed(endpoint: str, bucket: str, stop: threading.Event, sizes: list[int]) -> None:
    client = make_s3_client(endpoint, connect_timeout=2, read_timeout=5)
    config = TransferConfig(multipart_threshold=6 * MiB, multipart_chunksize=6 * MiB, max_concurrency=2)
    i = 0
    while not stop.is_set():
        size = sizes[i % len(sizes)]
        body = (f"{i:08d}".encode() * (size // 8 + 1))[:size]
        try:
            if size >= 6 * MiB:

                client.upload_fileobj(io.BytesIO(body), bucket, f"obj-{i % 7}", Config=config)
            else:
                client.put_object(Bucket=bucket, Key=f"obj-{i % 7}", Body=body)
        except (BotoCoreError, ClientError, OSError):
            return
        i += 1

def test_sigkill_mid_upload_leaves_whole_objects(tmp_path):
    data = tmp_path / "data"
    service = ServiceProcess(data, log_path=tmp_path / "server.log").start()
    client = make_s3_client(service.endpoint)
    client.create_bucket(Bucket="crash")
    stable = os.urandom(3 * MiB)
    client.put_object(Bucket="crash", Key="stable", Body=stable)
    try:
        for round_ in range(4):
            stop = threading.Event()
            writers = [
                threading.Thread(target=_upload_until_killed,
                                 args=(service.endpoint, "crash", stop, [200_000, 13 * MiB, 7 * MiB]))
                for _ in range(2)
            ]
            for writer in writers:
                writer.start()
            time.sleep(1.0 + 0.7 * round_)
            service.kill()
            stop.set()
            for writer in writers:
                writer.join(30)
            service = ServiceProcess(data, port=service.port, log_path=tmp_path / "server.log").start()
            client = make_s3_client(service.endpoint)
            listed = client.list_objects_v2(Bucket="crash").get("Contents", [])
            assert "stable" in [o["Key"] for o in listed]
            for entry in listed:
                body = client.get_object(Bucket="crash", Key=entry["Key"])["Body"].read()
                assert len(body) == entry["Size"]
                etag = entry["ETag"].strip('"')
                if "-" not in etag:
                    assert hashlib.md5(body).hexdigest() == etag
                if entry["Key"] != "stable":
                    # every object is one writer's whole, uniform payload
                    assert body == (body[:8] * (len(body) // 8 + 1))[: len(body)]
            assert client.get_object(Bucket="crash", Key="stable")["Body"].read() == stable
    finally:
        service.stop()
