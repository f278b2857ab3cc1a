"""Manifests and manifest lists read with every field of format-version 3, which PyIceberg 0.12's
own reads drop (they stop at v2): row lineage's ``first_row_id``, inherited as the spec says, and a
deletion vector's ``referenced_data_file``, ``content_offset`` and ``content_size_in_bytes``. The
records are PyIceberg's own (its v2 fields first), so its planners and evaluators take them."""

from __future__ import annotations

from pyiceberg.avro.file import AvroFile
from pyiceberg.io import FileIO
from pyiceberg.manifest import (
    DATA_FILE_TYPE,
    MANIFEST_ENTRY_SCHEMAS,
    MANIFEST_LIST_FILE_SCHEMAS,
    DataFile,
    DataFileContent,
    FileFormat,
    ManifestContent,
    ManifestEntry,
    ManifestEntryStatus,
    ManifestFile,
    PartitionFieldSummary,
    _inherit_from_manifest,
)
from pyiceberg.table.snapshots import Snapshot

V3 = 3
DATA_FILE_FIELDS = [f.name for f in DATA_FILE_TYPE[V3].fields]
FILE_FIRST_ROW_ID = DATA_FILE_FIELDS.index("first_row_id")
REFERENCED_DATA_FILE = DATA_FILE_FIELDS.index("referenced_data_file")
CONTENT_OFFSET = DATA_FILE_FIELDS.index("content_offset")
CONTENT_SIZE = DATA_FILE_FIELDS.index("content_size_in_bytes")
LIST_FIELDS = [f.name for f in MANIFEST_LIST_FILE_SCHEMAS[V3].fields]
MANIFEST_FIRST_ROW_ID = LIST_FIELDS.index("first_row_id")
LIVE = (ManifestEntryStatus.ADDED, ManifestEntryStatus.EXISTING)


def read_manifests(io: FileIO, snapshot: Snapshot) -> list[ManifestFile]:
    """A snapshot's manifest list with every v3 field."""
    with AvroFile[ManifestFile](
        io.new_input(snapshot.manifest_list),
        MANIFEST_LIST_FILE_SCHEMAS[V3],
        read_types={-1: ManifestFile, 508: PartitionFieldSummary},
        read_enums={517: ManifestContent},
    ) as reader:
        return list(reader)


def manifest_first_row_id(manifest: ManifestFile) -> int | None:
    return manifest[MANIFEST_FIRST_ROW_ID] if len(manifest._data) > MANIFEST_FIRST_ROW_ID else None


def file_first_row_id(data_file: DataFile) -> int | None:
    return data_file[FILE_FIRST_ROW_ID] if len(data_file._data) > FILE_FIRST_ROW_ID else None


def referenced_data_file(delete_file: DataFile) -> str | None:
    """The data file a deletion vector is for (None for other delete files)."""
    if delete_file.file_format != FileFormat.PUFFIN or len(delete_file._data) <= REFERENCED_DATA_FILE:
        return None
    return delete_file[REFERENCED_DATA_FILE]


def read_entries(io: FileIO, manifest: ManifestFile, discard_deleted: bool = True) -> list[ManifestEntry]:
    """A manifest's entries with every v3 field, sequence numbers and row ids inherited as the spec
    says: a live data file without a ``first_row_id`` starts where the previous one ended."""
    with AvroFile[ManifestEntry](
        io.new_input(manifest.manifest_path),
        MANIFEST_ENTRY_SCHEMAS[V3],
        read_types={-1: ManifestEntry, 2: DataFile},
        read_enums={0: ManifestEntryStatus, 101: FileFormat, 134: DataFileContent},
    ) as reader:
        entries = [_inherit_from_manifest(entry, manifest) for entry in reader]
    next_row_id = manifest_first_row_id(manifest) if manifest.content == ManifestContent.DATA else None
    if next_row_id is not None:
        for entry in entries:
            if entry.status in LIVE and file_first_row_id(entry.data_file) is None:
                entry.data_file[FILE_FIRST_ROW_ID] = next_row_id
                next_row_id += entry.data_file.record_count
    return [e for e in entries if not discard_deleted or e.status != ManifestEntryStatus.DELETED]
