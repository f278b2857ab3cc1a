"""Compaction: small data files rewritten into files near the target size, as Iceberg's
``rewrite_data_files`` with the bin-pack strategy does (and S3 Tables' compaction).

The plan is pure, from the current snapshot's scan tasks (each data file with the delete files that
apply to it): data files grouped by (spec, partition), a group rewritten when it has enough small
files or any file with deletes, its candidates bin-packed by size on disk. Execution reads one bin at
a time with PyIceberg's ArrowScan (deletes applied), sorts it by the table's sort order, writes it with
PyIceberg's writer, and commits every bin in one ``replace`` snapshot through PyIceberg's snapshot
producer, whose retries re-base onto concurrent commits and whose checks refuse a rewrite of a file
a concurrent commit deleted or added deletes to.
"""

from __future__ import annotations

import itertools
import uuid
from collections import defaultdict
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.exceptions import CommitFailedException, ValidationException
from pyiceberg.expressions import AlwaysTrue
from pyiceberg.io.pyarrow import ArrowScan, _dataframe_to_data_files, _get_field_from_arrow_table
from pyiceberg.manifest import DataFile, ManifestContent, ManifestFile
from pyiceberg.table import FileScanTask, Table, TableProperties
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.table.refs import MAIN_BRANCH
from pyiceberg.table.snapshots import Operation, Summary
from pyiceberg.table.sorting import NullOrder, SortDirection
from pyiceberg.table.update.snapshot import CommitWindow, _OverwriteFiles
from pyiceberg.table.update.validate import (
    _validate_data_files_exist,
    _validate_no_new_deletes_for_data_files,
)
from pyiceberg.typedef import EMPTY_DICT, Record
from pyiceberg.utils.bin_packing import ListPacker

from ..manifest_reader import referenced_data_file
from .format_v3 import V3Commits, deletion_vector_targets
from .health import SIZE_BOUNDS, size_histogram
from .report import FileEntry, OperationReport
from .row_lineage import FileLineage, lineage_of, schema_with_lineage, with_lineage
from .settings import MaintenanceSettings

# Bins kept open while packing: more finds tighter fits, as Iceberg's bin-pack planner does.
PACKING_LOOKBACK = 8
# Commits of the rewritten files, each with PyIceberg's own retries, before a busy writer wins.
COMMIT_ROUNDS = 5
NEW_FILE = "(new file)"


@dataclass
class GroupPlan:
    """One (spec, partition) of the table, and what compaction does to it."""

    spec_id: int
    partition: Record
    label: str  # the partition as a path ("region=eu"), or "(unpartitioned)"
    tasks: list[FileScanTask]  # every live data file of the group
    bins: list[list[FileScanTask]] = field(default_factory=list)  # each rewritten into one file

    @property
    def rewritten(self) -> list[FileScanTask]:
        return [task for bin_tasks in self.bins for task in bin_tasks]


@dataclass
class CompactionPlan:
    groups: list[GroupPlan]  # every group, rewritten or not
    removable_deletes: list[DataFile]  # delete files applying only to rewritten data files
    nothing_to_do: str | None = None  # why no group is rewritten

    @property
    def rewritten_groups(self) -> list[GroupPlan]:
        return [group for group in self.groups if group.bins]

    @property
    def rewritten_files(self) -> list[DataFile]:
        return [task.file for group in self.rewritten_groups for task in group.rewritten]


def plan_compaction(table: Table, settings: MaintenanceSettings) -> CompactionPlan:
    """The plan for the current snapshot of ``main``, from its manifests alone."""
    snapshot = table.metadata.snapshot_by_name("main")
    if snapshot is None:
        return CompactionPlan([], [], nothing_to_do="the table has no snapshot yet")
    tasks = list(table.scan(snapshot_id=snapshot.snapshot_id).plan_files())
    if table.format_version >= 3:
        _narrow_deletion_vectors(tasks, deletion_vector_targets(table.io, snapshot))
    return plan_from_tasks(table.metadata, tasks, settings)


def _narrow_deletion_vectors(tasks: list[FileScanTask], targets: dict[str, set[str]]) -> None:
    """Each task keeps only the deletion vectors for its own file: a file without deletes is not
    rewritten for a vector of its neighbour's."""
    for task in tasks:
        task.delete_files = {
            d for d in task.delete_files if d.file_path not in targets or task.file.file_path in targets[d.file_path]
        }


def plan_from_tasks(
    metadata: TableMetadata, tasks: list[FileScanTask], settings: MaintenanceSettings
) -> CompactionPlan:
    by_group: dict[tuple[int, Record], list[FileScanTask]] = defaultdict(list)
    for task in tasks:
        by_group[(task.file.spec_id, task.file.partition)].append(task)
    schema = metadata.schema()
    specs = metadata.specs()
    groups = []
    for (spec_id, partition), group_tasks in by_group.items():
        label = specs[spec_id].partition_to_path(partition, schema) or "(unpartitioned)"
        group = GroupPlan(spec_id, partition, label, group_tasks)
        group.bins = _bins(group_tasks, settings)
        groups.append(group)
    groups.sort(key=lambda g: (g.spec_id, g.label))
    plan = CompactionPlan(groups, _removable_deletes(tasks, groups))
    if not plan.rewritten_groups:
        plan.nothing_to_do = (
            f"no partition has {settings.min_input_files} data files under {settings.small_file_bytes} bytes "
            "or a data file with deletes"
        )
    return plan


def _bins(tasks: list[FileScanTask], settings: MaintenanceSettings) -> list[list[FileScanTask]]:
    candidates = [t for t in tasks if t.file.file_size_in_bytes < settings.small_file_bytes or t.delete_files]
    if len(candidates) < settings.min_input_files and not any(t.delete_files for t in candidates):
        return []
    candidates.sort(key=lambda t: t.file.file_size_in_bytes, reverse=True)
    packer: ListPacker[FileScanTask] = ListPacker(settings.target_file_size_bytes, PACKING_LOOKBACK, False)
    bins = packer.pack(candidates, lambda t: t.file.file_size_in_bytes)
    # A lone file without deletes would be rewritten into the same file.
    return [b for b in bins if len(b) > 1 or b[0].delete_files]


def _removable_deletes(tasks: list[FileScanTask], groups: list[GroupPlan]) -> list[DataFile]:
    """Delete files that apply to rewritten data files only: once those are rewritten, nothing reads them."""
    rewritten = {task.file.file_path for group in groups for task in group.rewritten}
    applies_to: dict[str, set[str]] = defaultdict(set)
    delete_files: dict[str, DataFile] = {}
    for task in tasks:
        for delete_file in task.delete_files:
            applies_to[delete_file.file_path].add(task.file.file_path)
            delete_files[delete_file.file_path] = delete_file
    return [delete_files[path] for path, data_paths in applies_to.items() if data_paths <= rewritten]


def compact(table: Table, settings: MaintenanceSettings, *, dry_run: bool) -> OperationReport:
    report = OperationReport("compact", dry_run, deletes=False)
    try:
        plan = plan_compaction(table, settings)
    except ValueError as exc:  # equality deletes, which PyIceberg cannot apply
        report.skipped = f"cannot plan the rewrite: {exc}"
        return report
    if plan.nothing_to_do:
        report.skipped = plan.nothing_to_do
        return report
    report.removed_files = [_entry(f) for f in (*plan.rewritten_files, *plan.removable_deletes)]
    if dry_run:
        outputs = {id(group): [_estimate(b) for b in group.bins] for group in plan.rewritten_groups}
        report.added_files = [entry for entries in outputs.values() for entry in entries]
        report.details = _details(plan, outputs)
        return report
    return run_compaction(table, plan, report)


def run_compaction(table: Table, plan: CompactionPlan, report: OperationReport) -> OperationReport:
    """Rewrite the plan's bins and commit them in one snapshot. ``table`` may have moved on since the
    plan: the commit re-bases onto what was committed meanwhile, or fails cleanly on a conflict."""
    metadata = table.metadata
    write_uuid, counter = uuid.uuid4(), itertools.count(0)
    outputs: dict[int, list[DataFile]] = {}
    written: list[DataFile] = []
    lineage = _lineage(table)
    try:
        for group in plan.rewritten_groups:
            outputs[id(group)] = []
            for bin_tasks in group.bins:
                files = _rewrite_bin(table, metadata, bin_tasks, write_uuid, counter, lineage)
                outputs[id(group)] += files
                written += files
    except BaseException:
        _delete(table, written)  # nothing references them yet
        raise
    planned_on = metadata.current_snapshot_id
    for round_number in itertools.count(1):
        try:
            report.snapshot_id = _commit(table, plan, written, planned_on)
            break
        except CommitFailedException as exc:
            # Writers kept winning the race through PyIceberg's retries: go again from what is
            # current, still judging conflicts from the plan's snapshot on (the files are reused).
            if round_number < COMMIT_ROUNDS:
                table.refresh()
                continue
            failure: Exception = exc
        except ValidationException as exc:
            failure = exc
        # The commit surely did not land (any other error leaves the outcome unknown, and the files).
        _delete(table, written)
        report.removed_files = []
        report.skipped = f"a concurrent commit conflicts with the rewrite, nothing was changed: {failure}"
        return report
    report.added_files = [_entry(f) for f in written]
    report.details = _details(plan, {key: [_entry(f) for f in files] for key, files in outputs.items()})
    report.details["rows-rewritten"] = sum(f.record_count for f in written)
    return report


def _delete(table: Table, files: list[DataFile]) -> None:
    for data_file in files:
        table.io.delete(data_file.file_path)


def _lineage(table: Table) -> dict[str, FileLineage] | None:
    """The row ids and sequence numbers of a v3 table's data files (None: no row lineage to keep)."""
    snapshot = table.metadata.snapshot_by_name(MAIN_BRANCH)
    if table.format_version < 3 or snapshot is None:
        return None
    return lineage_of(table.io, snapshot)


def _rewrite_bin(
    table: Table,
    metadata: TableMetadata,
    tasks: list[FileScanTask],
    write_uuid: uuid.UUID,
    counter: itertools.count,
    lineage: dict[str, FileLineage] | None,
) -> list[DataFile]:
    """One bin's rows (deletes applied), sorted, written as new data files: one bin in memory at a time."""
    scan = ArrowScan(metadata, table.io, metadata.schema(), AlwaysTrue())
    schema = metadata.schema()
    if lineage is None:
        rows = scan.to_table(tasks)
    else:  # each row keeps its id: read file by file, to know the positions of the rows
        rows = pa.concat_tables(
            [with_lineage(scan.to_table([task]), task, lineage[task.file.file_path], table.io) for task in tasks],
            promote_options="permissive")  # files read alone may differ in string width
        schema = schema_with_lineage(schema)
    if rows.num_rows == 0:  # every row deleted: the bin rewrites into nothing
        return []
    rows = _sorted(rows, metadata)
    # The bin was sized by its files' bytes on disk; PyIceberg's writer cuts files by bytes in memory,
    # several times more, so its target is the whole bin: one file per bin (per partition of the spec).
    target = {TableProperties.WRITE_TARGET_FILE_SIZE_BYTES: str(2 * rows.nbytes + 1)}
    schemas = [schema if s.schema_id == schema.schema_id else s for s in metadata.schemas]
    writer_metadata = metadata.model_copy(
        update={"properties": {**metadata.properties, **target}, "schemas": schemas})
    return list(_dataframe_to_data_files(writer_metadata, rows, table.io, write_uuid, counter))


def _sorted(rows: pa.Table, metadata: TableMetadata) -> pa.Table:
    order = metadata.sort_order()
    if order.is_unsorted:
        return rows
    schema = metadata.schema()
    keyed, keys = rows, []
    for index, sort_field in enumerate(order.fields):
        source = _get_field_from_arrow_table(rows, schema.find_column_name(sort_field.source_id))
        values = sort_field.transform.pyarrow_transform(schema.find_type(sort_field.source_id))(source)
        keyed = keyed.append_column(f"_sort_{index}", values)
        direction = "ascending" if sort_field.direction == SortDirection.ASC else "descending"
        keys.append((f"_sort_{index}", direction))
    # pyarrow places nulls once for all keys: the first field's choice.
    nulls = "at_start" if order.fields[0].null_order == NullOrder.NULLS_FIRST else "at_end"
    return rows.take(pc.sort_indices(keyed, sort_keys=keys, null_placement=nulls))


def _commit(table: Table, plan: CompactionPlan, written: list[DataFile], planned_on: int | None) -> int:
    transaction = table.transaction()
    rewrite = _RewriteFiles(Operation.REPLACE, transaction, table.io)
    # Conflicts count from the snapshot the plan read, even when the table has moved on since: a
    # delete committed meanwhile to a rewritten file must fail the rewrite, never be undone by it.
    rewrite._starting_snapshot_id = planned_on
    rewrite._commit_window = CommitWindow.resolve(transaction.table_metadata, planned_on, MAIN_BRANCH)
    rewrite._validate_concurrency()
    for data_file in plan.rewritten_files:
        rewrite.delete_data_file(data_file)
    for data_file in written:
        rewrite.append_data_file(data_file)
    rewrite.remove_delete_files(plan.removable_deletes, {f.file_path for f in plan.rewritten_files})
    rewrite.commit()
    transaction.commit_transaction()
    return rewrite.snapshot_id


class ReplaceSummary:
    """A snapshot producer's summary for operation ``replace``, whose totals PyIceberg computes for an
    overwrite only (and refuses otherwise): computed as an overwrite's, then named ``replace``."""

    _operation: Operation

    def _summary(self, snapshot_properties: dict[str, str] = EMPTY_DICT) -> Summary:
        operation, self._operation = self._operation, Operation.OVERWRITE
        try:
            summary = super()._summary(snapshot_properties)  # type: ignore[misc]
        finally:
            self._operation = operation
        return summary.model_copy(update={"operation": operation})


class _RewriteFiles(V3Commits, ReplaceSummary, _OverwriteFiles):
    """PyIceberg's overwrite as Iceberg's RewriteFiles: operation ``replace``, delete files removed
    with the data files they applied to, and only the conflicts a rewrite has (Java's checks): a
    rewritten file deleted, or given new deletes, concurrently. Concurrent appends are no conflict."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._removed_deletes: set[DataFile] = set()
        self._rewritten_paths: set[str] = set()  # a deletion vector of one of them goes too
        self._found_deletes: set[DataFile] = set()  # the removed delete files still in the parent

    def remove_delete_files(self, delete_files: list[DataFile], rewritten_paths: set[str]) -> None:
        self._removed_deletes.update(delete_files)
        self._rewritten_paths = rewritten_paths

    def _validate_concurrency(self) -> None:
        window = self._commit_window
        if window is None or window.is_empty() or window.head is None:
            return
        table = self._transaction._table
        _validate_data_files_exist(table, window.head, self._deleted_data_files, window.base)
        _validate_no_new_deletes_for_data_files(
            table, window.head, None, self._deleted_data_files, window.base
        )

    def _existing_manifests(self) -> list[ManifestFile]:
        self._found_deletes = set()
        manifests = []
        for manifest in super()._existing_manifests():
            if manifest.content == ManifestContent.DELETES and (self._removed_deletes or self._rewritten_paths):
                manifests.append(self._without_removed_deletes(manifest))
            else:
                manifests.append(manifest)
        return manifests

    def _without_removed_deletes(self, manifest: ManifestFile) -> ManifestFile:
        entries = self.fetch_manifest_entry(manifest, discard_deleted=True)
        removed = [e for e in entries if self._removed(e.data_file)]
        if not removed:
            return manifest
        self._found_deletes.update(e.data_file for e in removed)
        writer = self.new_delete_manifest_writer(self.spec(manifest.partition_spec_id))
        with writer:
            for entry in entries:
                if self._removed(entry.data_file):
                    writer.delete(entry)
                else:
                    writer.existing(entry)
        return writer.to_manifest_file()

    def _removed(self, delete_file: DataFile) -> bool:
        return delete_file in self._removed_deletes or referenced_data_file(delete_file) in self._rewritten_paths

    def _summary(self, snapshot_properties: dict[str, str] = EMPTY_DICT) -> Summary:
        # PyIceberg's summary counts the removed files of the deleted set: the delete files too, then.
        data_files = self._deleted_data_files
        self._deleted_data_files = data_files | self._found_deletes
        try:
            return super()._summary(snapshot_properties)
        finally:
            self._deleted_data_files = data_files


def _entry(data_file: DataFile) -> FileEntry:
    return FileEntry(data_file.file_path, data_file.file_size_in_bytes)


def _estimate(bin_tasks: list[FileScanTask]) -> FileEntry:
    """The file a bin becomes, sized as its inputs (deleted rows and better encoding make it smaller)."""
    return FileEntry(NEW_FILE, sum(task.file.file_size_in_bytes for task in bin_tasks))


def _details(plan: CompactionPlan, outputs: dict[int, list[FileEntry]]) -> dict:
    """Per-partition figures and the file-size histogram before and after, for the report."""
    partitions = []
    before, after = [], []
    for group in plan.groups:
        sizes = [task.file.file_size_in_bytes for task in group.tasks]
        rewritten = {task.file.file_path for task in group.rewritten}
        kept = [task.file.file_size_in_bytes for task in group.tasks if task.file.file_path not in rewritten]
        new = [entry.size for entry in outputs.get(id(group), [])]
        before += sizes
        after += kept + new
        if group.bins:
            partitions.append({
                "partition": group.label,
                "spec-id": group.spec_id,
                "files-before": len(sizes),
                "bytes-before": sum(sizes),
                "files-rewritten": len(rewritten),
                "bytes-rewritten": sum(t.file.file_size_in_bytes for t in group.rewritten),
                "files-after": len(kept) + len(new),
            })
    return {
        "partitions": partitions,
        "delete-files-removed": len(plan.removable_deletes),
        "histogram": {"bounds": list(SIZE_BOUNDS), "before": size_histogram(before)["counts"],
                      "after": size_histogram(after)["counts"]},
    }
