"""The ObjectStore contract, run against every backend through the ``store`` fixture.

Tests talk to the store directly (no HTTP). They are backend-neutral: a new backend only needs a
new entry in ``BACKENDS`` and a branch in ``make_store``. The tests of the last section are specific
to the local backend (merging fragmented multipart objects, several processes on one data dir).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from aistor_lab.store import (
    MIN_PART_SIZE,
    SYSTEM_BUCKET,
    BucketAlreadyOwnedByYou,
    BucketNotEmpty,
    EntityTooSmall,
    InvalidPart,
    InvalidPartOrder,
    NoSuchBucket,
    NoSuchKey,
    NoSuchUpload,
    ObjectInfo,
    ObjectStore,
    PreconditionFailed,
    WriteCondition,
)
from aistor_lab.store.local import LocalStore
from aistor_lab.store.local import store as local_store
from aistor_lab.store.local.files import OBJECTS_DIR
from aistor_lab.store.local.index import INDEX_FILE
from aistor_lab.store.remote import RemoteS3Store

from .conftest import ROOT_PASSWORD, ROOT_USER
from .peer_servers import ACCESS_KEY, SECRET_KEY

BACKENDS = ["local", "remote", "seaweedfs"]
REPO_ROOT = Path(__file__).resolve().parents[1]


def make_store(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> ObjectStore:
    if backend == "local":
        return LocalStore(tmp_path / "store")
    if backend == "remote":
        # conftest's aistor-lab server as the remote S3; a bucket prefix per test keeps each
        # test's buckets apart from the others'.
        server = request.getfixturevalue("server")
        prefix = f"t{uuid.uuid4().hex[:8]}-"
        return RemoteS3Store(server.endpoint, ROOT_USER, ROOT_PASSWORD, bucket_prefix=prefix)
    if backend == "seaweedfs":
        # A SeaweedFS cluster (master, two volume servers, filer, S3 gateway) as the remote.
        endpoint = request.getfixturevalue("seaweedfs")
        prefix = f"t{uuid.uuid4().hex[:8]}-"
        return RemoteS3Store(endpoint, ACCESS_KEY, SECRET_KEY, bucket_prefix=prefix)
    raise ValueError(f"unknown backend {backend}")


def skip_on(request: pytest.FixtureRequest, backend: str, why: str) -> None:
    """Skip a contract test on one backend, saying what that remote does differently (and the store
    does not make up for yet)."""
    if request.node.callspec.params.get("store") == backend:
        pytest.skip(f"{backend}: {why}")


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path) -> Iterator[ObjectStore]:
    backend = make_store(request.param, tmp_path, request)
    yield backend
    backend.close()


@pytest.fixture
def bucket(store) -> str:
    """A fresh bucket in the store under test (overrides conftest's bucket, which is an S3 one)."""
    name = f"contract-{uuid.uuid4().hex[:12]}"
    store.create_bucket(name)
    return name


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def put(store: ObjectStore, bucket: str, key: str, data: bytes, **options) -> ObjectInfo:
    staging = store.stage()
    staging.write(data)
    return store.put_object(bucket, key, staging, **options)


def read(store: ObjectStore, bucket: str, key: str) -> bytes:
    return store.get_bytes(bucket, key)[1]


def upload_part(
    store: ObjectStore, bucket: str, key: str, upload_id: str, number: int, data: bytes, **options
) -> str:
    staging = store.stage()
    staging.write(data)
    return store.upload_part(bucket, key, upload_id, number, staging, **options).etag


def multipart_etag(*parts: bytes) -> str:
    return hashlib.md5(b"".join(hashlib.md5(part).digest() for part in parts)).hexdigest() + f"-{len(parts)}"


# Real checksum values: a remote S3 verifies the checksums it is given.
def crc32(data: bytes) -> str:
    return base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()


def sha256(data: bytes) -> str:
    return base64.b64encode(hashlib.sha256(data).digest()).decode()


def composite_crc32(*parts: bytes) -> str:
    return crc32(b"".join(base64.b64decode(crc32(part)) for part in parts)) + f"-{len(parts)}"


# Sizes on both sides of the local backend's inline limit (64 KiB) and of one read chunk (1 MiB).
SIZES = [0, 1, 4096, 64 * 1024, 64 * 1024 + 1, 3 * 1024 * 1024 + 7]


# -- buckets ------------------------------------------------------------------------------
def test_bucket_lifecycle(store):
    names = [f"contract-{uuid.uuid4().hex[:12]}" for _ in range(3)]
    for name in names:
        assert store.create_bucket(name).name == name
    assert store.get_bucket(names[0]).name == names[0]
    listed = [bucket.name for bucket in store.list_buckets()]
    assert set(names) <= set(listed)
    assert listed == sorted(listed)
    with pytest.raises(BucketAlreadyOwnedByYou):
        store.create_bucket(names[0])
    store.delete_bucket(names[0])
    with pytest.raises(NoSuchBucket):
        store.get_bucket(names[0])
    with pytest.raises(NoSuchBucket):
        store.delete_bucket(names[0])
    assert names[0] not in [bucket.name for bucket in store.list_buckets()]


def test_system_bucket_exists_but_is_never_listed(store):
    assert store.get_bucket(SYSTEM_BUCKET).name == SYSTEM_BUCKET
    assert SYSTEM_BUCKET not in [bucket.name for bucket in store.list_buckets()]
    put(store, SYSTEM_BUCKET, "state/doc.json", b"{}")
    assert read(store, SYSTEM_BUCKET, "state/doc.json") == b"{}"


def test_bucket_delete_refused_while_objects_exist_and_aborts_uploads_otherwise(store, bucket):
    put(store, bucket, "k", b"x")
    upload = store.create_multipart_upload(bucket, "pending")
    upload_part(store, bucket, "pending", upload.upload_id, 1, b"part")
    with pytest.raises(BucketNotEmpty):
        store.delete_bucket(bucket)
    assert [part.part_number for part in store.list_parts(bucket, "pending", upload.upload_id).parts] == [1]
    assert store.delete_object(bucket, "k")
    store.create_multipart_upload(bucket, "dir/other")
    store.delete_bucket(bucket)
    with pytest.raises(NoSuchBucket):
        store.get_bucket(bucket)
    with pytest.raises(NoSuchBucket):
        upload_part(store, bucket, "pending", upload.upload_id, 2, b"late")
    store.create_bucket(bucket)  # the same name again starts with no uploads
    assert store.list_multipart_uploads(bucket).uploads == []
    with pytest.raises(NoSuchUpload):
        store.list_parts(bucket, "pending", upload.upload_id)


def test_missing_bucket_is_reported_by_every_operation(store):
    missing = f"contract-missing-{uuid.uuid4().hex[:8]}"
    with pytest.raises(NoSuchBucket):
        put(store, missing, "k", b"x")
    with pytest.raises(NoSuchBucket):
        store.get_object_info(missing, "k")
    with pytest.raises(NoSuchBucket):
        store.open_object(missing, "k")
    with pytest.raises(NoSuchBucket):
        store.delete_object(missing, "k")
    with pytest.raises(NoSuchBucket):
        store.list_objects(missing)
    with pytest.raises(NoSuchBucket):
        store.create_multipart_upload(missing, "k")
    with pytest.raises(NoSuchBucket):
        store.list_multipart_uploads(missing)


# -- objects ------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_put_then_get_returns_the_same_bytes(store, bucket, size):
    data = os.urandom(size)
    info = put(store, bucket, "obj", data)
    assert (info.size, info.etag, info.parts_count) == (size, md5(data), None)
    assert store.get_object_info(bucket, "obj") == info
    got, body = store.get_bytes(bucket, "obj")
    assert body == data
    assert got == info
    assert [entry.key for entry in store.list_objects(bucket).objects] == ["obj"]


@pytest.mark.parametrize("size", [5000, 3 * 1024 * 1024 + 7])
def test_range_reads(store, bucket, size):
    data = os.urandom(size)
    put(store, bucket, "obj", data)
    ranges = [
        (0, None),
        (0, 1),
        (size - 1, None),
        (17, size // 2),
        (size // 3, size - 5),
        (10, size + 100),
        (size, None),
    ]
    with store.open_object(bucket, "obj") as handle:
        for start, end in ranges:
            assert handle.read(start, end) == data[start:end], (start, end)
        chunks = list(handle.iter_range(3, size - 3, chunk_size=1000))
        assert b"".join(chunks) == data[3 : size - 3]
        assert all(0 < len(chunk) <= 1000 for chunk in chunks)


def test_attributes_are_stored_with_the_object(store, bucket):
    attributes = {
        "content_type": "application/json",
        "metadata": {"owner": "ana", "colour": "blue"},
        "headers": {"Cache-Control": "no-cache", "Content-Disposition": "attachment"},
        "checksums": {"crc32": crc32(b"{}")},
    }
    info = put(store, bucket, "doc.json", b"{}", **attributes)
    found_in = [info, store.get_object_info(bucket, "doc.json"), store.get_bytes(bucket, "doc.json")[0]]
    if not isinstance(store, RemoteS3Store):  # S3 listings carry no attributes
        found_in.append(store.list_objects(bucket).objects[0])
    for found in found_in:
        assert found.content_type == "application/json"
        assert found.metadata == attributes["metadata"]
        assert found.headers == attributes["headers"]
        assert found.checksums == attributes["checksums"]
    assert put(store, bucket, "plain", b"x").content_type == "binary/octet-stream"


def test_overwrite_replaces_content_and_attributes(store, bucket):
    put(store, bucket, "k", os.urandom(200_000), metadata={"v": "1"}, content_type="text/plain")
    data = b"second"
    info = put(store, bucket, "k", data)
    assert store.get_object_info(bucket, "k") == info
    assert (info.metadata, info.content_type, info.etag) == ({}, "binary/octet-stream", md5(data))
    assert read(store, bucket, "k") == data
    assert len(store.list_objects(bucket).objects) == 1


def test_delete_object(store, bucket):
    put(store, bucket, "k", b"x")
    assert store.delete_object(bucket, "k")
    assert not store.delete_object(bucket, "k")
    with pytest.raises(NoSuchKey):
        store.get_object_info(bucket, "k")
    with pytest.raises(NoSuchKey):
        store.open_object(bucket, "k")
    assert store.list_objects(bucket).objects == []


@pytest.mark.parametrize("size", [100, 2 * 1024 * 1024])
def test_open_handle_is_a_snapshot(store, bucket, size):
    old, new = os.urandom(size), os.urandom(size + 1)
    put(store, bucket, "k", old)
    with store.open_object(bucket, "k") as handle:
        put(store, bucket, "k", new)
        assert read(store, bucket, "k") == new
        store.delete_object(bucket, "k")
        if isinstance(store, RemoteS3Store):
            # A remote S3 keeps no old versions: reads after a change fail rather than mix versions.
            with pytest.raises(PreconditionFailed):
                handle.read()
            return
        assert handle.read() == old
        assert handle.read(size // 2, size // 2 + 10) == old[size // 2 : size // 2 + 10]
        assert handle.info.etag == md5(old)


# -- copy ---------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [10, 300_000])
def test_copy_keeps_the_source_attributes_by_default(store, bucket, size):
    data = os.urandom(size)
    source = put(
        store, bucket, "src", data, content_type="text/csv", metadata={"a": "1"},
        headers={"Content-Language": "fr"}, checksums={"sha256": sha256(data)},
    )  # fmt: skip
    other = f"contract-{uuid.uuid4().hex[:12]}"
    store.create_bucket(other)
    copy = store.copy_object(bucket, "src", other, "dst", metadata=None, content_type="ignored/type")
    assert (copy.bucket, copy.key, copy.size, copy.etag) == (other, "dst", size, source.etag)
    assert (copy.content_type, copy.metadata, copy.headers, copy.checksums) == (
        "text/csv", {"a": "1"}, {"Content-Language": "fr"}, {"sha256": sha256(data)},
    )  # fmt: skip
    assert store.get_object_info(other, "dst") == copy
    put(store, bucket, "src", b"changed")
    store.delete_object(bucket, "src")
    assert read(store, other, "dst") == data


def test_copy_with_new_metadata_replaces_all_attributes(store, bucket):
    put(
        store,
        bucket,
        "src",
        b"data",
        content_type="text/csv",
        metadata={"a": "1"},
        headers={"Expires": "never"},
    )
    copy = store.copy_object(bucket, "src", bucket, "dst", metadata={"b": "2"}, content_type="text/plain")
    assert (copy.metadata, copy.content_type, copy.headers) == ({"b": "2"}, "text/plain", {})
    assert store.get_object_info(bucket, "src").metadata == {"a": "1"}
    assert read(store, bucket, "dst") == b"data"


@pytest.mark.parametrize("size", [10, 300_000])
def test_copy_onto_itself_changes_metadata_and_keeps_the_bytes(store, bucket, size):
    data = os.urandom(size)
    put(store, bucket, "k", data, metadata={"v": "1"})
    copy = store.copy_object(bucket, "k", bucket, "k", metadata={"v": "2"})
    assert store.get_object_info(bucket, "k") == copy
    assert copy.metadata == {"v": "2"}
    assert read(store, bucket, "k") == data


def test_copy_errors(store, bucket):
    with pytest.raises(NoSuchKey):
        store.copy_object(bucket, "missing", bucket, "dst")
    put(store, bucket, "src", b"1")
    put(store, bucket, "dst", b"2")
    with pytest.raises(NoSuchBucket):
        store.copy_object(bucket, "src", f"contract-missing-{uuid.uuid4().hex[:8]}", "dst")
    with pytest.raises(PreconditionFailed):
        store.copy_object(bucket, "src", bucket, "dst", condition=WriteCondition(if_none_match="*"))
    assert read(store, bucket, "dst") == b"2"


# -- conditional writes -------------------------------------------------------------------
def test_if_none_match_star_creates_only_once(store, bucket):
    create = WriteCondition(if_none_match="*")
    put(store, bucket, "k", b"first", condition=create)
    with pytest.raises(PreconditionFailed):
        put(store, bucket, "k", b"second", condition=create)
    assert read(store, bucket, "k") == b"first"


def test_if_match_is_a_compare_and_swap(store, bucket):
    with pytest.raises(NoSuchKey):
        put(store, bucket, "k", b"x", condition=WriteCondition(if_match='"0123"'))
    first = put(store, bucket, "k", b"v1")
    with pytest.raises(PreconditionFailed):
        put(store, bucket, "k", b"v2", condition=WriteCondition(if_match="0" * 32))
    second = put(store, bucket, "k", b"v2", condition=WriteCondition(if_match=f'"{first.etag}"'))
    third = put(store, bucket, "k", b"v3", condition=WriteCondition(if_match=second.etag))
    assert read(store, bucket, "k") == b"v3"
    with pytest.raises(PreconditionFailed):
        store.delete_object(bucket, "k", condition=WriteCondition(if_match=first.etag))
    assert store.delete_object(bucket, "k", condition=WriteCondition(if_match=f'"{third.etag}"'))
    with pytest.raises(NoSuchKey):
        store.get_object_info(bucket, "k")


def _race(count: int, attempt) -> list[object]:
    """Run ``attempt(i)`` in ``count`` threads released at once; each result or exception."""
    barrier = threading.Barrier(count)
    results: list[object] = [None] * count

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = attempt(i)
        except Exception as error:  # noqa: BLE001 - the race's losers are the point of the test
            results[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_racing_if_none_match_writers_have_exactly_one_winner(store, bucket):
    bodies = [f"writer {i}".encode() * 1000 for i in range(8)]
    results = _race(
        8, lambda i: put(store, bucket, "once", bodies[i], condition=WriteCondition(if_none_match="*"))
    )
    winners = [i for i, result in enumerate(results) if isinstance(result, ObjectInfo)]
    assert len(winners) == 1
    assert all(isinstance(result, PreconditionFailed) for i, result in enumerate(results) if i != winners[0])
    assert read(store, bucket, "once") == bodies[winners[0]]


def test_racing_if_match_writers_have_exactly_one_winner(store, bucket):
    base = put(store, bucket, "pointer", b"v0")
    results = _race(
        8,
        lambda i: put(store, bucket, "pointer", b"next %d" % i, condition=WriteCondition(if_match=base.etag)),
    )
    winners = [i for i, result in enumerate(results) if isinstance(result, ObjectInfo)]
    assert len(winners) == 1
    assert sum(isinstance(result, PreconditionFailed) for result in results) == 7
    assert read(store, bucket, "pointer") == b"next %d" % winners[0]


# -- listing ------------------------------------------------------------------------------
def _walk(store: ObjectStore, bucket: str, max_keys: int, **options) -> list[str]:
    """Every key and common prefix, page by page, checking each page's own promises."""
    items, marker = [], ""
    while True:
        page = store.list_objects(bucket, start_after=marker, max_keys=max_keys, **options)
        names = [entry.key for entry in page.objects] + page.common_prefixes
        assert len(names) <= max_keys
        items += sorted(names, key=str.encode)
        if not page.is_truncated:
            return items
        assert names and page.next_marker == max(names, key=str.encode)
        marker = page.next_marker


KEYS = [
    "a",
    "B",
    "a/1",
    "a/2",
    "a/b/1",
    "ab",
    "b/x",
    "c--1",
    "c--2",
    "é",
    "e",
    "z",
    "ä/x",
    "\u0100",
    "😀",
    "\ufffd",  # the greatest BMP character a key may hold (the S3 API refuses U+FFFE and U+FFFF)
]


def test_listing_is_in_utf8_byte_order(store, bucket):
    for key in KEYS:
        put(store, bucket, key, key.encode())
    listed = [entry.key for entry in store.list_objects(bucket).objects]
    assert listed == sorted(KEYS, key=str.encode)
    assert (
        listed.index("B") < listed.index("a") < listed.index("z") < listed.index("ä/x") < listed.index("😀")
    )


def test_listing_with_prefix_and_delimiter(store, bucket):
    for key in KEYS:
        put(store, bucket, key, b"")
    page = store.list_objects(bucket, delimiter="/")
    assert [entry.key for entry in page.objects] == [
        "B",
        "a",
        "ab",
        "c--1",
        "c--2",
        "e",
        "z",
        "é",
        "\u0100",
        "\ufffd",
        "😀",
    ]
    assert page.common_prefixes == ["a/", "b/", "ä/"]
    assert not page.is_truncated
    page = store.list_objects(bucket, prefix="a/", delimiter="/")
    assert ([entry.key for entry in page.objects], page.common_prefixes) == (["a/1", "a/2"], ["a/b/"])
    page = store.list_objects(bucket, prefix="a")
    assert [entry.key for entry in page.objects] == ["a", "a/1", "a/2", "a/b/1", "ab"]
    page = store.list_objects(bucket, prefix="c", delimiter="--")
    assert (page.objects, page.common_prefixes) == ([], ["c--"])
    assert store.list_objects(bucket, prefix="nothing/").objects == []


@pytest.mark.parametrize("max_keys", [1, 2, 3, 1000])
@pytest.mark.parametrize("options", [{}, {"delimiter": "/"}, {"prefix": "a", "delimiter": "/"}])
def test_pagination_visits_everything_once(store, bucket, max_keys, options):
    for key in KEYS + [f"deep/{i:03d}/leaf" for i in range(20)]:
        put(store, bucket, key, b"")
    whole = store.list_objects(bucket, **options)
    everything = sorted([entry.key for entry in whole.objects] + whole.common_prefixes, key=str.encode)
    assert _walk(store, bucket, max_keys, **options) == everything


def test_start_after(store, bucket):
    for key in KEYS:
        put(store, bucket, key, b"")
    assert [o.key for o in store.list_objects(bucket, start_after="c--1").objects][:2] == ["c--2", "e"]
    assert store.list_objects(bucket, prefix="a/", start_after="0").objects[0].key == "a/1"
    # Resuming after a common prefix skips every key under it.
    page = store.list_objects(bucket, delimiter="/", start_after="a/")
    assert page.objects[0].key == "ab"
    assert "a/" not in page.common_prefixes


def test_max_keys_zero_and_truncation(store, bucket):
    for key in ("x/1", "x/2", "y"):
        put(store, bucket, key, b"")
    page = store.list_objects(bucket, max_keys=0)
    assert (page.objects, page.common_prefixes, page.is_truncated) == ([], [], False)
    page = store.list_objects(bucket, delimiter="/", max_keys=1)
    assert (page.common_prefixes, page.is_truncated, page.next_marker) == (["x/"], True, "x/")
    page = store.list_objects(bucket, delimiter="/", max_keys=1, start_after="x/")
    assert ([o.key for o in page.objects], page.is_truncated, page.next_marker) == (["y"], False, None)


def test_listing_a_large_prefix_rolls_up_into_one_entry(store, bucket):
    for i in range(1500):
        put(store, bucket, f"big/{i:05d}", b"")
    put(store, bucket, "small", b"")
    page = store.list_objects(bucket, delimiter="/", max_keys=2)
    assert (page.common_prefixes, [o.key for o in page.objects], page.is_truncated) == (
        ["big/"],
        ["small"],
        False,
    )
    page = store.list_objects(bucket, prefix="big/", max_keys=1000)
    assert len(page.objects) == 1000 and page.is_truncated and page.next_marker == "big/00999"


# -- multipart ----------------------------------------------------------------------------
@pytest.fixture
def part_data() -> list[bytes]:
    return [os.urandom(MIN_PART_SIZE), os.urandom(MIN_PART_SIZE + 1), os.urandom(1234)]


def test_multipart_upload_roundtrip(store, bucket, part_data):
    upload = store.create_multipart_upload(
        bucket,
        "mp",
        content_type="text/plain",
        metadata={"m": "1"},
        headers={"Cache-Control": "max-age=1"},
        checksum_algorithm="crc32",
    )
    etags = [
        upload_part(store, bucket, "mp", upload.upload_id, n, data, checksums={"crc32": crc32(data)})
        for n, data in enumerate(part_data, 1)
    ]
    composite = composite_crc32(*part_data)
    assert etags == [md5(data) for data in part_data]
    listed = [(n, f'"{etag}"') for n, etag in enumerate(etags, 1)]
    info = store.complete_multipart_upload(
        bucket, "mp", upload.upload_id, listed, checksums={"crc32": composite}
    )
    assert re.fullmatch(r"[0-9a-f]{32}-3", info.etag)
    assert info.etag == multipart_etag(*part_data)
    assert (info.size, info.parts_count) == (sum(map(len, part_data)), 3)
    assert (info.content_type, info.metadata, info.headers) == (
        "text/plain",
        {"m": "1"},
        {"Cache-Control": "max-age=1"},
    )
    assert info.checksums == {"crc32": composite}
    assert store.get_object_info(bucket, "mp") == info
    assert read(store, bucket, "mp") == b"".join(part_data)
    with store.open_object(bucket, "mp") as handle:
        boundary = MIN_PART_SIZE
        assert handle.read(boundary - 3, boundary + 3) == b"".join(part_data)[boundary - 3 : boundary + 3]
    with pytest.raises(NoSuchUpload):
        store.list_parts(bucket, "mp", upload.upload_id)
    assert store.list_multipart_uploads(bucket).uploads == []


def test_part_range_locates_each_part_of_a_completed_upload(store, bucket, part_data):
    upload = store.create_multipart_upload(bucket, "parts")
    etags = [upload_part(store, bucket, "parts", upload.upload_id, n, data) for n, data in enumerate(part_data, 1)]
    store.complete_multipart_upload(bucket, "parts", upload.upload_id, list(enumerate(etags, 1)))
    info = store.get_object_info(bucket, "parts")
    starts = [0, len(part_data[0]), len(part_data[0]) + len(part_data[1])]
    for n, (start, data) in enumerate(zip(starts, part_data, strict=True), 1):
        assert store.part_range(info, n) == (start, start + len(data))


def test_single_small_part_upload(store, bucket):
    upload = store.create_multipart_upload(bucket, "metadata.json")
    etag = upload_part(store, bucket, "metadata.json", upload.upload_id, 1, b"{}")
    info = store.complete_multipart_upload(bucket, "metadata.json", upload.upload_id, [(1, etag)])
    assert info.etag == multipart_etag(b"{}")
    assert read(store, bucket, "metadata.json") == b"{}"


def test_completing_again_answers_the_object_while_it_is_current(store, bucket):
    """S3 answers a repeated CompleteMultipartUpload with the object the upload made, as long as that
    object is the key's current version; then the upload is gone (NoSuchUpload)."""
    upload = store.create_multipart_upload(bucket, "again", checksum_algorithm="sha256")
    data = b"the only part"
    digest = base64.b64encode(hashlib.sha256(data).digest()).decode()
    etag = upload_part(store, bucket, "again", upload.upload_id, 1, data, checksums={"sha256": digest})
    first = store.complete_multipart_upload(bucket, "again", upload.upload_id, [(1, etag)])
    again = store.complete_multipart_upload(bucket, "again", upload.upload_id, [(1, etag)])
    assert (again.etag, again.size, again.checksums) == (first.etag, len(data), first.checksums)
    assert read(store, bucket, "again") == data
    put(store, bucket, "again", b"replaced")
    with pytest.raises(NoSuchUpload):
        store.complete_multipart_upload(bucket, "again", upload.upload_id, [(1, etag)])
    with pytest.raises(NoSuchUpload):
        store.complete_multipart_upload(bucket, "other", upload.upload_id, [(1, etag)])


def test_local_parts_keep_their_checksums_in_the_completed_object(tmp_path, part_data):
    store = LocalStore(tmp_path / "store")
    try:
        store.create_bucket("b")
        upload = store.create_multipart_upload("b", "mp", checksum_algorithm="crc32", checksum_type="FULL_OBJECT")
        assert store.list_parts("b", "mp", upload.upload_id).upload.checksum_type == "FULL_OBJECT"
        sums = [{"crc32": crc32(data)} for data in part_data]
        etags = [
            upload_part(store, "b", "mp", upload.upload_id, n, data, checksums=sums[n - 1])
            for n, data in enumerate(part_data, 1)
        ]
        store.complete_multipart_upload("b", "mp", upload.upload_id, list(enumerate(etags, 1)))
        info = store.get_object_info("b", "mp")
        assert [info.part_checksums_of(n) for n in (1, 2, 3, 4)] == [*sums, {}]
    finally:
        store.close()


def test_uploading_a_part_again_replaces_it(store, bucket, part_data):
    upload = store.create_multipart_upload(bucket, "mp")
    old = upload_part(store, bucket, "mp", upload.upload_id, 1, part_data[2])
    new = upload_part(store, bucket, "mp", upload.upload_id, 1, part_data[0])
    parts = store.list_parts(bucket, "mp", upload.upload_id).parts
    assert [(p.part_number, p.etag, p.size) for p in parts] == [(1, new, MIN_PART_SIZE)]
    with pytest.raises(InvalidPart):
        store.complete_multipart_upload(bucket, "mp", upload.upload_id, [(1, old)])
    store.complete_multipart_upload(bucket, "mp", upload.upload_id, [(1, new)])
    assert read(store, bucket, "mp") == part_data[0]


def test_complete_rejects_bad_part_lists_and_keeps_the_upload(store, bucket, part_data):
    upload = store.create_multipart_upload(bucket, "mp")
    uid = upload.upload_id
    small = upload_part(store, bucket, "mp", uid, 1, part_data[2])
    big = upload_part(store, bucket, "mp", uid, 2, part_data[0])
    last = upload_part(store, bucket, "mp", uid, 3, part_data[2])
    with pytest.raises(InvalidPartOrder):
        store.complete_multipart_upload(bucket, "mp", uid, [(2, big), (1, small)])
    with pytest.raises(InvalidPartOrder):
        store.complete_multipart_upload(bucket, "mp", uid, [(2, big), (2, big)])
    with pytest.raises(InvalidPart):
        store.complete_multipart_upload(bucket, "mp", uid, [(2, big), (4, last)])
    with pytest.raises(InvalidPart):
        store.complete_multipart_upload(bucket, "mp", uid, [(2, small)])
    with pytest.raises(EntityTooSmall):
        store.complete_multipart_upload(bucket, "mp", uid, [(1, small), (2, big)])
    with pytest.raises(NoSuchKey):
        store.get_object_info(bucket, "mp")
    assert len(store.list_parts(bucket, "mp", uid).parts) == 3
    # Unlisted parts (1) are dropped by the completion.
    info = store.complete_multipart_upload(bucket, "mp", uid, [(2, big), (3, last)])
    assert info.etag == multipart_etag(part_data[0], part_data[2])
    assert read(store, bucket, "mp") == part_data[0] + part_data[2]


def test_complete_honours_the_write_condition(store, bucket):
    put(store, bucket, "mp", b"existing")
    upload = store.create_multipart_upload(bucket, "mp")
    etag = upload_part(store, bucket, "mp", upload.upload_id, 1, b"new")
    with pytest.raises(PreconditionFailed):
        store.complete_multipart_upload(
            bucket, "mp", upload.upload_id, [(1, etag)], condition=WriteCondition(if_none_match="*")
        )
    assert read(store, bucket, "mp") == b"existing"
    current = store.get_object_info(bucket, "mp").etag
    store.complete_multipart_upload(
        bucket, "mp", upload.upload_id, [(1, etag)], condition=WriteCondition(if_match=current)
    )
    assert read(store, bucket, "mp") == b"new"


def test_abort_and_unknown_uploads(store, bucket):
    upload = store.create_multipart_upload(bucket, "mp")
    etag = upload_part(store, bucket, "mp", upload.upload_id, 1, b"x")
    with pytest.raises(NoSuchUpload):
        store.list_parts(bucket, "other-key", upload.upload_id)
    store.abort_multipart_upload(bucket, "mp", upload.upload_id)
    with pytest.raises(NoSuchUpload):
        store.abort_multipart_upload(bucket, "mp", upload.upload_id)
    with pytest.raises(NoSuchUpload):
        upload_part(store, bucket, "mp", upload.upload_id, 2, b"y")
    with pytest.raises(NoSuchUpload):
        store.complete_multipart_upload(bucket, "mp", upload.upload_id, [(1, etag)])
    with pytest.raises(NoSuchUpload):
        store.list_parts(bucket, "mp", upload.upload_id)
    with pytest.raises(NoSuchKey):
        store.get_object_info(bucket, "mp")


def test_upload_part_copy(store, bucket, part_data):
    big, small = part_data[1], b"0123456789" * 10
    put(store, bucket, "big", big)
    put(store, bucket, "small", small)
    upload = store.create_multipart_upload(bucket, "mp")
    first = store.upload_part_copy(bucket, "mp", upload.upload_id, 1, bucket, "big", 1, MIN_PART_SIZE + 1)
    second = store.upload_part_copy(bucket, "mp", upload.upload_id, 2, bucket, "small", 5, 50)
    assert (first.size, second.size) == (MIN_PART_SIZE, 45)
    # SeaweedFS makes a copied part's ETag from its chunks, not its bytes (its traits say so).
    md5_etags = not isinstance(store, RemoteS3Store) or store.traits.copied_part_etags_are_md5
    if md5_etags:
        assert (first.etag, second.etag) == (md5(big[1 : MIN_PART_SIZE + 1]), md5(small[5:50]))
    put(store, bucket, "big", b"overwritten after the copy")
    info = store.complete_multipart_upload(
        bucket, "mp", upload.upload_id, [(1, first.etag), (2, second.etag)]
    )
    assert read(store, bucket, "mp") == big[1 : MIN_PART_SIZE + 1] + small[5:50]
    if md5_etags:
        assert info.etag == multipart_etag(big[1 : MIN_PART_SIZE + 1], small[5:50])
    with pytest.raises(NoSuchKey):
        store.upload_part_copy(
            bucket, "mp2", store.create_multipart_upload(bucket, "mp2").upload_id, 1, bucket, "nope"
        )


def test_a_part_replaced_by_a_copy_is_the_copy(store, bucket):
    put(store, bucket, "src", b"copied bytes")
    upload = store.create_multipart_upload(bucket, "mp")
    upload_part(store, bucket, "mp", upload.upload_id, 1, b"uploaded bytes")
    copied = store.upload_part_copy(bucket, "mp", upload.upload_id, 1, bucket, "src")
    parts = store.list_parts(bucket, "mp", upload.upload_id).parts
    assert [(p.part_number, p.etag, p.size) for p in parts] == [(1, copied.etag, len(b"copied bytes"))]
    store.complete_multipart_upload(bucket, "mp", upload.upload_id, [(1, copied.etag)])
    assert read(store, bucket, "mp") == b"copied bytes"


def test_list_parts_pages(store, bucket):
    upload = store.create_multipart_upload(bucket, "mp", checksum_algorithm="crc32")
    for number in (1, 2, 5):
        staging = store.stage()
        staging.write(b"p%d" % number)
        checksums = {"crc32": crc32(b"p%d" % number)}
        store.upload_part(bucket, "mp", upload.upload_id, number, staging, checksums=checksums)
    page = store.list_parts(bucket, "mp", upload.upload_id, max_parts=2)
    assert page.upload.checksum_algorithm == "crc32"
    assert ([p.part_number for p in page.parts], page.is_truncated, page.next_part_marker) == (
        [1, 2],
        True,
        2,
    )
    assert [p.checksums for p in page.parts] == [{"crc32": crc32(b"p1")}, {"crc32": crc32(b"p2")}]
    page = store.list_parts(bucket, "mp", upload.upload_id, part_number_marker=2)
    assert ([p.part_number for p in page.parts], page.is_truncated, page.next_part_marker) == (
        [5],
        False,
        None,
    )
    assert page.parts[0].etag == md5(b"p5") and page.parts[0].size == 2


def test_list_multipart_uploads(store, bucket):
    created = [store.create_multipart_upload(bucket, key) for key in ("a/1", "a/2", "b", "b", "c/x/1")]
    page = store.list_multipart_uploads(bucket)
    assert [(u.key, u.upload_id) for u in page.uploads] == [(u.key, u.upload_id) for u in created]
    page = store.list_multipart_uploads(bucket, delimiter="/")
    assert ([u.key for u in page.uploads], page.common_prefixes) == (["b", "b"], ["a/", "c/"])
    page = store.list_multipart_uploads(bucket, prefix="a/")
    assert [u.key for u in page.uploads] == ["a/1", "a/2"]
    # Page one upload at a time with both markers.
    seen, key_marker, id_marker = [], "", ""
    while True:
        page = store.list_multipart_uploads(
            bucket, key_marker=key_marker, upload_id_marker=id_marker, max_uploads=1
        )
        seen += [u.upload_id for u in page.uploads]
        if not page.is_truncated:
            break
        key_marker, id_marker = page.next_key_marker, page.next_upload_id_marker
    assert seen == [u.upload_id for u in created]
    page = store.list_multipart_uploads(bucket, delimiter="/", max_uploads=1)
    assert (page.common_prefixes, page.is_truncated, page.next_key_marker) == (["a/"], True, "a/")
    page = store.list_multipart_uploads(bucket, delimiter="/", key_marker="a/")
    assert ([u.key for u in page.uploads], page.common_prefixes) == (["b", "b"], ["c/"])


# -- local backend specifics ------------------------------------------------------------------
def test_local_multipart_object_of_many_part_files_is_merged_into_one(tmp_path, monkeypatch):
    monkeypatch.setattr(local_store, "MAX_FILES_PER_OBJECT", 2)
    store = LocalStore(tmp_path / "store")
    try:
        store.create_bucket("b")
        data = [os.urandom(MIN_PART_SIZE), os.urandom(MIN_PART_SIZE), os.urandom(100_000)]
        upload = store.create_multipart_upload("b", "mp")
        listed = [
            (n, upload_part(store, "b", "mp", upload.upload_id, n, part)) for n, part in enumerate(data, 1)
        ]
        info = store.complete_multipart_upload("b", "mp", upload.upload_id, listed)
        assert info.etag == multipart_etag(*data)
        with store.open_object("b", "mp") as handle:
            assert len(handle.segments) == 1
            assert handle.read() == b"".join(data)
        assert len(list((tmp_path / "store" / OBJECTS_DIR).glob("*/*"))) == 1  # the part files are gone
    finally:
        store.close()


def test_local_index_of_an_older_release_gains_part_sizes(tmp_path):
    """Objects completed before part sizes were recorded claim no parts (GET ?partNumber=1 is all of
    the object then); those completed after the index is opened again have their sizes."""
    store = LocalStore(tmp_path / "store")
    try:
        store.create_bucket("b")
        for key in ("old", "new"):
            if key == "new":
                store.close()
                with sqlite3.connect(tmp_path / "store" / INDEX_FILE) as conn:
                    conn.execute("ALTER TABLE objects DROP COLUMN part_sizes")  # as the older release made it
                store = LocalStore(tmp_path / "store")
            upload = store.create_multipart_upload("b", key)
            etag = upload_part(store, "b", key, upload.upload_id, 1, b"only part")
            store.complete_multipart_upload("b", key, upload.upload_id, [(1, etag)])
        old, new = store.get_object_info("b", "old"), store.get_object_info("b", "new")
        assert (old.parts_count, old.part_sizes) == (None, ())
        assert (new.parts_count, new.part_sizes) == (1, (9,))
    finally:
        store.close()


def _upload_racing_a_bucket_delete(store: LocalStore, upload_id: str, number: int, outcomes: list[str]) -> None:
    """A part upload (odd numbers) or a new upload (even) in bucket b; notes how it ended."""
    try:
        if number % 2:
            upload_part(store, "b", "mp", upload_id, number, os.urandom(100_000))
        else:
            store.create_multipart_upload("b", f"new-{number}")
        outcomes.append("done")
    except (NoSuchBucket, NoSuchUpload) as error:
        outcomes.append(type(error).__name__)


def test_local_bucket_delete_leaves_no_part_file_and_racing_uploads_end_cleanly(tmp_path):
    store = LocalStore(tmp_path / "store")
    objects = tmp_path / "store" / OBJECTS_DIR
    try:
        for round_ in range(20):
            store.create_bucket("b")
            upload = store.create_multipart_upload("b", "mp")
            upload_part(store, "b", "mp", upload.upload_id, 1, os.urandom(100_000))
            outcomes: list[str] = []
            threads = [
                threading.Thread(target=_upload_racing_a_bucket_delete, args=(store, upload.upload_id, n, outcomes))
                for n in range(2, 8)
            ]
            for thread in threads:
                thread.start()
            store.delete_bucket("b")
            for thread in threads:
                thread.join()
            assert len(outcomes) == 6, f"round {round_}: a racing call failed otherwise"
            with pytest.raises(NoSuchBucket):
                store.list_multipart_uploads("b")
            assert list(objects.glob("*/*")) == []  # every staged part file went with the bucket
    finally:
        store.close()


_WRITER = """
import json, sys
from pathlib import Path
from aistor_lab.store import PreconditionFailed, WriteCondition
from aistor_lab.store.local import LocalStore
from aistor_lab.store.local.files import OBJECTS_DIR

data_dir, writer, rounds = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
store = LocalStore(data_dir)

def put(key, body, **options):
    staging = store.stage()
    staging.write(body)
    return store.put_object("shared", key, staging, **options)

def body(writer, i):
    return (f"{writer}:{i}:".encode() * 40000)[: 1000 + (i % 3) * 100_000]

for i in range(rounds):
    put(f"w{writer}/{i}", body(writer, i))
    put(f"same/{i % 5}", body(writer, i), metadata={"writer": str(writer), "i": str(i)})
try:
    put("once", str(writer).encode(), condition=WriteCondition(if_none_match="*"))
    won = True
except PreconditionFailed:
    won = False
store.close()
print(json.dumps({"writer": writer, "won": won}))
"""


def _expected_body(writer: int, i: int) -> bytes:
    return (f"{writer}:{i}:".encode() * 40000)[: 1000 + (i % 3) * 100_000]


def test_processes_sharing_a_data_dir(tmp_path):
    """Writer processes, each with its own LocalStore on one data dir, next to ours: every write
    lands whole, the last writer of a shared key wins whole, and If-None-Match has one winner."""
    store = LocalStore(tmp_path / "store")
    store.create_bucket("shared")
    writers, rounds = 4, 30
    command = [sys.executable, "-c", _WRITER, str(tmp_path / "store")]
    children = [
        subprocess.Popen(
            [*command, str(writer), str(rounds)], cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True
        )
        for writer in range(writers)
    ]
    results = []
    for child in children:
        out, _ = child.communicate(timeout=300)
        assert child.returncode == 0
        results.append(json.loads(out))
    try:
        assert sum(result["won"] for result in results) == 1
        winner = next(result["writer"] for result in results if result["won"])
        assert read(store, "shared", "once") == str(winner).encode()
        listed = {entry.key: entry for entry in store.list_objects("shared").objects}
        assert len(listed) == writers * rounds + 5 + 1
        for writer in range(writers):
            for i in range(rounds):
                data = read(store, "shared", f"w{writer}/{i}")
                assert data == _expected_body(writer, i)
                assert listed[f"w{writer}/{i}"].etag == md5(data)
        for slot in range(5):
            info, data = store.get_bytes("shared", f"same/{slot}")
            assert data == _expected_body(int(info.metadata["writer"]), int(info.metadata["i"]))
            assert info.etag == md5(data)
    finally:
        store.close()
