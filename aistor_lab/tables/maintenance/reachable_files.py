"""The files Iceberg snapshots reach, read with PyIceberg one manifest at a time, each manifest once
(a manifest never changes, so one already read has had its files counted):

- ``snapshot_files``: (path, size) of the manifest lists, manifests, and data, delete and
  deletion-vector files of some snapshots; with ``live_only`` the files their manifests delete are
  left out (snapshot expiry: what a kept snapshot still reads).
- ``ReachableFiles``: every file a table's metadata references, as canonical ``s3://bucket/key``
  locations: the current metadata file and those of its metadata log, everything every snapshot
  reaches (deleted entries too, and all snapshots, so that time travel keeps working), and the
  statistics and partition-statistics files (unreferenced-file removal: what must never go).

A file the metadata names that cannot be read (a missing manifest list or manifest) raises: an
incomplete set must never be taken for the table's references.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pyiceberg.io import FileIO
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.table.snapshots import Snapshot

from ..referenced_files import canonical


def snapshot_files(io: FileIO, snapshots: Iterable[Snapshot], *, live_only: bool,
                   manifests_read: set[str] | None = None) -> Iterator[tuple[str, int | None]]:
    """(path, size in bytes) of every file the snapshots reach; a manifest list's size is None (the
    metadata does not record it). ``manifests_read``: manifests not to read again (updated)."""
    seen = set() if manifests_read is None else manifests_read
    for snapshot in snapshots:
        yield snapshot.manifest_list, None
        for manifest in snapshot.manifests(io):
            if manifest.manifest_path in seen:
                continue
            for entry in manifest.fetch_manifest_entry(io, discard_deleted=live_only):
                yield entry.data_file.file_path, entry.data_file.file_size_in_bytes
            seen.add(manifest.manifest_path)  # after its files: a failed read is read again
            yield manifest.manifest_path, manifest.manifest_length


class ReachableFiles:
    def __init__(self, io: FileIO):
        self._io = io
        self._paths: set[str] = set()
        self._lists_read: set[str] = set()
        self._manifests_read: set[str] = set()

    def __contains__(self, location: str) -> bool:
        return canonical(location) in self._paths

    def __len__(self) -> int:
        return len(self._paths)

    def add(self, metadata: TableMetadata, metadata_location: str) -> None:
        """Count what this version of the table references; the manifests counted by an earlier
        ``add`` (of an older version, say) are not read again."""
        self._add(metadata_location)
        for entry in metadata.metadata_log:
            self._add(entry.metadata_file)
        for statistics in [*metadata.statistics, *metadata.partition_statistics]:
            self._add(statistics.statistics_path)
        unread = [s for s in metadata.snapshots if s.manifest_list not in self._lists_read]
        for path, _ in snapshot_files(self._io, unread, live_only=False, manifests_read=self._manifests_read):
            self._add(path)
        self._lists_read.update(s.manifest_list for s in unread)

    def _add(self, location: str) -> None:
        self._paths.add(canonical(location))
