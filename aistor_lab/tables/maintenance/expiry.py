"""Snapshot expiry, as Iceberg's ``expire_snapshots`` decides it, committed as a normal catalog commit
(``remove-snapshots``, ``remove-snapshot-ref``) so engines and shares see a consistent table, then
the deletion of the files that only the removed snapshots used.

What is kept (Iceberg's RemoveSnapshots):
- every tag's snapshot, and every branch's head;
- along each branch, its newest ancestors while fewer than ``min-snapshots-to-keep`` are kept or
  while they are younger than ``max-snapshot-age-ms`` (a ref's own settings win over the table's);
- snapshots no ref reaches, while younger than ``max-snapshot-age-ms``.
A tag or branch other than ``main`` whose snapshot is older than its ``max-ref-age-ms`` (its own, or
the table's ``history.expire.max-ref-age-ms``) is removed first, and its snapshots with it.

The commit asserts every ref still points where the plan saw it: a writer that commits meanwhile
makes the plan start again from the new metadata (at most ``ATTEMPTS`` times), so a snapshot a
writer just made its parent is never removed. Files are deleted only after the commit succeeded,
and only those no kept snapshot reaches (manifest lists, manifests, live data and delete files,
statistics files of removed snapshots).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pyiceberg.exceptions import CommitFailedException
from pyiceberg.table import Table
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.table.refs import MAIN_BRANCH, SnapshotRefType
from pyiceberg.table.update import (
    AssertRefSnapshotId,
    AssertTableUUID,
    RemoveSnapshotRefUpdate,
    RemoveSnapshotsUpdate,
)

from .reachable_files import snapshot_files
from .report import FileEntry, OperationReport
from .settings import MaintenanceSettings

OPERATION = "expire-snapshots"
ATTEMPTS = 4


@dataclass(frozen=True)
class ExpiryPlan:
    removed_refs: list[str]
    removed_snapshots: list[int]  # oldest first
    kept_snapshots: list[int]


def plan_expiry(metadata: TableMetadata, settings: MaintenanceSettings, now_ms: int) -> ExpiryPlan:
    """Which refs and snapshots go (pure: from the metadata alone)."""
    by_id = {s.snapshot_id: s for s in metadata.snapshots}
    removed_refs = []
    for name, ref in metadata.refs.items():
        max_ref_age = ref.max_ref_age_ms or settings.max_ref_age_ms
        snapshot = by_id.get(ref.snapshot_id)
        if name != MAIN_BRANCH and max_ref_age and snapshot and now_ms - snapshot.timestamp_ms > max_ref_age:
            removed_refs.append(name)
    kept: set[int] = set()
    reached: set[int] = set()  # every snapshot some remaining ref reaches
    for name, ref in metadata.refs.items():
        if name in removed_refs:
            continue
        if ref.snapshot_ref_type == SnapshotRefType.TAG:
            kept.add(ref.snapshot_id)
            reached.add(ref.snapshot_id)
            continue
        min_keep = ref.min_snapshots_to_keep or settings.min_snapshots_to_keep
        oldest_kept_ms = now_ms - (ref.max_snapshot_age_ms or settings.max_snapshot_age_ms)
        kept_here = 0
        for snapshot in _ancestors(ref.snapshot_id, by_id):
            reached.add(snapshot.snapshot_id)
            if kept_here < min_keep or snapshot.timestamp_ms >= oldest_kept_ms:
                kept.add(snapshot.snapshot_id)
                kept_here += 1
    oldest_kept_ms = now_ms - settings.max_snapshot_age_ms
    kept.update(s.snapshot_id for s in metadata.snapshots
                if s.snapshot_id not in reached and s.timestamp_ms >= oldest_kept_ms)
    ordered = sorted(metadata.snapshots, key=lambda s: s.timestamp_ms)
    return ExpiryPlan(
        removed_refs=removed_refs,
        removed_snapshots=[s.snapshot_id for s in ordered if s.snapshot_id not in kept],
        kept_snapshots=[s.snapshot_id for s in ordered if s.snapshot_id in kept],
    )


def _ancestors(snapshot_id: int | None, by_id: dict) -> Iterator:
    while snapshot_id is not None and snapshot_id in by_id:
        snapshot = by_id[snapshot_id]
        yield snapshot
        snapshot_id = snapshot.parent_snapshot_id


def expire_snapshots(table: Table, settings: MaintenanceSettings, *, dry_run: bool, now_ms: int) -> OperationReport:
    for _ in range(ATTEMPTS):
        metadata = table.metadata
        plan = plan_expiry(metadata, settings, now_ms)
        report = OperationReport(OPERATION, dry_run, removed_snapshots=plan.removed_snapshots,
                                 details={"removed-refs": plan.removed_refs, "kept-snapshots": len(plan.kept_snapshots)})
        if not plan.removed_snapshots and not plan.removed_refs:
            report.skipped = (f"nothing to expire: {len(plan.kept_snapshots)} snapshots, each within "
                              "min-snapshots-to-keep or younger than max-snapshot-age-ms")
            return report
        orphaned = files_only_in(table, plan.removed_snapshots, plan.kept_snapshots)
        report.removed_files = orphaned
        if dry_run:
            return report
        try:
            _commit(table, metadata, plan)
        except CommitFailedException:
            table.refresh()  # a writer committed: plan again against what is current
            continue
        for entry in orphaned:
            table.io.delete(entry.path)
        return report
    raise CommitFailedException(f"snapshot expiry lost the race against writers {ATTEMPTS} times; the next run retries")


def _commit(table: Table, metadata: TableMetadata, plan: ExpiryPlan) -> None:
    requirements = [AssertTableUUID(uuid=metadata.table_uuid)]
    requirements += [AssertRefSnapshotId(ref=name, snapshot_id=ref.snapshot_id) for name, ref in metadata.refs.items()]
    updates = [RemoveSnapshotRefUpdate(ref_name=name) for name in plan.removed_refs]
    if plan.removed_snapshots:
        updates.append(RemoveSnapshotsUpdate(snapshot_ids=plan.removed_snapshots))
    response = table.catalog.commit_table(table, tuple(requirements), tuple(updates))
    table.metadata, table.metadata_location = response.metadata, response.metadata_location


def files_only_in(table: Table, removed: list[int], kept: list[int]) -> list[FileEntry]:
    """The files the ``removed`` snapshots reach and no ``kept`` snapshot does: their manifest lists,
    manifests, live data and delete files, and their statistics files."""
    metadata = table.metadata
    # A manifest a kept snapshot reads keeps every live file it names: the removed snapshots' walk
    # skips it, so manifests the two share (most of them, in an append-only table) are read once.
    shared: set[str] = set()
    kept_files = {path for path, _ in _reachable(table, kept, shared)}
    gone: dict[str, int] = {}
    for path, size in _reachable(table, removed, shared):
        if path not in kept_files:
            gone[path] = size if size is not None else _size(table, path)
    removed_ids = set(removed)
    for statistics in metadata.statistics:
        if statistics.snapshot_id in removed_ids:
            gone[statistics.statistics_path] = statistics.file_size_in_bytes
    for statistics in metadata.partition_statistics:
        if statistics.snapshot_id in removed_ids:
            gone[statistics.statistics_path] = statistics.file_size_in_bytes
    return [FileEntry(path, size) for path, size in sorted(gone.items())]


def _size(table: Table, path: str) -> int:
    try:
        return len(table.io.new_input(path))
    except FileNotFoundError:
        return 0


def _reachable(table: Table, snapshot_ids: Iterable[int], manifests_read: set[str]) -> Iterator[tuple[str, int | None]]:
    snapshots = [table.metadata.snapshot_by_id(i) for i in snapshot_ids]
    return snapshot_files(table.io, [s for s in snapshots if s is not None], live_only=True,
                          manifests_read=manifests_read)
