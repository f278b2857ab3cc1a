"""Loads answer a version's metadata from what an earlier load of it encoded (metadata files never
change): kept by metadata location and snapshots mode, bounded by size, and spliced into replies that
add keys (vended credentials) without changing the JSON a client parses."""

from __future__ import annotations

import json

from aistor_lab.tables.loaded_metadata import LoadedMetadata
from aistor_lab.tables.table_result import TableResult


def test_a_version_is_read_once_per_snapshots_mode():
    reads: list[str] = []

    def read(mode: str):
        def load() -> dict:
            reads.append(mode)
            return {"format-version": 2, "snapshots": [] if mode == "refs" else [{"snapshot-id": 2**62}]}
        return load

    loaded = LoadedMetadata()
    first = loaded.get("s3://wh/t/metadata/00001.json", "all", read("all"))
    again = loaded.get("s3://wh/t/metadata/00001.json", "all", read("all"))
    refs = loaded.get("s3://wh/t/metadata/00001.json", "refs", read("refs"))
    assert reads == ["all", "refs"] and again is first and refs[0]["snapshots"] == []
    assert json.loads(first[1]) == first[0]  # the text is the metadata's JSON, big ids exact
    # without a load (a caller on the event loop): what is kept, else None and nothing read
    assert loaded.get("s3://wh/t/metadata/00001.json", "all", None) is first
    assert loaded.get("s3://wh/t/metadata/00002.json", "all", None) is None and reads == ["all", "refs"]


def test_the_cache_is_bounded_by_the_encoded_size():
    loaded = LoadedMetadata(max_bytes=200)
    big = {"doc": "x" * 150}
    reads = []
    for location in ("a", "b", "a"):
        loaded.get(location, "all", lambda where=location: reads.append(where) or big)
    assert reads == ["a", "b", "a"]  # b pushed a out: only one 150-byte entry fits
    huge = {"doc": "x" * 500}
    assert loaded.get("c", "all", lambda: huge)[0] is huge  # too big to keep, still answered


def test_replies_splice_the_encoded_metadata_and_match_plain_json():
    metadata = {"location": "s3://wh/t", "snapshots": [{"snapshot-id": 1}]}
    body = {"metadata-location": "s3://wh/t/metadata/1.json", "metadata": metadata, "config": {}}
    result = TableResult(body, '"etag"', metadata_json=json.dumps(metadata))
    assert json.loads(result.encoded(body)) == body
    vended = {**body, "config": {"s3.access-key-id": "k"}, "storage-credentials": [{"prefix": "s3://wh/t"}]}
    assert json.loads(result.encoded(vended)) == vended
    assert json.loads(result.encoded({"metadata": metadata})) == {"metadata": metadata}
    other = {**body, "metadata": {"location": "elsewhere"}}  # not this result's metadata: encoded as given
    assert json.loads(result.encoded(other)) == other


def test_a_written_metadata_file_is_read_back_from_what_was_written(tmp_path):
    from aistor_lab.store import LocalStore
    from aistor_lab.tables.json_files import MetadataFiles

    store = LocalStore(tmp_path)
    try:
        store.create_bucket("warehouse")
        files = MetadataFiles(store)
        body = {"format-version": 2, "current-snapshot-id": 2**62 + 1, "snapshots": []}
        for location in ("s3://warehouse/t/metadata/00001-a.metadata.json",
                         "s3://warehouse/t/metadata/00002-b.gz.metadata.json"):
            text = files.write_json(location, body)
            assert json.loads(text) == body  # the reply splices this text: exact big ids
            assert files.read_json(location) == body
            bucket, key = location.removeprefix("s3://").split("/", 1)
            stored = store.get_bytes(bucket, key)[1]
            assert (stored[:2] == b"\x1f\x8b") == location.endswith(".gz.metadata.json")
    finally:
        store.close()
