"""JSON documents in the store: the catalog's own small documents (in the system bucket) and the
Iceberg metadata files it writes next to the tables. Everything goes through ObjectStore."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from ..store import SYSTEM_BUCKET, NoSuchBucket, NoSuchKey, ObjectStore, PreconditionFailed, WriteCondition
from ..store.cache import Cache
from ..store.locations import OutsideScope
from ..store.locations import split_location as split_store_location
from .errors import BadRequestException, ServiceFailureException

_JSON = "application/json"


def encode_json(body: dict) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def split_location(location: object) -> tuple[str, str]:
    """``s3://bucket/some/key`` -> ("bucket", "some/key") (store.locations), with the catalog's error."""
    try:
        return split_store_location(location)
    except OutsideScope:
        raise BadRequestException(f"Invalid location {location!r}: expected s3://bucket/path") from None


@dataclass(frozen=True)
class Doc:
    body: dict
    etag: str


class Documents:
    """Small JSON documents in the system bucket, read and written with conditions."""

    def __init__(self, store: ObjectStore):
        self.store = store
        self._bucket_ready = False
        self._lock = threading.Lock()

    def _ready(self) -> None:
        if not self._bucket_ready:
            with self._lock:
                self.store.ensure_bucket(SYSTEM_BUCKET)
                self._bucket_ready = True

    def get(self, key: str) -> Doc | None:
        self._ready()
        try:
            info, data = self.store.get_bytes(SYSTEM_BUCKET, key)
        except NoSuchKey:
            return None
        return Doc(json.loads(data), info.etag)

    def exists(self, key: str) -> bool:
        self._ready()
        try:
            self.store.get_object_info(SYSTEM_BUCKET, key)
        except NoSuchKey:
            return False
        return True

    def create(self, key: str, body: dict) -> str | None:
        """Write only if absent; the new ETag, or None when the key already exists."""
        return self._put(key, body, WriteCondition(if_none_match="*"))

    def replace(self, key: str, body: dict, etag: str) -> str | None:
        """Write only if the current ETag is ``etag``; the new ETag, or None when it changed."""
        return self._put(key, body, WriteCondition(if_match=etag))

    def delete(self, key: str, etag: str | None = None) -> bool:
        """Delete (only if the ETag is still ``etag`` when given); False when it changed or is gone."""
        self._ready()
        try:
            return self.store.delete_object(
                SYSTEM_BUCKET, key, WriteCondition(if_match=etag) if etag else None
            )
        except (PreconditionFailed, NoSuchKey):
            return False

    def list(self, prefix: str, *, delimiter: str = "", start_after: str = "", max_keys: int = 1000):
        self._ready()
        return self.store.list_objects(
            SYSTEM_BUCKET, prefix=prefix, delimiter=delimiter, start_after=start_after, max_keys=max_keys
        )

    def keys(self, prefix: str) -> Iterator[str]:
        """Every key under ``prefix``, page after page."""
        self._ready()
        return (obj.key for obj in self.store.iter_objects(SYSTEM_BUCKET, prefix))

    def _put(self, key: str, body: dict, condition: WriteCondition) -> str | None:
        self._ready()
        try:
            info = self.store.put_bytes(
                SYSTEM_BUCKET, key, encode_json(body), content_type=_JSON, condition=condition
            )
        except (PreconditionFailed, NoSuchKey):
            return None
        return info.etag


class MetadataFiles:
    """Iceberg metadata files (JSON, optionally gzip) and other table files, addressed by location.

    File contents are cached by location: a metadata file is written once under a fresh name and
    never changed, so a cached copy can only be stale if someone overwrites it behind our back.
    Every read parses afresh, which gives callers a private copy faster than deep-copying a tree.
    """

    def __init__(self, store: ObjectStore, cache_size: int = 256):
        self.store = store
        self._contents: Cache[bytes] = Cache(cache_size)

    def read_bytes(self, location: str) -> bytes:
        bucket, key = split_location(location)
        return self.store.get_bytes(bucket, key)[1]

    def read_json(self, location: str) -> dict:
        """The parsed file, the caller's own; raises NoSuchKey/NoSuchBucket when it is missing."""
        data = self._contents.get_or_load(location, lambda: self._load(location))
        try:
            body = json.loads(data)
        except ValueError as exc:
            raise BadRequestException(f"Not a JSON metadata file: {location}") from exc
        if not isinstance(body, dict):
            raise BadRequestException(f"Not a JSON metadata file: {location}")
        return body

    def _load(self, location: str) -> bytes:
        data = self.read_bytes(location)
        if data[:2] == b"\x1f\x8b":  # gzip magic: Iceberg names these *.gz.metadata.json
            data = gzip.decompress(data)
        return data

    def read_json_or_fail(self, location: str) -> dict:
        """Read a file the catalog itself points at; its absence is a broken catalog, not bad input."""
        try:
            return self.read_json(location)
        except (NoSuchKey, NoSuchBucket) as exc:
            raise ServiceFailureException(f"Metadata file is missing: {location}") from exc

    def write_json(self, location: str, body: dict) -> str:
        """Write a new file (never over an existing one); the JSON text written, which is also kept
        as the file's contents: the next commit reads it from memory, a reply splices it in."""
        bucket, key = split_location(location)
        text = encode_json(body)
        data = gzip.compress(text, mtime=0) if location.endswith(".gz.metadata.json") else text
        self.store.put_bytes(
            bucket, key, data, content_type=_JSON, condition=WriteCondition(if_none_match="*")
        )
        self._contents.put(location, text)
        return text.decode()

    def delete(self, location: str) -> None:
        bucket, key = split_location(location)
        try:
            self.store.delete_object(bucket, key)
        except (NoSuchKey, NoSuchBucket):
            pass

    def delete_prefix(self, bucket: str, prefix: str) -> int:
        """Delete every object under ``prefix``; the count deleted."""
        return sum(bool(self.store.delete_object(bucket, obj.key)) for obj in self.store.iter_objects(bucket, prefix))
