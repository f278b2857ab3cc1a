"""FileScanTasks as the spec's JSON (``ScanTasks``): each data file with its partition tuple and, for
the fields the client asked stats of, its column stats; its delete files as indexes into the page's
``delete-files``, each delete file listed once per page; its residual filter. Values are in the
spec's single-value JSON form (PyIceberg's ``to_json``)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from pyiceberg.conversions import from_bytes, to_json
from pyiceberg.expressions import AlwaysTrue
from pyiceberg.manifest import DataFile, DataFileContent
from pyiceberg.schema import Schema
from pyiceberg.table import FileScanTask
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.types import PrimitiveType

from ..manifest_reader import CONTENT_OFFSET, CONTENT_SIZE, FILE_FIRST_ROW_ID, REFERENCED_DATA_FILE

_CONTENT = {
    DataFileContent.DATA: "data",
    DataFileContent.POSITION_DELETES: "position-deletes",
    DataFileContent.EQUALITY_DELETES: "equality-deletes",
}


class TaskEncoder:
    """Encodes the tasks of one plan: the partition types of each spec and the stats fields are
    worked out once."""

    def __init__(self, metadata: TableMetadata, schema: Schema, stats_field_ids: frozenset[int]):
        self._schema = schema
        self._stats_ids = stats_field_ids
        specs = metadata.specs()
        self._partition_types = {
            spec_id: [field.field_type for field in spec.partition_type(schema).fields]
            for spec_id, spec in specs.items()
        }

    def page(self, tasks: Iterable[FileScanTask]) -> dict:
        """One ScanTasks body: ``file-scan-tasks`` and the ``delete-files`` they reference."""
        delete_files: list[dict] = []
        delete_index: dict[str, int] = {}
        file_scan_tasks = []
        for task in tasks:
            references = []
            for delete_file in sorted(task.delete_files, key=lambda file: file.file_path):
                key = f"{delete_file.file_path}#{_field(delete_file, CONTENT_OFFSET)}"
                if key not in delete_index:
                    delete_index[key] = len(delete_files)
                    delete_files.append(self._delete_file(delete_file))
                references.append(delete_index[key])
            encoded = {"data-file": self._data_file(task.file)}
            if references:
                encoded["delete-file-references"] = references
            if task.residual is not None and not isinstance(task.residual, AlwaysTrue):
                encoded["residual-filter"] = json.loads(task.residual.model_dump_json())
            file_scan_tasks.append(encoded)
        body: dict = {"file-scan-tasks": file_scan_tasks}
        if delete_files:
            body["delete-files"] = delete_files
        return body

    def _content_file(self, file: DataFile) -> dict:
        spec_id = file.spec_id
        types = self._partition_types.get(spec_id, [])
        partition = [
            None if value is None else to_json(types[i], value) if i < len(types) else value
            for i, value in enumerate(file.partition)
        ]
        encoded = {
            "spec-id": spec_id,
            "partition": partition,
            "content": _CONTENT[file.content],
            "file-path": file.file_path,
            "file-format": file.file_format.value.lower(),
            "file-size-in-bytes": file.file_size_in_bytes,
            "record-count": file.record_count,
        }
        if file.key_metadata:
            encoded["key-metadata"] = file.key_metadata.hex().upper()
        if file.split_offsets:
            encoded["split-offsets"] = list(file.split_offsets)
        if file.sort_order_id is not None:
            encoded["sort-order-id"] = file.sort_order_id
        return encoded

    def _data_file(self, file: DataFile) -> dict:
        encoded = self._content_file(file)
        if (first_row_id := _field(file, FILE_FIRST_ROW_ID)) is not None:
            encoded["first-row-id"] = first_row_id
        if self._stats_ids:
            for name, counts in (("column-sizes", file.column_sizes), ("value-counts", file.value_counts),
                                 ("null-value-counts", file.null_value_counts),
                                 ("nan-value-counts", file.nan_value_counts)):
                if picked := self._picked(counts):
                    encoded[name] = {"keys": list(picked), "values": list(picked.values())}
            for name, bounds in (("lower-bounds", file.lower_bounds), ("upper-bounds", file.upper_bounds)):
                if picked := self._bounds(bounds):
                    encoded[name] = {"keys": list(picked), "values": list(picked.values())}
        return encoded

    def _delete_file(self, file: DataFile) -> dict:
        encoded = self._content_file(file)
        if file.content == DataFileContent.EQUALITY_DELETES and file.equality_ids:
            encoded["equality-ids"] = list(file.equality_ids)
        for name, index in (("referenced-data-file", REFERENCED_DATA_FILE), ("content-offset", CONTENT_OFFSET),
                            ("content-size-in-bytes", CONTENT_SIZE)):
            if (value := _field(file, index)) is not None:
                encoded[name] = value
        return encoded

    def _picked(self, values: dict | None) -> dict:
        return {key: value for key, value in (values or {}).items() if key in self._stats_ids}

    def _bounds(self, bounds: dict[int, bytes] | None) -> dict:
        picked = {}
        for field_id, raw in self._picked(bounds).items():
            field_type = self._schema.find_type(field_id)
            if isinstance(field_type, PrimitiveType):
                picked[field_id] = to_json(field_type, from_bytes(field_type, raw))
        return picked


def _field(file: DataFile, index: int) -> object:
    return file[index] if len(file) > index else None
