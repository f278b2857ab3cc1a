"""Every file a table's metadata references, as canonical ``s3://bucket/key`` locations: the current
metadata file and those of its metadata log, the manifest list of every snapshot (all of them, so
that time travel keeps working), every manifest they name, every data, delete and deletion-vector
file those manifests name (deleted entries too), and the statistics and partition-statistics files.

Manifests are read one at a time with PyIceberg, and each only once: a manifest never changes, so
one already counted has had its files counted too. Only the set of paths is kept. A file the
metadata names that cannot be read (a missing manifest list or manifest) raises: an incomplete set
must never be taken for the table's references.
"""

from __future__ import annotations

from pyiceberg.io import FileIO
from pyiceberg.table.metadata import TableMetadata

from ..referenced_files import _canonical


class ReachableFiles:
    def __init__(self, io: FileIO):
        self._io = io
        self._paths: set[str] = set()
        self._lists_read: set[str] = set()

    def __contains__(self, location: str) -> bool:
        return _canonical(location) in self._paths

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
        for snapshot in metadata.snapshots:
            if snapshot.manifest_list in self._lists_read:
                continue
            for manifest in snapshot.manifests(self._io):
                if manifest.manifest_path in self:
                    continue
                for entry in manifest.fetch_manifest_entry(self._io, discard_deleted=False):
                    self._add(entry.data_file.file_path)
                self._add(manifest.manifest_path)  # after its files: a failed read is read again
            self._lists_read.add(snapshot.manifest_list)
            self._add(snapshot.manifest_list)

    def _add(self, location: str) -> None:
        self._paths.add(_canonical(location))
