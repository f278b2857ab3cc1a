"""What only the remote S3 backend does, against a real aistor-lab server as its remote
(the shared contract runs in test_store_contract.py)."""

from __future__ import annotations

import hashlib
import uuid

import pytest

from aistor_lab.store import (
    MIN_PART_SIZE,
    SYSTEM_BUCKET,
    PreconditionFailed,
    RemoteS3Store,
    StoreError,
    WriteCondition,
)

from .conftest import ROOT_PASSWORD, ROOT_USER, make_s3_client


def remote_store(server, **options) -> RemoteS3Store:
    return RemoteS3Store(server.endpoint, ROOT_USER, ROOT_PASSWORD, **options)


def put(store: RemoteS3Store, bucket: str, key: str, data: bytes, **options):
    staging = store.stage()
    staging.write(data)
    return store.put_object(bucket, key, staging, **options)


def test_objects_over_the_threshold_go_up_in_parts(server):
    store = remote_store(server, multipart_threshold=MIN_PART_SIZE)
    bucket = f"remote-{uuid.uuid4().hex[:12]}"
    store.create_bucket(bucket)
    data = hashlib.sha256(b"seed").digest() * (2 * MIN_PART_SIZE // 32 + 1)
    info = put(store, bucket, "big", data, condition=WriteCondition(if_none_match="*"))
    assert (info.size, info.parts_count) == (len(data), 3)
    assert info.etag.endswith("-3") and store.get_object_info(bucket, "big") == info
    assert store.get_bytes(bucket, "big")[1] == data
    with pytest.raises(PreconditionFailed):
        put(store, bucket, "big", b"x" * (MIN_PART_SIZE + 1), condition=WriteCondition(if_none_match="*"))
    assert store.list_multipart_uploads(bucket).uploads == []  # the failed write left no upload behind
    store.close()


def test_bucket_prefix_and_system_bucket_on_the_remote(server):
    tag = uuid.uuid4().hex[:8]
    one = remote_store(server, bucket_prefix=f"one{tag}-", system_bucket=f"one{tag}-system")
    two = remote_store(server, bucket_prefix=f"two{tag}-")
    one.create_bucket("data")
    one.put_bytes(SYSTEM_BUCKET, "state.json", b"{}")
    assert [bucket.name for bucket in one.list_buckets()] == ["data"]
    assert two.list_buckets() == []
    remote_names = [bucket["Name"] for bucket in make_s3_client(server.endpoint).list_buckets()["Buckets"]]
    assert {f"one{tag}-data", f"one{tag}-system"} <= set(remote_names)
    with pytest.raises(StoreError) as refused:
        one.create_bucket("system")  # would be the system bucket on the remote
    assert refused.value.code == "InvalidBucketName"
    one.close()
    two.close()


def test_resuming_after_a_common_prefix_skips_keys_past_the_greatest_character(server):
    store = remote_store(server)
    bucket = f"remote-{uuid.uuid4().hex[:12]}"
    store.create_bucket(bucket)
    for key in ("p/a", "p/\U0010ffff", "p/\U0010ffff\U0010ffff/x", "q"):
        put(store, bucket, key, b"")
    page = store.list_objects(bucket, delimiter="/", start_after="p/")
    assert ([entry.key for entry in page.objects], page.common_prefixes, page.is_truncated) == (
        ["q"],
        [],
        False,
    )
    store.close()


def test_remote_errors_keep_their_s3_code(server):
    store = remote_store(server)
    bucket = f"remote-{uuid.uuid4().hex[:12]}"
    store.create_bucket(bucket)
    with pytest.raises(StoreError) as refused:
        put(store, bucket, "k", b"data", checksums={"crc32": "AAAAAA=="})
    assert refused.value.code == "BadDigest"
    assert store.list_objects(bucket).objects == []
    store.close()


def test_server_in_front_of_a_remote_store(server, tmp_path):
    """A second aistor-lab server keeps everything in the first one: the scale-out setup."""
    from aistor_lab.workbench.jupyter.process import ServiceProcess

    front = ServiceProcess(tmp_path / "front", env={"AISTOR_STORE_ENDPOINT": server.endpoint},
                           log_path=tmp_path / "front.log")
    with front:
        client = make_s3_client(front.endpoint)
        client.create_bucket(Bucket="through-front")
        client.put_object(Bucket="through-front", Key="k", Body=b"kept remotely", IfNoneMatch="*")
        with pytest.raises(Exception, match="PreconditionFailed"):
            client.put_object(Bucket="through-front", Key="k", Body=b"again", IfNoneMatch="*")
        backing = make_s3_client(server.endpoint)
        assert backing.get_object(Bucket="through-front", Key="k")["Body"].read() == b"kept remotely"
        assert client.get_object(Bucket="through-front", Key="k", Range="bytes=5-12")["Body"].read() == b"remotely"
        assert "aistor-system" not in [b["Name"] for b in client.list_buckets()["Buckets"]]
        assert not (tmp_path / "front" / "objects").exists() or not any((tmp_path / "front" / "objects").iterdir())
