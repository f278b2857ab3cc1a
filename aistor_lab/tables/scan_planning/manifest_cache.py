"""Parsed manifests kept by path: a manifest never changes once written, and the service sees every
commit, so what one plan parsed serves the next plans of any snapshot that still lists it. Bounded by
the number of entries held (an entry is one data or delete file with its column stats)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from cachetools import LRUCache
from pyiceberg.io import FileIO
from pyiceberg.manifest import ManifestEntry, ManifestFile

MAX_ENTRIES = 200_000


class ManifestCache:
    def __init__(self, io: FileIO, max_entries: int = MAX_ENTRIES):
        self._io = io
        self._cache: LRUCache = LRUCache(maxsize=max_entries, getsizeof=lambda entries: max(1, len(entries)))
        self._lock = threading.Lock()  # plans run on several threads
        self.reads = 0  # manifests parsed, not found kept: what the benchmark and tests observe

    def entries(self, manifest: ManifestFile, check_location: Callable[[str], object]) -> tuple[ManifestEntry, ...]:
        """The live (added and existing) entries of a manifest, with inherited sequence numbers;
        ``check_location`` refuses a manifest outside the table's warehouse before it is read.
        The entries are shared between plans and must not be changed."""
        path = manifest.manifest_path
        with self._lock:
            found = self._cache.get(path)
        if found is not None:
            return found
        check_location(path)
        entries = tuple(manifest.fetch_manifest_entry(self._io, discard_deleted=True))
        with self._lock:
            self.reads += 1
            if len(entries) <= self._cache.maxsize:
                self._cache[path] = entries
        return entries
