"""Parsed manifests kept by path: a manifest never changes once written, and the service sees every
commit, so what one plan parsed serves the next plans of any snapshot that still lists it. Bounded by
the memory the parsed entries take, estimated from their manifests' sizes."""

from __future__ import annotations

import threading
from collections.abc import Callable

from cachetools import LRUCache
from pyiceberg.io import FileIO
from pyiceberg.manifest import ManifestEntry, ManifestFile

from ..manifest_reader import read_entries

MAX_BYTES = 128 * 1024 * 1024
# Parsed entries (DataFile records with their stats maps) take about 11 times their manifest's Avro
# bytes, as measured on PyIceberg's manifests; the estimate errs on the large side.
PARSED_PER_MANIFEST_BYTE = 12


class ManifestCache:
    def __init__(self, io: FileIO, max_bytes: int = MAX_BYTES):
        self._io = io
        self._cache: LRUCache = LRUCache(maxsize=max_bytes, getsizeof=lambda kept: kept[0])
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
            return found[1]
        check_location(path)
        entries = self._read(manifest)
        weight = max(1, manifest.manifest_length) * PARSED_PER_MANIFEST_BYTE
        with self._lock:
            self.reads += 1
            if weight <= self._cache.maxsize:
                self._cache[path] = (weight, entries)
        return entries

    def _read(self, manifest: ManifestFile) -> tuple[ManifestEntry, ...]:
        """With every v3 field: a deletion vector's answer needs its referenced data file, offset and
        size, and a data file its inherited first row id."""
        return tuple(read_entries(self._io, manifest))
