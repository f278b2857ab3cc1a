"""One bucket configuration document (``lifecycle``, ``cors``...), parsed and kept briefly per bucket,
for the request paths that consult it: each request then costs no store read. A change made through
this process is seen at once (``changed``); one made by another server in front of the same store,
within ``ttl`` seconds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from .base import ObjectStore
from .cache import SHARED_STATE_SECONDS, Cache

V = TypeVar("V")


class ParsedConfigs(Generic[V]):
    def __init__(self, store: ObjectStore, name: str, parse: Callable[[bytes], V], *, ttl: float = SHARED_STATE_SECONDS,
                 size: int = 1024):
        self.store = store
        self._name = name
        self._parse = parse
        self._cache: Cache[V | None] = Cache(size, ttl)

    def get(self, bucket: str) -> V | None:
        """None when the bucket has no such document; raises NoSuchBucket."""
        return self._cache.get_or_load(bucket, lambda: self._load(bucket))

    def changed(self, bucket: str, value: V | None) -> None:
        self._cache.put(bucket, value)

    def _load(self, bucket: str) -> V | None:
        document = self.store.get_bucket_config(bucket, self._name)
        return None if document is None else self._parse(document)
