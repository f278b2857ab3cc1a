"""EncryptingStore as the catalog, sharing and lifecycle use it (no S3 layer): bucket defaults
applied to writes, plaintext for readers, ciphertext in the backend, copies between encrypted and
plain buckets, SSE-C refused to readers without the key.

Over the local backend only: the remote backend's tests use an aistor-lab server as their remote,
and aistor-lab refuses the reserved metadata names from any client, a front server included (see
the README); the remote path needs a MinIO or AWS remote."""

from __future__ import annotations

import hashlib
import os
import uuid

import pytest

from aistor_lab.s3.encryption import bucket_config
from aistor_lab.store import LocalStore, NoSuchUpload
from aistor_lab.store.encryption import (
    AES256,
    AWS_KMS,
    SSE_C,
    BucketDefault,
    CustomerKey,
    EncryptionParametersInvalid,
    EncryptionParams,
    EncryptionRequest,
    MasterKeys,
)
from aistor_lab.store.encryption.store import EncryptingStore

KEYS = MasterKeys(os.urandom(32), {"main": os.urandom(32)}, "main")


@pytest.fixture
def inner(tmp_path):
    backend = LocalStore(tmp_path / "store")
    yield backend
    backend.close()


@pytest.fixture
def store(inner) -> EncryptingStore:
    return EncryptingStore(inner, KEYS)


def new_bucket(store, default: BucketDefault | None = None) -> str:
    name = f"sse-{uuid.uuid4().hex[:12]}"
    store.create_bucket(name)
    if default is not None:
        store.put_bucket_config(name, bucket_config.CONFIG_NAME, bucket_config.to_xml(default))
    return name


def data(size: int) -> bytes:
    return b"".join(hashlib.sha256(i.to_bytes(8, "big")).digest() for i in range(-(-size // 32)))[:size]


@pytest.mark.parametrize("default", [BucketDefault(AES256), BucketDefault(AWS_KMS, "main")], ids=["s3", "kms"])
def test_bucket_default_applies_to_the_services_writes(store, inner, default):
    bucket = new_bucket(store, default)
    body = data(150_000)
    written = store.put_bytes(bucket, "doc.json", body)
    assert written.encryption.mode == default.algorithm and written.size == len(body)
    info, read = store.get_bytes(bucket, "doc.json")
    assert read == body and info.size == len(body) and info.metadata == {}
    _, stored = inner.get_bytes(bucket, "doc.json")
    assert len(stored) > len(body) and body[1000:1032] not in stored
    with store.open_object(bucket, "doc.json") as handle:
        assert handle.read(70_000, 140_000) == body[70_000:140_000]
    listed = store.list_objects(bucket).objects[0]
    # Remote listings carry no metadata: the stored size shows (README, "On an existing S3 cluster").
    assert listed.size == len(body)


def test_copies_between_encrypted_and_plain_buckets(store, inner):
    encrypted = new_bucket(store, BucketDefault(AES256))
    plain = new_bucket(store)
    body = data(80_000)
    store.put_bytes(plain, "a", body)
    copied = store.copy_object(plain, "a", encrypted, "b")
    assert copied.encryption.mode == AES256 and store.get_bytes(encrypted, "b")[1] == body
    assert inner.get_bytes(encrypted, "b")[1] != body
    back = store.copy_object(encrypted, "b", plain, "c")
    assert back.encryption is None and inner.get_bytes(plain, "c")[1] == body


def test_sse_c_objects_need_the_customer_key(store):
    bucket = new_bucket(store)
    customer = CustomerKey(os.urandom(32))
    writer = store.with_encryption(EncryptionParams(write=EncryptionRequest(SSE_C, customer_key=customer)))
    with writer.stage_for(bucket, "c") as staging:
        staging.write(b"secret")
        writer.put_object(bucket, "c", staging)
    with pytest.raises(EncryptionParametersInvalid):
        store.get_bytes(bucket, "c")  # the catalog or sharing: no key
    reader = store.with_encryption(EncryptionParams(customer_key=customer))
    assert reader.get_bytes(bucket, "c")[1] == b"secret"


def test_an_encrypted_upload_keeps_its_key_out_of_sight(store):
    bucket = new_bucket(store, BucketDefault(AES256))
    upload = store.create_multipart_upload(bucket, "mp", metadata={"owner": "me"})
    assert upload.encryption.mode == AES256 and upload.metadata == {"owner": "me"}
    listed = store.list_multipart_uploads(bucket).uploads[0]
    assert listed.encryption.mode == AES256 and listed.metadata == {"owner": "me"}
    store.abort_multipart_upload(bucket, "mp", upload.upload_id)
    with pytest.raises(NoSuchUpload):
        store.list_parts(bucket, "mp", upload.upload_id)


def test_a_bucket_made_again_under_its_name_has_no_default(store):
    bucket = new_bucket(store, BucketDefault(AES256))
    assert store.put_bytes(bucket, "a", b"x").encryption is not None
    store.delete_object(bucket, "a")
    store.delete_bucket(bucket)
    store.create_bucket(bucket)
    assert store.put_bytes(bucket, "a", b"x").encryption is None
