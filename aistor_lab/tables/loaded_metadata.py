"""Table metadata as a load answers it, kept by metadata location: a metadata file never changes once
written, so what one load read, normalized, serialized and encoded serves the next loads of that
version (on this server or any other in front of the same store) until it falls out. Bounded by the
size of the encoded text; the dicts handed out are shared and must not be changed."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from cachetools import LRUCache

MAX_BYTES = 64 * 1024 * 1024


class LoadedMetadata:
    def __init__(self, max_bytes: int = MAX_BYTES):
        self._max_bytes = max_bytes
        self._cache: LRUCache = LRUCache(maxsize=max_bytes, getsizeof=lambda entry: len(entry[1]))
        self._lock = threading.Lock()  # loads run on the executor's threads

    def get(self, metadata_location: str, snapshots: str, load: Callable[[], dict] | None) -> tuple[dict, str] | None:
        """(the metadata a load answers, its JSON text) of one version in one ``snapshots`` mode;
        ``load`` makes the metadata when it is not kept (without it: None)."""
        key = (metadata_location, snapshots)
        with self._lock:
            found = self._cache.get(key)
        if found is not None or load is None:
            return found
        metadata = load()
        entry = (metadata, json.dumps(metadata))
        if len(entry[1]) <= self._max_bytes:
            with self._lock:
                self._cache[key] = entry
        return entry
