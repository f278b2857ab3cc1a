"""The parity of a migrated table: what its current snapshot holds, counted the same way in the source
and the target (by planning a scan with PyIceberg, which reads every manifest the target now has)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Counts:
    snapshots: int
    data_files: int
    delete_files: int
    records: int  # in the data files, before deletes apply


def counts(metadata: Any, io: Any) -> Counts:
    """The counts of a table's metadata (a PyIceberg TableMetadata) read through ``io``."""
    from pyiceberg.table import DataScan

    snapshots = len(metadata.snapshots)
    if metadata.current_snapshot_id is None:
        return Counts(snapshots, 0, 0, 0)
    tasks = list(DataScan(metadata, io).plan_files())
    deletes = {delete.file_path for task in tasks for delete in task.delete_files}
    return Counts(snapshots, len(tasks), len(deletes), sum(task.file.record_count for task in tasks))
