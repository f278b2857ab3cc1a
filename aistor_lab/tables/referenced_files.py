"""Which objects of a warehouse bucket a table's current metadata depends on, for the S3 API's
table-aware protection (refuse to delete or overwrite them).

A key is referenced when it is the current metadata file of a table, a manifest list of one of
its snapshots, a manifest named in one of those lists, or a statistics file. Data files are not
covered. The answer is exact at the time of the call: every call lists the warehouse's table
pointers (one listing, no reads for unchanged pointers), and what a metadata file references is
cached by its location, which is immutable.

A table's new version usually only adds snapshots to the last one's, so the manifests of the
manifest lists read for a table are kept (by table uuid) and only new lists are read: a commit then
costs one manifest list, not one per snapshot. When snapshots went away (expiry), every list is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..store import NoSuchBucket, NoSuchKey
from ..store.cache import Cache
from . import layout
from .context import CatalogContext
from .errors import BadRequestException
from .json_files import split_location
from .manifests import read_manifest_list
from .table_metadata import normalize

# Only these can be metadata files, manifest lists, manifests or statistics files.
_SUFFIXES = (".metadata.json", ".metadata.json.gz", ".avro", ".stats", ".puffin")


@dataclass(frozen=True)
class _ListsRead:
    """Manifest lists, and every manifest they name together (lists are immutable files)."""

    lists: frozenset[str]
    manifests: frozenset[str]


_NOTHING_READ = _ListsRead(frozenset(), frozenset())


class ReferencedFiles:
    def __init__(self, ctx: CatalogContext, cache_size: int = 1024):
        self.ctx = ctx
        self._by_metadata: Cache[frozenset[str]] = Cache(cache_size)
        self._pointers: Cache[str | None] = Cache(cache_size * 4)
        self._lists_by_table: Cache[_ListsRead] = Cache(cache_size)

    def is_referenced(self, bucket: str, key: str) -> bool:
        """Whether ``s3://bucket/key`` is a file some table's current metadata depends on."""
        if not key.endswith(_SUFFIXES) or not self.ctx.docs.exists(layout.warehouse_key(bucket)):
            return False
        location = f"s3://{bucket}/{key}"
        return any(
            location in self._referenced(metadata_location) for metadata_location in self._tables(bucket)
        )

    def _tables(self, warehouse: str) -> Iterator[str]:
        """The current metadata location of every table, re-reading only changed pointers."""
        prefix = layout.catalog_prefix(warehouse)
        start_after = ""
        while True:
            page = self.ctx.docs.list(prefix, start_after=start_after)
            for obj in page.objects:
                if layout.is_table_pointer_key(obj.key):
                    found = self._pointers.get_or_load(
                        (obj.key, obj.etag), lambda k=obj.key: self._read_pointer(k)
                    )
                    if found is not None:
                        yield found
            if not page.is_truncated or not page.next_marker:
                return
            start_after = page.next_marker

    def _read_pointer(self, key: str) -> str | None:
        pointer = self.ctx.pointers.current(key)
        return pointer.metadata_location if pointer else None

    def _referenced(self, metadata_location: str) -> frozenset[str]:
        return self._by_metadata.get_or_load(
            metadata_location, lambda: self._load_referenced(metadata_location)
        )

    def _load_referenced(self, metadata_location: str) -> frozenset[str]:
        metadata = normalize(self.ctx.files.read_json(metadata_location))
        files = {metadata_location}  # a pointer may name an s3a:// file; compare canonical forms
        files.update(s["statistics-path"] for s in metadata["statistics"] + metadata["partition-statistics"])
        for snapshot in metadata["snapshots"]:
            files.update(snapshot.get("manifests") or [])  # v1 snapshots may list manifests inline
        lists = frozenset(s["manifest-list"] for s in metadata["snapshots"] if s.get("manifest-list"))
        read = self._read_lists(metadata["table-uuid"], lists)
        files.update(read.lists, read.manifests)
        return frozenset(canonical(f) for f in files)

    def _read_lists(self, table_uuid: str, lists: frozenset[str]) -> _ListsRead:
        """The manifests of ``lists``, reading only those the table's last answer did not cover."""
        earlier = self._lists_by_table.get_or_load(table_uuid, lambda: _NOTHING_READ)
        if not earlier.lists <= lists:  # snapshots were removed: their manifests may be unreferenced now
            earlier = _NOTHING_READ
        manifests = set(earlier.manifests)
        for manifest_list in lists - earlier.lists:
            try:
                data = self.ctx.files.read_bytes(manifest_list)
            except (NoSuchKey, NoSuchBucket):
                continue  # already gone: nothing left to protect
            manifests.update(m.path for m in read_manifest_list(manifest_list, data))
        read = _ListsRead(lists, frozenset(manifests))
        self._lists_by_table.put(table_uuid, read)
        return read


def canonical(location: str) -> str:
    """s3a:// and s3n:// name the same object as s3://."""
    try:
        bucket, key = split_location(location)
    except BadRequestException:  # a malformed path in someone's metadata protects nothing
        return location
    return f"s3://{bucket}/{key}"
