"""Commits to format-version 3 tables, which PyIceberg 0.12 reads but cannot write: its manifest
readers drop the fields v3 added (``tables/manifest_reader.py`` reads them) and its manifest and
manifest-list writers stop at v2.

``V3Commits`` makes a PyIceberg snapshot producer commit v3: manifests read with every field and
written as v3, and a v3 manifest list that gives each new data manifest its range of row ids (the
spec's row lineage), with the snapshot's ``first-row-id`` and ``added-rows``. Where PyIceberg's own
producer code reads a manifest list or manifest at v2, the fields it dropped are put back by path
(manifests never change, and a file path names one data file of a table).
"""

from __future__ import annotations

from typing import Self

from pyiceberg.avro.file import AvroOutputFile
from pyiceberg.io import FileIO
from pyiceberg.manifest import (
    MANIFEST_LIST_FILE_SCHEMAS,
    DataFile,
    DataFileContent,
    ManifestContent,
    ManifestEntry,
    ManifestFile,
    ManifestListWriterV2,
    ManifestWriterV2,
)
from pyiceberg.table.refs import SnapshotRefType
from pyiceberg.table.snapshots import Snapshot
from pyiceberg.table.update import AddSnapshotUpdate, AssertRefSnapshotId, SetSnapshotRefUpdate
from pyiceberg.table.update.snapshot import _new_manifest_list_file_name

from ..manifest_reader import (
    DATA_FILE_FIELDS,
    FILE_FIRST_ROW_ID,
    LIST_FIELDS,
    MANIFEST_FIRST_ROW_ID,
    V3,
    file_first_row_id,
    read_entries,
    read_manifests,
    referenced_data_file,
)


def widen(data_file: DataFile) -> DataFile:
    """A data file read or made at v2 width, given v3's fields (null: inherited on read), in place."""
    missing = len(DATA_FILE_FIELDS) - len(data_file._data)
    if missing > 0:
        data_file._data.extend([None] * missing)
    return data_file


class ManifestWriterV3(ManifestWriterV2):
    """A v3 data manifest; ``first_row_ids`` puts back the row ids of files PyIceberg read at v2."""

    def __init__(self, *args, first_row_ids: dict[str, int], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._first_row_ids = first_row_ids

    @property
    def version(self) -> int:  # type: ignore[override]
        return V3

    def new_writer(self) -> AvroOutputFile[ManifestEntry]:
        schema = self._with_partition(V3)  # records are written at v3 width too
        return AvroOutputFile[ManifestEntry](
            output_file=self._output_file, file_schema=schema, record_schema=schema,
            schema_name="manifest_entry", metadata=self._meta,
        )

    def prepare_entry(self, entry: ManifestEntry) -> ManifestEntry:
        data_file = widen(entry.data_file)
        if data_file.content == DataFileContent.DATA and file_first_row_id(data_file) is None:
            data_file[FILE_FIRST_ROW_ID] = self._first_row_ids.get(data_file.file_path)
        return super().prepare_entry(entry)


class DeleteManifests:
    """A delete manifest (PyIceberg 0.12 writes data manifests only)."""

    def content(self) -> ManifestContent:
        return ManifestContent.DELETES

    @property
    def _meta(self) -> dict[str, str]:
        return {**super()._meta, "content": "deletes"}  # type: ignore[misc]


class DeleteManifestWriterV2(DeleteManifests, ManifestWriterV2):
    pass


class DeleteManifestWriterV3(DeleteManifests, ManifestWriterV3):
    pass


class ManifestListWriterV3(ManifestListWriterV2):
    """A v3 manifest list: a data manifest without a first row id is given the next range of ids,
    as long as its added and existing rows (what the table's ``next-row-id`` then moves past)."""

    def __init__(self, output_file, snapshot_id: int, parent_snapshot_id: int | None, sequence_number: int,
                 compression, first_row_id: int) -> None:
        super().__init__(output_file, snapshot_id, parent_snapshot_id, sequence_number, compression)
        self._format_version = V3
        self._meta = {**self._meta, "format-version": str(V3), "first-row-id": str(first_row_id)}
        self.first_row_id = self.next_row_id = first_row_id

    def __enter__(self) -> Self:
        schema = MANIFEST_LIST_FILE_SCHEMAS[V3]
        self._writer = AvroOutputFile[ManifestFile](
            output_file=self._output_file, file_schema=schema, record_schema=schema,
            schema_name="manifest_file", metadata=self._meta,
        )
        self._writer.__enter__()
        return self

    def prepare_manifest(self, manifest_file: ManifestFile) -> ManifestFile:
        prepared = super().prepare_manifest(manifest_file)
        # A copy at v3 width (the prepared record shares its fields with the producer's).
        manifest = ManifestFile(*prepared._data, *[None] * (len(LIST_FIELDS) - len(prepared._data)))
        if manifest.content == ManifestContent.DATA and manifest[MANIFEST_FIRST_ROW_ID] is None:
            manifest[MANIFEST_FIRST_ROW_ID] = self.next_row_id
            self.next_row_id += (manifest.added_rows_count or 0) + (manifest.existing_rows_count or 0)
        return manifest

    @property
    def added_rows(self) -> int:
        return self.next_row_id - self.first_row_id


class V3Commits:
    """Mixed into a PyIceberg snapshot producer (before it in the bases): a v3 table's snapshot is
    written as v3; other tables are left to PyIceberg."""

    def _is_v3(self) -> bool:
        return self._transaction.table_metadata.format_version >= V3

    def fetch_manifest_entry(self, manifest: ManifestFile, discard_deleted: bool = True) -> list[ManifestEntry]:
        if self._is_v3():
            return read_entries(self._io, manifest, discard_deleted)
        return super().fetch_manifest_entry(manifest, discard_deleted)

    def new_manifest_writer(self, spec):
        if not self._is_v3():
            return super().new_manifest_writer(spec)
        return ManifestWriterV3(spec, self.schema(), self.new_manifest_output(), self._snapshot_id,
                                self._compression, first_row_ids=self._parent_v3()[1])

    def new_delete_manifest_writer(self, spec):
        """A delete manifest's writer (PyIceberg 0.12 writes data manifests only)."""
        writer = DeleteManifestWriterV3 if self._is_v3() else DeleteManifestWriterV2
        kwargs = {"first_row_ids": {}} if self._is_v3() else {}
        return writer(spec, self.schema(), self.new_manifest_output(), self._snapshot_id, self._compression, **kwargs)

    def _parent_v3(self) -> tuple[dict[str, ManifestFile], dict[str, int]]:
        """The parent snapshot's manifests with their v3 fields, by path, and its data files' row ids."""
        parent_id = self._parent_snapshot_id
        cached = getattr(self, "_v3_parent", None)
        if cached is None or cached[0] != parent_id:
            snapshot = self._transaction.table_metadata.snapshot_by_id(parent_id) if parent_id else None
            manifests = read_manifests(self._io, snapshot) if snapshot else []
            row_ids = {
                entry.data_file.file_path: row_id
                for manifest in manifests
                if manifest.content == ManifestContent.DATA
                for entry in read_entries(self._io, manifest)
                if (row_id := file_first_row_id(entry.data_file)) is not None
            }
            cached = self._v3_parent = (parent_id, ({m.manifest_path: m for m in manifests}, row_ids))
        return cached[1]

    def _commit(self):
        if not self._is_v3():
            return super()._commit()
        metadata = self._transaction.table_metadata
        # Manifests kept from the parent were read at v2 by PyIceberg: their v3 fields come back by path.
        parent_manifests = self._parent_v3()[0]
        manifests = [parent_manifests.get(m.manifest_path, m) for m in self._manifests()]
        sequence_number = metadata.next_sequence_number()
        summary = self._summary(self.snapshot_properties)
        name = _new_manifest_list_file_name(snapshot_id=self._snapshot_id, attempt=0, commit_uuid=self.commit_uuid)
        path = self._transaction._table.location_provider().new_metadata_location(name)
        self._written_manifest_lists.append(path)
        with ManifestListWriterV3(self._io.new_output(path), self._snapshot_id, self._parent_snapshot_id,
                                  sequence_number, self._compression, metadata.next_row_id) as writer:
            writer.add_manifests(manifests)
        snapshot = Snapshot(
            snapshot_id=self._snapshot_id, parent_snapshot_id=self._parent_snapshot_id, manifest_list=path,
            sequence_number=sequence_number, summary=summary, schema_id=metadata.current_schema_id,
            first_row_id=writer.first_row_id, added_rows=writer.added_rows,
        )
        branch = self._target_branch
        head = metadata.refs[branch].snapshot_id if branch in metadata.refs else None
        return (
            (AddSnapshotUpdate(snapshot=snapshot),
             SetSnapshotRefUpdate(snapshot_id=self._snapshot_id, parent_snapshot_id=self._parent_snapshot_id,
                                  ref_name=branch, type=SnapshotRefType.BRANCH)),
            (AssertRefSnapshotId(snapshot_id=head, ref=branch),),
        )


def deletion_vector_targets(io: FileIO, snapshot: Snapshot) -> dict[str, set[str]]:
    """Each Puffin file of the snapshot's deletion vectors, and the data files it has vectors for
    (PyIceberg reads a vector without the file it is for, so it attaches it to its whole partition)."""
    targets: dict[str, set[str]] = {}
    for manifest in read_manifests(io, snapshot):
        if manifest.content == ManifestContent.DELETES:
            for entry in read_entries(io, manifest):
                if (target := referenced_data_file(entry.data_file)) is not None:
                    targets.setdefault(entry.data_file.file_path, set()).add(target)
    return targets
