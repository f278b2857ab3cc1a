"""Row lineage through a rewrite of a format-version 3 table: a row moved to a new data file keeps
its ``_row_id`` and ``_last_updated_sequence_number``, written into the new file as the spec's
reserved columns (as Iceberg's own Spark rewrite does), so row ids stay stable across compaction.

A row's id is its file's ``first_row_id`` plus its position in the file, unless the file stores one
(it was rewritten before); its sequence number is the file's data sequence number, unless stored.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyiceberg.io import FileIO
from pyiceberg.io.pyarrow import _combine_positional_deletes, _read_deletes
from pyiceberg.manifest import DataFileContent, ManifestContent
from pyiceberg.schema import Schema
from pyiceberg.table import FileScanTask
from pyiceberg.table.snapshots import Snapshot
from pyiceberg.types import LongType, NestedField

from ..manifest_reader import file_first_row_id, read_entries, read_manifests

ROW_ID = NestedField(2147483540, "_row_id", LongType(), required=False)
LAST_UPDATED = NestedField(2147483539, "_last_updated_sequence_number", LongType(), required=False)
FIELD_ID_KEY = b"PARQUET:field_id"


@dataclass(frozen=True)
class FileLineage:
    first_row_id: int | None  # None: the file predates row lineage (its rows have no ids)
    sequence_number: int


def lineage_of(io: FileIO, snapshot: Snapshot) -> dict[str, FileLineage]:
    """Every live data file of the snapshot, by path."""
    return {
        entry.data_file.file_path: FileLineage(file_first_row_id(entry.data_file), entry.sequence_number)
        for manifest in read_manifests(io, snapshot)
        if manifest.content == ManifestContent.DATA
        for entry in read_entries(io, manifest)
        if entry.data_file.content == DataFileContent.DATA
    }


def schema_with_lineage(schema: Schema) -> Schema:
    """The table's schema and the two lineage columns: what the rewritten files are written with."""
    return Schema(*schema.fields, ROW_ID, LAST_UPDATED, schema_id=schema.schema_id,
                  identifier_field_ids=schema.identifier_field_ids)


def with_lineage(rows: pa.Table, task: FileScanTask, lineage: FileLineage, io: FileIO) -> pa.Table:
    """``rows``, one task's rows as PyIceberg's scan returns them (deletes applied, in file order),
    with the lineage columns."""
    positions = _surviving_positions(task, io)
    if len(positions) != rows.num_rows:
        raise ValueError(f"{task.file.file_path}: {rows.num_rows} rows read, {len(positions)} positions left")
    stored = _stored_columns(task, io)
    row_ids = None if lineage.first_row_id is None else pc.add(positions, pa.scalar(lineage.first_row_id, pa.int64()))
    updated = pa.scalar(lineage.sequence_number, pa.int64())
    if ROW_ID.field_id in stored:
        kept = stored[ROW_ID.field_id].take(positions)
        row_ids = kept if row_ids is None else pc.coalesce(kept, row_ids)
    if LAST_UPDATED.field_id in stored:
        updated = pc.coalesce(stored[LAST_UPDATED.field_id].take(positions), updated)
    return rows.append_column(ROW_ID.name, _column(row_ids, rows.num_rows)).append_column(
        LAST_UPDATED.name, _column(updated, rows.num_rows))


def _column(values, length: int) -> pa.Array:
    if values is None:
        return pa.nulls(length, pa.int64())
    if isinstance(values, pa.Scalar):
        return pa.array([values.as_py()] * length, pa.int64())
    return values.cast(pa.int64())


def _surviving_positions(task: FileScanTask, io: FileIO) -> pa.Array:
    """The positions in the data file of the rows no delete file removes (what PyIceberg's scan keeps)."""
    deleted = [
        positions
        for delete_file in task.delete_files
        if (positions := _read_deletes(io, delete_file).get(task.file.file_path)) is not None
    ]
    if not deleted:
        return pa.array(range(task.file.record_count), pa.int64())
    return _combine_positional_deletes(deleted, 0, task.file.record_count).cast(pa.int64())


def _stored_columns(task: FileScanTask, io: FileIO) -> dict[int, pa.ChunkedArray]:
    """The lineage columns the data file itself holds, by field id (a file rewritten before has them)."""
    with io.new_input(task.file.file_path).open() as stream:
        parquet = pq.ParquetFile(stream)
        wanted = {
            field.name: int(field.metadata[FIELD_ID_KEY])
            for field in parquet.schema_arrow
            if field.metadata and int(field.metadata.get(FIELD_ID_KEY, 0)) in (ROW_ID.field_id, LAST_UPDATED.field_id)
        }
        if not wanted:
            return {}
        table = parquet.read(columns=list(wanted))
    return {field_id: table.column(name) for name, field_id in wanted.items()}
