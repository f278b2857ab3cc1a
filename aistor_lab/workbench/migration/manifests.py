"""The avro side of a table's copy, with PyIceberg's readers, writers and models: manifests (their
entries' file paths moved), position delete files (their ``file_path`` column moved) and manifest lists
(their manifests' paths and lengths), each written once at its target path."""

from __future__ import annotations

from copy import copy
from typing import Any

from pyiceberg.manifest import (
    DATA_FILE_TYPE,
    DEFAULT_READ_VERSION,
    MANIFEST_ENTRY_SCHEMAS,
    MANIFEST_LIST_FILE_SCHEMAS,
    DataFileContent,
    FileFormat,
    ManifestContent,
    ManifestEntry,
    ManifestEntryStatus,
    ManifestFile,
    ManifestWriterV2,
    Record,
    read_manifest_list,
    write_manifest,
    write_manifest_list,
)
from pyiceberg.partitioning import PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.metadata import TableMetadata

from .objects import copy_file, stored_size
from .paths import PathMap

AVRO_CODEC = "deflate"
# The position delete files' column of data file paths (the spec's reserved field id).
DELETE_FILE_PATH_ID = 2147483546


def _position(struct: Any, name: str) -> int:
    return [f.name for f in struct.fields].index(name)


def _replaced(record: Record, struct: Any, **changes: Any) -> Record:
    """A copy of a PyIceberg record with some fields changed (its models have no setters)."""
    result = copy(record)
    result._data = list(record._data)
    for name, value in changes.items():
        result[_position(struct, name)] = value
    return result


class _DeleteManifestWriter(ManifestWriterV2):
    """PyIceberg 0.12 writes data manifests only; a delete manifest differs in its content marker."""

    def content(self) -> ManifestContent:
        return ManifestContent.DELETES

    @property
    def _meta(self) -> dict[str, str]:
        return {**super()._meta, "content": "deletes"}


def _schema_for(metadata: TableMetadata, spec: PartitionSpec) -> Schema:
    """The newest schema with every source column of ``spec`` (the manifest's partition type needs them)."""
    sources = {field.source_id for field in spec.fields}
    for schema in reversed(metadata.schemas):
        if sources <= set(schema.field_ids):
            return schema
    return metadata.schema()


def manifests_of(io: Any, manifest_list: str) -> list[ManifestFile]:
    return list(read_manifest_list(io.new_input(manifest_list)))


class ManifestRewriter:
    """Copies a table's files and rewrites its manifests, given where they go (``paths``); ``on_file``
    is told of each live entry done: ``(True, size)`` copied, ``(False, size)`` found complete, ``(None, 0)``
    a file an earlier manifest had (for progress)."""

    def __init__(self, metadata: TableMetadata, source_io: Any, target_io: Any, paths: PathMap,
                 on_file: Any = None, pool: Any = None):
        self.metadata, self.source_io, self.target_io, self.paths = metadata, source_io, target_io, paths
        self.on_file = on_file or (lambda copied, size: None)
        self.pool = pool
        self.manifest_lengths: dict[str, int] = {}
        self._done: dict[str, dict[str, Any]] = {}  # target path -> the fields of its moved entries

    # -- manifests --------------------------------------------------------------------------------

    def manifest(self, manifest: ManifestFile) -> None:
        """Copy the files of one manifest and write it at its target path (once)."""
        target = self.paths(manifest.manifest_path)
        if target in self.manifest_lengths:
            return
        entries = manifest.fetch_manifest_entry(self.source_io, discard_deleted=False)
        moved = self._moved_entries(entries)
        present = stored_size(self.target_io, target)
        if present is None:
            present = self._write_manifest(manifest, moved, target)
        self.manifest_lengths[target] = present

    def _moved_entries(self, entries: list[ManifestEntry]) -> list[ManifestEntry]:
        live = [e for e in entries if e.status != ManifestEntryStatus.DELETED]
        # A deleted entry's file may be gone (expired); a live one in another manifest copies it if not.
        results = (self.pool.map if self.pool else map)(self._copied, [e.data_file for e in live])
        changes = dict(zip((id(e.data_file) for e in live), results, strict=True))
        moved = []
        for entry in entries:
            data_file = entry.data_file
            target = self.paths(data_file.file_path)
            # A deleted entry takes what its file's live entries got (a rewritten delete file's size).
            fields = changes.get(id(data_file)) or self._done.get(target) or {"file_path": target}
            moved_file = _replaced(data_file, DATA_FILE_TYPE[DEFAULT_READ_VERSION], **fields)
            moved.append(_replaced(entry, MANIFEST_ENTRY_SCHEMAS[DEFAULT_READ_VERSION], data_file=moved_file))
        return moved

    def _copied(self, data_file: Any) -> dict[str, Any]:
        """Copy one live file (once, though several manifests list it); the fields of its moved entry."""
        target = self.paths(data_file.file_path)
        if target in self._done:
            self.on_file(None, 0)
            return self._done[target]
        if data_file.content == DataFileContent.POSITION_DELETES and data_file.file_format == FileFormat.PARQUET:
            fields = self._rewritten_position_deletes(data_file, target)
        else:
            copied = copy_file(self.source_io, data_file.file_path, self.target_io, target, data_file.file_size_in_bytes)
            self.on_file(copied, data_file.file_size_in_bytes)
            fields = {"file_path": target}
        self._done[target] = fields
        return fields

    def _write_manifest(self, manifest: ManifestFile, entries: list[ManifestEntry], target: str) -> int:
        if not entries:  # nothing inside names a path; PyIceberg's writers refuse empty manifests
            copy_file(self.source_io, manifest.manifest_path, self.target_io, target)
            return len(self.target_io.new_input(target))
        spec = self.metadata.specs()[manifest.partition_spec_id]
        schema = _schema_for(self.metadata, spec)
        output = self.target_io.new_output(target)
        snapshot_id = manifest.added_snapshot_id or entries[0].snapshot_id
        if manifest.content == ManifestContent.DELETES:
            writer = _DeleteManifestWriter(spec, schema, output, snapshot_id, AVRO_CODEC)
        else:
            writer = write_manifest(self.metadata.format_version, spec, schema, output, snapshot_id, AVRO_CODEC)
        with writer:
            for entry in entries:
                writer.add_entry(entry)
        return len(self.target_io.new_input(target))

    # -- position deletes -------------------------------------------------------------------------

    def _rewritten_position_deletes(self, data_file: Any, target: str) -> dict[str, Any]:
        """A position delete file names data files by path: a copy with those paths moved. Its size
        changes, so the entry gets the new size; its bounds of the path column move with it."""
        size = stored_size(self.target_io, target)
        copied = size is None
        if copied:
            size = self._write_position_deletes(data_file.file_path, target)
        self.on_file(copied, size)
        bounds = {}
        for name in ("lower_bounds", "upper_bounds"):
            values = dict(getattr(data_file, name) or {})
            if DELETE_FILE_PATH_ID in values:
                values[DELETE_FILE_PATH_ID] = self.paths(values[DELETE_FILE_PATH_ID].decode()).encode()
            bounds[name] = values
        # Column sizes and split offsets were of the old file: left unset rather than wrong.
        return {"file_path": target, "file_size_in_bytes": size, "column_sizes": None, "split_offsets": None, **bounds}

    def _write_position_deletes(self, source: str, target: str) -> int:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        # Batch by batch: a delete file of a big table may hold millions of positions.
        with self.source_io.new_input(source).open() as reader, \
                self.target_io.new_output(target).create(overwrite=True) as output:
            parquet = pq.ParquetFile(reader)
            schema = parquet.schema_arrow  # with the columns' field ids, which readers match by
            index = schema.get_field_index("file_path")
            with pq.ParquetWriter(output, schema) as writer:
                for batch in parquet.iter_batches():
                    encoded = batch.column(index).dictionary_encode()
                    moved = pa.array([self.paths(path) for path in encoded.dictionary.to_pylist()], pa.string())
                    columns = list(batch.columns)
                    columns[index] = pc.take(moved, encoded.indices).cast(schema.field(index).type)
                    writer.write_batch(pa.RecordBatch.from_arrays(columns, schema=schema))
        return len(self.target_io.new_input(target))

    # -- manifest lists ---------------------------------------------------------------------------

    def manifest_list(self, snapshot: Any, manifests: list[ManifestFile]) -> None:
        """Write the snapshot's manifest list at its target path (once), after its manifests."""
        target = self.paths(snapshot.manifest_list)
        if stored_size(self.target_io, target) is not None:
            return
        struct = MANIFEST_LIST_FILE_SCHEMAS[DEFAULT_READ_VERSION]
        moved = []
        for manifest in manifests:
            path = self.paths(manifest.manifest_path)
            moved.append(_replaced(manifest, struct, manifest_path=path, manifest_length=self.manifest_lengths[path]))
        with write_manifest_list(self.metadata.format_version, self.target_io.new_output(target),
                                 snapshot.snapshot_id, snapshot.parent_snapshot_id, snapshot.sequence_number,
                                 AVRO_CODEC) as writer:
            writer.add_manifests(moved)
