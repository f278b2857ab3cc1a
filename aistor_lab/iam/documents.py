"""Small JSON documents kept under one prefix of the object store's system bucket.

Writes use the store's conditional puts, so processes sharing one store never lose an update:
``create`` fails when the document exists, ``replace`` when it changed since it was read.
"""

from __future__ import annotations

import json
import logging
import re

from ..store.base import ObjectStore
from ..store.errors import NoSuchBucket, NoSuchKey, PreconditionFailed
from ..store.types import SYSTEM_BUCKET, WriteCondition

log = logging.getLogger(__name__)

_SUFFIX = ".json"


class DocumentStore:
    """Documents named by ``name_pattern``: other names (say, an access key from a forged request)
    are never looked up, they simply do not exist."""

    def __init__(self, store: ObjectStore, prefix: str, name_pattern: re.Pattern[str]):
        self._store = store
        self._prefix = prefix
        self._name_pattern = name_pattern

    def _key(self, name: str) -> str:
        return f"{self._prefix}{name}{_SUFFIX}"

    def valid_name(self, name: object) -> bool:
        return isinstance(name, str) and self._name_pattern.fullmatch(name) is not None

    def read(self, name: str) -> tuple[dict, str] | None:
        """The document and its ETag, or None when absent (or unreadable, which is logged)."""
        if not self.valid_name(name):
            return None
        try:
            info, data = self._store.get_bytes(SYSTEM_BUCKET, self._key(name))
        except (NoSuchKey, NoSuchBucket):
            return None
        try:
            document = json.loads(data)
        except ValueError:
            log.warning("ignoring %s/%s: not valid JSON", SYSTEM_BUCKET, self._key(name))
            return None
        return document, info.etag

    def create(self, name: str, document: dict) -> bool:
        """Write a new document; False (and no change) when one exists already."""
        try:
            self._put(name, document, WriteCondition(if_none_match="*"))
        except PreconditionFailed:
            return False
        return True

    def replace(self, name: str, document: dict, etag: str | None = None) -> None:
        """Write unconditionally, or only over the version with ``etag`` (else PreconditionFailed)."""
        self._put(name, document, WriteCondition(if_match=etag) if etag else None)

    def delete(self, name: str) -> bool:
        if not self.valid_name(name):
            return False
        return self._store.delete_object(SYSTEM_BUCKET, self._key(name))

    def names(self) -> list[str]:
        names, marker = [], ""
        while True:
            page = self._store.list_objects(SYSTEM_BUCKET, prefix=self._prefix, start_after=marker)
            names += [o.key[len(self._prefix):].removesuffix(_SUFFIX) for o in page.objects
                      if o.key.endswith(_SUFFIX)]
            if not page.is_truncated or not page.next_marker:
                return names
            marker = page.next_marker

    def _put(self, name: str, document: dict, condition: WriteCondition | None) -> None:
        if not self.valid_name(name):
            raise ValueError(f"invalid document name {name!r}")  # callers validate names first
        data = json.dumps(document, separators=(",", ":")).encode()
        self._store.put_bytes(SYSTEM_BUCKET, self._key(name), data, content_type="application/json",
                              condition=condition)
