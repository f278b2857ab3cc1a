"""The versioning part of the ObjectStore contract, against every backend (the fixtures of
test_store_contract.py): version ids, delete markers, null versions, versioned reads, deletes and
copies, ListObjectVersions paging, object lock, and the bucket configuration documents.
"""

from __future__ import annotations

import os
import time
import uuid

import pytest

from aistor_lab.store import (
    COMPLIANCE,
    GOVERNANCE,
    NULL_VERSION,
    VERSIONING_ENABLED,
    VERSIONING_SUSPENDED,
    BucketNotEmpty,
    DeleteMarkerVersion,
    NoSuchBucket,
    NoSuchKey,
    NoSuchVersion,
    ObjectLock,
    ObjectLocked,
    ObjectStore,
)
from aistor_lab.store.local import LocalStore
from aistor_lab.store.local.files import OBJECTS_DIR

from . import test_store_contract as contract

# The contract's fixtures and helper: every test here runs against every backend.
store, bucket, put = contract.store, contract.bucket, contract.put

BIG = 200 * 1024  # past the local store's inline limit: the version lives in a data file


def versions(store: ObjectStore, bucket: str, **options) -> list[tuple[str, str, bool, bool]]:
    """(key, version id, is latest, is a delete marker) of one listing page."""
    page = store.list_object_versions(bucket, **options)
    return [(v.info.key, v.info.version_id, v.is_latest, v.is_delete_marker) for v in page.versions]


def read(store: ObjectStore, bucket: str, key: str, version_id: str | None = None) -> bytes:
    with store.open_object(bucket, key, version_id) as handle:
        return handle.read()


def test_a_bucket_never_versioned_has_no_version_ids_but_lists_null_versions(store, bucket):
    assert store.get_bucket(bucket).versioning is None
    assert put(store, bucket, "k", b"one").version_id is None
    assert store.get_object_info(bucket, "k").version_id is None
    assert versions(store, bucket) == [("k", NULL_VERSION, True, False)]
    assert read(store, bucket, "k", NULL_VERSION) == b"one"
    result = store.delete_object(bucket, "k")
    assert result and not result.delete_marker
    assert versions(store, bucket) == []


def test_enabled_keeps_every_version_and_reads_each(store, bucket):
    put(store, bucket, "k", b"before")  # the null version
    store.set_versioning(bucket, VERSIONING_ENABLED)
    assert store.get_bucket(bucket).versioning == VERSIONING_ENABLED
    first = put(store, bucket, "k", b"first")
    second = put(store, bucket, "k", b"x" * BIG)
    assert None not in (first.version_id, second.version_id) and first.version_id != second.version_id
    assert store.get_object_info(bucket, "k").version_id == second.version_id
    assert read(store, bucket, "k") == b"x" * BIG
    assert read(store, bucket, "k", first.version_id) == b"first"
    assert read(store, bucket, "k", NULL_VERSION) == b"before"
    assert store.get_object_info(bucket, "k", first.version_id).etag == first.etag
    assert versions(store, bucket) == [
        ("k", second.version_id, True, False),
        ("k", first.version_id, False, False),
        ("k", NULL_VERSION, False, False),
    ]
    with pytest.raises(NoSuchVersion):
        store.get_object_info(bucket, "k", "0" * 32)
    # Listings of objects show the latest only.
    assert [(o.key, o.size) for o in store.list_objects(bucket).objects] == [("k", BIG)]


def test_delete_markers_hide_the_object_until_removed(store, bucket, request):
    contract.skip_on(request, "seaweedfs", "a read of a key whose latest version is a delete marker does not say so (no x-amz-delete-marker)")
    store.set_versioning(bucket, VERSIONING_ENABLED)
    kept = put(store, bucket, "k", b"kept")
    marker = store.delete_object(bucket, "k")
    assert marker.delete_marker and marker.version_id not in (None, kept.version_id)
    with pytest.raises(NoSuchKey) as missing:
        store.get_object_info(bucket, "k")
    assert missing.value.delete_marker == marker.version_id
    with pytest.raises(DeleteMarkerVersion):
        store.open_object(bucket, "k", marker.version_id)
    assert store.list_objects(bucket).objects == []
    assert versions(store, bucket) == [
        ("k", marker.version_id, True, True),
        ("k", kept.version_id, False, False),
    ]
    # Removing the marker makes the object visible again.
    removed = store.delete_object(bucket, "k", version_id=marker.version_id)
    assert removed.delete_marker and removed.version_id == marker.version_id
    assert read(store, bucket, "k") == b"kept"
    assert versions(store, bucket) == [("k", kept.version_id, True, False)]


def test_deleting_the_latest_version_promotes_the_one_before(store, bucket):
    store.set_versioning(bucket, VERSIONING_ENABLED)
    old = put(store, bucket, "k", b"old")
    new = put(store, bucket, "k", b"new")
    assert store.delete_object(bucket, "k", version_id=new.version_id)
    assert read(store, bucket, "k") == b"old"
    assert versions(store, bucket) == [("k", old.version_id, True, False)]
    assert store.delete_object(bucket, "k", version_id=old.version_id)
    with pytest.raises(NoSuchKey) as missing:
        store.get_object_info(bucket, "k")
    assert missing.value.delete_marker is None


def test_suspended_writes_replace_the_null_version_and_keep_the_others(store, bucket):
    put(store, bucket, "k", b"null-1")
    store.set_versioning(bucket, VERSIONING_ENABLED)
    enabled = put(store, bucket, "k", b"enabled")
    store.set_versioning(bucket, VERSIONING_SUSPENDED)
    assert store.get_bucket(bucket).versioning == VERSIONING_SUSPENDED
    suspended = put(store, bucket, "k", b"null-2")
    assert suspended.version_id == NULL_VERSION
    assert versions(store, bucket) == [
        ("k", NULL_VERSION, True, False),
        ("k", enabled.version_id, False, False),
    ]
    put(store, bucket, "k", b"null-3")
    assert read(store, bucket, "k", NULL_VERSION) == b"null-3"
    assert read(store, bucket, "k", enabled.version_id) == b"enabled"
    # A delete while suspended is a null delete marker, which replaces the null version.
    marker = store.delete_object(bucket, "k")
    assert marker.delete_marker and marker.version_id == NULL_VERSION
    assert versions(store, bucket) == [
        ("k", NULL_VERSION, True, True),
        ("k", enabled.version_id, False, False),
    ]


def test_copy_from_an_old_version(store, bucket):
    store.set_versioning(bucket, VERSIONING_ENABLED)
    old = put(store, bucket, "src", b"old" * 1000)
    put(store, bucket, "src", b"new")
    copied = store.copy_object(bucket, "src", bucket, "dst", src_version_id=old.version_id)
    assert copied.version_id not in (None, old.version_id)
    assert read(store, bucket, "dst") == b"old" * 1000
    assert copied.etag == old.etag


def test_versions_keep_a_bucket_until_all_are_gone(store, bucket):
    store.set_versioning(bucket, VERSIONING_ENABLED)
    put(store, bucket, "k", b"v")
    store.delete_object(bucket, "k")
    with pytest.raises(BucketNotEmpty):
        store.delete_bucket(bucket)
    for _, version_id, _, _ in versions(store, bucket):
        store.delete_object(bucket, "k", version_id=version_id)
    store.delete_bucket(bucket)
    with pytest.raises(NoSuchBucket):
        store.get_bucket(bucket)


@pytest.mark.parametrize("delimiter", ["", "/"])
@pytest.mark.parametrize("max_keys", [1, 2, 3, 7])
def test_version_pages_visit_every_version_once_in_order(store, bucket, max_keys, delimiter):
    store.set_versioning(bucket, VERSIONING_ENABLED)
    for key, count in (("a", 3), ("b/1", 2), ("b/2", 1), ("c", 4)):
        for n in range(count):
            put(store, bucket, key, f"{key}-{n}".encode())
    store.delete_object(bucket, "c")
    everything = versions(store, bucket, delimiter=delimiter)
    walked, prefixes, key_marker, version_marker = [], [], "", ""
    while True:
        page = store.list_object_versions(
            bucket,
            delimiter=delimiter,
            key_marker=key_marker,
            version_id_marker=version_marker,
            max_keys=max_keys,
        )
        assert len(page.versions) + len(page.common_prefixes) <= max_keys
        walked += [(v.info.key, v.info.version_id, v.is_latest, v.is_delete_marker) for v in page.versions]
        prefixes += page.common_prefixes
        if not page.is_truncated:
            break
        key_marker, version_marker = page.next_key_marker, page.next_version_id_marker or ""
    assert walked == everything
    assert [key for key, *_ in walked] == sorted(key for key, *_ in walked)
    assert prefixes == (["b/"] if delimiter else [])
    assert len(walked) == (8 if delimiter else 11)


def test_bucket_configuration_documents_go_with_the_bucket(store, bucket):
    assert store.get_bucket_config(bucket, "lifecycle") is None
    store.put_bucket_config(bucket, "lifecycle", b"<LifecycleConfiguration/>")
    assert store.get_bucket_config(bucket, "lifecycle") == b"<LifecycleConfiguration/>"
    store.put_bucket_config(bucket, "lifecycle", None)
    assert store.get_bucket_config(bucket, "lifecycle") is None
    store.put_bucket_config(bucket, "encryption", b"doc")
    store.delete_bucket(bucket)
    with pytest.raises(NoSuchBucket):
        store.get_bucket_config(bucket, "encryption")
    store.create_bucket(bucket)
    assert store.get_bucket_config(bucket, "encryption") is None
    with pytest.raises(NoSuchBucket):
        store.put_bucket_config("no-such-bucket-here", "lifecycle", b"x")


def test_local_versions_release_their_files_when_removed(tmp_path):
    local = LocalStore(tmp_path / "store")
    try:
        local.create_bucket("b")
        local.set_versioning("b", VERSIONING_ENABLED)
        made = [put(local, "b", "k", os.urandom(BIG)) for _ in range(3)]
        local.delete_object("b", "k")
        data_files = tmp_path / "store" / OBJECTS_DIR
        assert sum(len(files) for _, _, files in os.walk(data_files)) == 3
        for info in made:
            local.delete_object("b", "k", version_id=info.version_id)
        assert sum(len(files) for _, _, files in os.walk(data_files)) == 0
    finally:
        local.close()


# -- object lock ----------------------------------------------------------------------------
def test_object_lock_keeps_versions_until_their_date_or_hold_ends(store, request):
    contract.skip_on(request, "seaweedfs", "deleting a locked version answers AccessDenied, which the store does not yet read as ObjectLocked")
    bucket = f"locked-{uuid.uuid4().hex[:12]}"
    assert (
        store.create_bucket(bucket, object_lock=True)
        and store.get_bucket(bucket).versioning == VERSIONING_ENABLED
    )
    later = float(int(time.time()) + 3600)
    governed = put(store, bucket, "g", b"g", lock=ObjectLock(GOVERNANCE, later))
    complied = put(store, bucket, "c", b"c", lock=ObjectLock(COMPLIANCE, later))
    held = put(store, bucket, "h", b"h", lock=ObjectLock(legal_hold=True))
    assert store.get_object_info(bucket, "g").lock == ObjectLock(GOVERNANCE, later)
    assert store.get_object_info(bucket, "h", held.version_id).lock.legal_hold
    for key, info in (("g", governed), ("c", complied), ("h", held)):
        with pytest.raises(ObjectLocked):
            store.delete_object(bucket, key, version_id=info.version_id)
        # A delete marker hides a locked version without removing it.
        assert store.delete_object(bucket, key).delete_marker
        assert store.get_object_info(bucket, key, info.version_id).etag == info.etag
    # COMPLIANCE gives way to no one and can only be extended; GOVERNANCE to a bypass.
    with pytest.raises(ObjectLocked):
        store.delete_object(bucket, "c", version_id=complied.version_id, bypass_governance=True)
    with pytest.raises(ObjectLocked):
        store.set_object_lock(bucket, "c", complied.version_id, ObjectLock(COMPLIANCE, later - 60))
    store.set_object_lock(bucket, "c", complied.version_id, ObjectLock(COMPLIANCE, later + 60))
    assert store.get_object_info(bucket, "c", complied.version_id).lock.retain_until == later + 60
    with pytest.raises(ObjectLocked):
        store.set_object_lock(bucket, "g", governed.version_id, ObjectLock())
    assert store.delete_object(bucket, "g", version_id=governed.version_id, bypass_governance=True)
    store.set_object_lock(bucket, "h", held.version_id, ObjectLock())
    assert store.delete_object(bucket, "h", version_id=held.version_id)
