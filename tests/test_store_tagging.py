"""The tagging part of the ObjectStore contract, against every backend (the fixtures of
test_store_contract.py): tags given by writes, copies and multipart uploads, replaced per version by
set_object_tags, read by tagged_object_info; and the local store's version listings carrying them."""

from __future__ import annotations

import sqlite3

import pytest

from aistor_lab.store import VERSIONING_ENABLED, DeleteMarkerVersion, NoSuchKey, NoSuchVersion
from aistor_lab.store.local import LocalStore
from aistor_lab.store.local.index import INDEX_FILE

from . import test_store_contract as contract

# The contract's fixtures and helper: every test here runs against every backend.
store, bucket, put = contract.store, contract.bucket, contract.put


def test_writes_tag_and_set_object_tags_replaces(store, bucket):
    assert put(store, bucket, "k", b"x", tags={"a": "1", "b": ""}).tags == {"a": "1", "b": ""}
    assert store.tagged_object_info(bucket, "k").tags == {"a": "1", "b": ""}
    assert store.set_object_tags(bucket, "k", None, {"c": "3"}).tags == {"c": "3"}
    assert store.tagged_object_info(bucket, "k").tags == {"c": "3"}
    store.set_object_tags(bucket, "k", None, {})
    assert store.tagged_object_info(bucket, "k").tags == {}
    put(store, bucket, "plain", b"y")
    assert store.tagged_object_info(bucket, "plain").tags == {}
    with pytest.raises(NoSuchKey):
        store.set_object_tags(bucket, "missing", None, {"a": "1"})


def test_copies_keep_or_replace_the_source_tags(store, bucket):
    put(store, bucket, "src", b"data", tags={"team": "lake"})
    store.copy_object(bucket, "src", bucket, "kept")
    store.copy_object(bucket, "src", bucket, "replaced", tags={"new": "1"})
    store.copy_object(bucket, "src", bucket, "cleared", tags={})
    assert store.tagged_object_info(bucket, "kept").tags == {"team": "lake"}
    assert store.tagged_object_info(bucket, "replaced").tags == {"new": "1"}
    assert store.tagged_object_info(bucket, "cleared").tags == {}


def test_a_multipart_upload_tags_the_object_it_completes(store, bucket):
    upload = store.create_multipart_upload(bucket, "mp", tags={"stage": "raw"})
    staging = store.stage()
    staging.write(b"part")
    part = store.upload_part(bucket, "mp", upload.upload_id, 1, staging)
    store.complete_multipart_upload(bucket, "mp", upload.upload_id, [(1, part.etag)])
    assert store.tagged_object_info(bucket, "mp").tags == {"stage": "raw"}


def test_tags_belong_to_one_version(store, bucket, request):
    contract.skip_on(request, "seaweedfs", "tagging a delete marker answers 404, not S3's refusal of a version that is a marker")
    store.set_versioning(bucket, VERSIONING_ENABLED)
    first = put(store, bucket, "k", b"1", tags={"gen": "1"})
    second = put(store, bucket, "k", b"2")
    store.set_object_tags(bucket, "k", first.version_id, {"gen": "one"})
    assert store.tagged_object_info(bucket, "k", first.version_id).tags == {"gen": "one"}
    assert store.tagged_object_info(bucket, "k").tags == {}
    store.set_object_tags(bucket, "k", None, {"gen": "2"})
    assert store.tagged_object_info(bucket, "k", second.version_id).tags == {"gen": "2"}
    assert store.tagged_object_info(bucket, "k", first.version_id).tags == {"gen": "one"}
    store.copy_object(bucket, "k", bucket, "k", src_version_id=first.version_id)
    assert store.tagged_object_info(bucket, "k").tags == {"gen": "one"}
    marker = store.delete_object(bucket, "k").version_id
    with pytest.raises(DeleteMarkerVersion):
        store.set_object_tags(bucket, "k", marker, {"a": "1"})
    with pytest.raises(NoSuchVersion):
        store.set_object_tags(bucket, "k", "0" * 32, {"a": "1"})
    # A version that went back to being the latest keeps its tags.
    store.delete_object(bucket, "k", version_id=marker)
    assert store.tagged_object_info(bucket, "k").tags == {"gen": "one"}


def test_local_version_listings_carry_tags(tmp_path):
    store = LocalStore(tmp_path / "store")
    try:
        store.create_bucket("b")
        put(store, "b", "plain", b"x", tags={"a": "1"})
        store.set_versioning("b", VERSIONING_ENABLED)
        put(store, "b", "v", b"1", tags={"gen": "1"})
        newer = put(store, "b", "v", b"2", tags={"gen": "2"})
        store.delete_object("b", "v")
        listed = [(v.info.key, v.is_delete_marker, v.info.tags) for v in store.list_object_versions("b").versions]
        assert listed == [
            ("plain", False, {"a": "1"}), ("v", True, {}), ("v", False, {"gen": "2"}), ("v", False, {"gen": "1"}),
        ]  # fmt: skip
        # Resuming after a version reads the older ones' tags too.
        page = store.list_object_versions("b", key_marker="v", version_id_marker=newer.version_id)
        assert [v.info.tags for v in page.versions] == [{"gen": "1"}]
    finally:
        store.close()


def test_an_index_from_before_tags_gains_them(tmp_path):
    store = LocalStore(tmp_path / "store")
    store.create_bucket("b")
    put(store, "b", "old", b"x")
    store.close()
    db = sqlite3.connect(tmp_path / "store" / INDEX_FILE)  # the index as a release without tags left it
    for table in ("objects", "versions", "uploads"):
        db.execute(f"ALTER TABLE {table} DROP COLUMN tags")
    assert "tags" not in {row[1] for row in db.execute("PRAGMA table_info(objects)")}
    db.close()
    store = LocalStore(tmp_path / "store")
    try:
        assert store.tagged_object_info("b", "old").tags == {}
        store.set_object_tags("b", "old", None, {"now": "tagged"})
        assert [v.info.tags for v in store.list_object_versions("b").versions] == [{"now": "tagged"}]
    finally:
        store.close()
