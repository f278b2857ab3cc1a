"""An Iceberg table's files as the sharing server reads them through the ObjectStore: manifest lists
and manifests (Avro, read with PyIceberg's reader), byte ranges of Puffin files, Parquet position
delete files; and the one kind of file it writes, derived files next to a table (Delta deletion
vectors), each written once under a name that its content determines.

Iceberg writes every manifest, manifest list and delete file once under a fresh name, so what is
parsed is cached by location for the life of the process (one cache per store). A shared table
reaches them only through ``ScopedFiles``, which refuses (before any cache or read) every location
outside the table's own, as written metadata may name any file of the store.
"""

from __future__ import annotations

import io
import logging
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from pyiceberg.avro.file import AvroFile
from pyiceberg.manifest import MANIFEST_ENTRY_SCHEMAS, ManifestFile, read_manifest_list
from pyiceberg.typedef import Record

from ..common.bytes_input import BytesInputFile
from ..store import NoSuchBucket, NoSuchKey, ObjectStore, PreconditionFailed, WriteCondition
from ..store.cache import Cache
from ..store.locations import Scope, split_location
from .errors import InternalError
from .source import inside

log = logging.getLogger(__name__)
T = TypeVar("T")

# Manifest entry status (0 is EXISTING) and file content (1 is position deletes), as the spec numbers them.
ADDED, DELETED = 1, 2
DATA, EQUALITY_DELETES = 0, 2

# The newest entry schema reads every older manifest too (the fields it adds are optional), and it is
# the only one with referenced_data_file / content_offset / content_size_in_bytes (v3 deletion vectors).
_ENTRY_SCHEMA = MANIFEST_ENTRY_SCHEMAS[max(MANIFEST_ENTRY_SCHEMAS)]
_ENTRY_AT = {f.name: i for i, f in enumerate(_ENTRY_SCHEMA.fields)}
_FILE_AT = {f.name: i for i, f in enumerate(_ENTRY_SCHEMA.find_field("data_file").field_type.fields)}


@dataclass(frozen=True)
class ManifestRow:
    """One manifest entry, with the snapshot id and data sequence number it inherits resolved."""

    status: int
    snapshot_id: int | None
    sequence_number: int | None
    content: int
    path: str
    file_format: str  # PARQUET, AVRO, ORC or PUFFIN
    spec_id: int
    partition: tuple
    record_count: int
    size: int
    null_counts: Mapping[int, int]
    lower_bounds: Mapping[int, bytes]
    upper_bounds: Mapping[int, bytes]
    referenced_data_file: str | None
    content_offset: int | None
    content_size: int | None


def _row(record: Record, manifest: ManifestFile) -> ManifestRow:
    file = record[_ENTRY_AT["data_file"]]
    status = int(record[_ENTRY_AT["status"]])
    snapshot_id = record[_ENTRY_AT["snapshot_id"]]
    sequence_number = record[_ENTRY_AT["sequence_number"]]
    # Inheritance (spec: "Sequence Number Inheritance"): a null snapshot id is the manifest's; a null
    # sequence number is the manifest's for ADDED entries, and 0 in v1 manifests (sequence number 0).
    if snapshot_id is None:
        snapshot_id = manifest.added_snapshot_id
    if sequence_number is None and (status == ADDED or manifest.sequence_number == 0):
        sequence_number = manifest.sequence_number

    def field(name: str):
        return file[_FILE_AT[name]]

    partition = field("partition")

    return ManifestRow(
        status=status,
        snapshot_id=snapshot_id,
        sequence_number=sequence_number,
        content=int(field("content") or DATA),
        path=field("file_path"),
        file_format=str(field("file_format")).upper(),
        spec_id=manifest.partition_spec_id,
        partition=tuple(partition[i] for i in range(len(partition))),
        record_count=field("record_count"),
        size=field("file_size_in_bytes"),
        null_counts=dict(field("null_value_counts") or {}),
        lower_bounds=dict(field("lower_bounds") or {}),
        upper_bounds=dict(field("upper_bounds") or {}),
        referenced_data_file=field("referenced_data_file"),
        content_offset=field("content_offset"),
        content_size=field("content_size_in_bytes"),
    )


class TableFiles:
    """Reads (with caches) and writes an Iceberg table's files in one store."""

    def __init__(self, store: ObjectStore):
        self.store = store
        self._manifest_lists: Cache[tuple[ManifestFile, ...]] = Cache(256)
        self._manifests: Cache[tuple[ManifestRow, ...]] = Cache(4096)
        self._position_deletes: Cache[dict[str, list[int]]] = Cache(64)
        self._derived: Cache = Cache(4096)

    # -- reading ---------------------------------------------------------------------------
    def read(self, location: str, start: int = 0, end: int | None = None) -> bytes:
        bucket, key = split_location(location)
        try:
            with self.store.open_object(bucket, key) as handle:
                return handle.read(start, end)
        except (NoSuchKey, NoSuchBucket) as exc:
            log.warning("a file of a shared Iceberg table is missing: %s", location)
            raise InternalError("A file of the table is missing; the table cannot be read") from exc

    def manifest_list(self, location: str) -> tuple[ManifestFile, ...]:
        return self._manifest_lists.get_or_load(
            location, lambda: tuple(read_manifest_list(BytesInputFile(location, self.read(location))))
        )

    def manifest(self, manifest: ManifestFile) -> tuple[ManifestRow, ...]:
        """Every entry of a manifest, DELETED ones included (they say what a snapshot removed)."""

        def load() -> tuple[ManifestRow, ...]:
            data = BytesInputFile(manifest.manifest_path, self.read(manifest.manifest_path))
            with AvroFile[Record](data, _ENTRY_SCHEMA, read_types={-1: Record}) as reader:
                return tuple(_row(record, manifest) for record in reader)

        return self._manifests.get_or_load(manifest.manifest_path, load)

    def position_deletes(self, location: str) -> dict[str, list[int]]:
        """A Parquet position delete file: the deleted row positions of each data file it names."""

        def load() -> dict[str, list[int]]:
            import pyarrow.parquet as pq  # imported here: only tables with v2 position deletes need it

            # ParquetFile, not read_table, which would import pyarrow.dataset and with it pandas.
            table = pq.ParquetFile(io.BytesIO(self.read(location))).read(columns=["file_path", "pos"])
            positions: dict[str, list[int]] = {}
            for path, pos in zip(table.column("file_path").to_pylist(), table.column("pos").to_pylist()):
                positions.setdefault(path, []).append(pos)
            return positions

        return self._position_deletes.get_or_load(location, load)

    # -- writing ---------------------------------------------------------------------------
    def derived(self, location: str, make: Callable[[], tuple[bytes, T]]) -> T:
        """A file derived from the table's own files, written once next to it. ``make`` returns its
        bytes and a description; the file is written unless it exists (its name is a hash of what it
        is derived from, so an existing file, from another process or an earlier run, holds these same
        bytes) and the description is cached, so later calls neither make nor write anything."""

        def write() -> T:
            data, description = make()
            bucket, key = split_location(location)
            try:
                self.store.put_bytes(
                    bucket, key, data, content_type="application/octet-stream",
                    condition=WriteCondition(if_none_match="*"),
                )
            except PreconditionFailed:
                pass
            return description

        return self._derived.get_or_load(location, write)


class ScopedFiles:
    """The files of one table: TableFiles' reads and writes, for locations inside ``scope`` only."""

    def __init__(self, files: TableFiles, scope: Scope):
        self._files = files
        self.scope = scope

    def read(self, location: str, start: int = 0, end: int | None = None) -> bytes:
        return self._files.read(inside(self.scope, location), start, end)

    def manifest_list(self, location: str) -> tuple[ManifestFile, ...]:
        return self._files.manifest_list(inside(self.scope, location))

    def manifest(self, manifest: ManifestFile) -> tuple[ManifestRow, ...]:
        inside(self.scope, manifest.manifest_path)
        return self._files.manifest(manifest)

    def position_deletes(self, location: str) -> dict[str, list[int]]:
        return self._files.position_deletes(inside(self.scope, location))

    def derived(self, location: str, make: Callable[[], tuple[bytes, T]]) -> T:
        return self._files.derived(inside(self.scope, location), make)


_BY_STORE: weakref.WeakKeyDictionary[ObjectStore, TableFiles] = weakref.WeakKeyDictionary()
_BY_STORE_LOCK = threading.Lock()


def table_files(store: ObjectStore) -> TableFiles:
    """The one TableFiles of a store, so its caches outlive the per-request sources."""
    with _BY_STORE_LOCK:
        files = _BY_STORE.get(store)
        if files is None:
            files = _BY_STORE[store] = TableFiles(store)
        return files
